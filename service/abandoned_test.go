package service

import (
	"testing"

	"github.com/termarena/termarena/store"
)

// A match is abandoned when it is unrated, someone walked out and nobody
// got ahead; a ranked walk-out keeps its places (it is rated as a loss),
// and a match with a point scored ranks by it.
func TestAbandoned(t *testing.T) {
	players := func(a, b int, left bool) []store.MatchPlayer {
		return []store.MatchPlayer{{Name: "ann", Place: 2, Score: a, Left: left}, {Name: "bot-L1", Place: 1, Score: b}}
	}
	for _, c := range []struct {
		name string
		m    store.MatchRecord
		want bool
	}{
		{"practice walk-out at 0-0", store.MatchRecord{Mode: "practice-1v1", Forfeit: true, Players: players(0, 0, false)}, true},
		{"casual leaver at 0-0", store.MatchRecord{Mode: "casual-1v1", Players: players(0, 0, true)}, true},
		{"ranked walk-out at 0-0", store.MatchRecord{Mode: "pong-1v1", Ranked: true, Forfeit: true, Players: players(0, 0, true)}, false},
		{"walk-out after a point", store.MatchRecord{Mode: "practice-1v1", Forfeit: true, Players: players(0, 1, false)}, false},
		{"played to the end", store.MatchRecord{Mode: "practice-1v1", Players: players(0, 0, false)}, false},
		{"aborted", store.MatchRecord{Mode: "casual-1v1", Aborted: true, Forfeit: true, Players: players(0, 0, true)}, false},
	} {
		if got := toMatch(c.m).Abandoned; got != c.want {
			t.Errorf("%s: abandoned %v, want %v", c.name, got, c.want)
		}
	}
}
