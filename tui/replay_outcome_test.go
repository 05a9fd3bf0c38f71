package tui

import (
	"testing"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/rating"
	"github.com/termarena/termarena/spectator"
	"github.com/termarena/termarena/store"
)

// A replay's results show the ratings the record kept, provisional ("?")
// as they were then: by the deviations for a Glicko-2 record, and by Elo's
// 30-game rule for one rated before deviations were kept.
func TestReplayOutcomeMarksProvisionalAsRecorded(t *testing.T) {
	r := &spectator.Replay{Seats: make([]game.Player, 2)}
	for _, tc := range []struct {
		name          string
		p             store.MatchPlayer
		before, after string
	}{
		{"glicko newcomer", store.MatchPlayer{Slot: 0, RatingBefore: 1500, RatingAfter: 1741.5, GamesAfter: 1, DeviationBefore: 500, DeviationAfter: 396.7}, "1500?", "1742?"},
		{"glicko established by this match", store.MatchPlayer{Slot: 0, RatingBefore: 1600, RatingAfter: 1610, GamesAfter: 11, DeviationBefore: 112, DeviationAfter: 105}, "1600?", "1610"},
		{"elo, 5 games", store.MatchPlayer{Slot: 0, RatingBefore: 1500, RatingAfter: 1520, GamesAfter: 5}, "1500?", "1520?"},
		{"elo, the 30th game", store.MatchPlayer{Slot: 0, RatingBefore: 1500, RatingAfter: 1520, GamesAfter: 30}, "1500?", "1520"},
		{"elo, games not kept", store.MatchPlayer{Slot: 0, RatingBefore: 1500, RatingAfter: 1520}, "1500", "1520"},
	} {
		out := recordOutcome(r, &store.MatchRecord{Ranked: true, Players: []store.MatchPlayer{tc.p}})
		c := out.Changes[0]
		if b, a := rating.Display(c.Before, c.DeviationBefore), rating.Display(c.After, c.DeviationAfter); b != tc.before || a != tc.after {
			t.Errorf("%s: %s → %s, want %s → %s", tc.name, b, a, tc.before, tc.after)
		}
	}
}
