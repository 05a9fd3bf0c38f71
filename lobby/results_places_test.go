package lobby

import (
	"testing"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/store"
)

// Issue 20: a 2nd place of four in a free-for-all was counted as a loss
// in the leaderboard's wins and losses. First place wins, last loses, the
// places between are neither (each still a game); a leaver loses.
func TestFreeForAllCountsFirstAsWinLastAsLoss(t *testing.T) {
	ffa := &Room{Mode: game.Mode{Name: "ffa", Seats: 4}}
	for _, tc := range []struct {
		name   string
		places []int
		left   []bool
		want   [][3]int // wins, losses, draws per player
	}{
		{"four places", []int{1, 2, 3, 4}, nil, [][3]int{{1, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 1, 0}}},
		{"two share last", []int{1, 2, 3, 3}, nil, [][3]int{{1, 0, 0}, {0, 0, 0}, {0, 1, 0}, {0, 1, 0}}},
		{"a leaver in the middle", []int{1, 2, 3, 4}, []bool{false, true, false, false}, [][3]int{{1, 0, 0}, {0, 1, 0}, {0, 0, 0}, {0, 1, 0}}},
		{"all share first", []int{1, 1, 1, 1}, nil, [][3]int{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}}},
	} {
		players := make([]store.MatchPlayer, len(tc.places))
		cur := make([]store.Rating, len(tc.places))
		for i, p := range tc.places {
			players[i] = store.MatchPlayer{Place: p, Left: tc.left != nil && tc.left[i]}
			cur[i] = store.Rating{Rating: 1500}
		}
		out, err := rate(ffa, players, cur)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range out {
			if got := [3]int{r.Wins, r.Losses, r.Draws}; got != tc.want[i] || r.Games != 1 {
				t.Errorf("%s: player %d (place %d): wins, losses, draws %v in %d games, want %v in 1", tc.name, i, tc.places[i], got, r.Games, tc.want[i])
			}
		}
	}
}
