package lobby

import (
	"time"

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
			cur[i] = store.NewRating("ffa", "")
		}
		out, err := rate(ffa.Mode, players, cur, time.Time{})
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

// Glicko-2's inactivity rule: a player back after months is less certain,
// so the same win moves them further, and leaves them less certain, than
// one who played yesterday; a newcomer (never rated) starts at ± 500.
func TestRateGrowsDeviationWithInactivity(t *testing.T) {
	duel := &Room{Mode: game.Mode{Name: "1v1", Seats: 2}}
	end := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	players := []store.MatchPlayer{{Place: 1}, {Place: 2}}
	rated := func(ago time.Duration) []store.Rating {
		cur := []store.Rating{store.NewRating("1v1", ""), store.NewRating("1v1", "")}
		for i := range cur {
			cur[i].Deviation, cur[i].Volatility, cur[i].Updated = 60, 0.06, end.Add(-ago)
		}
		return cur
	}
	recent, err := rate(duel.Mode, players, rated(24*time.Hour), end)
	if err != nil {
		t.Fatal(err)
	}
	away, err := rate(duel.Mode, players, rated(180*24*time.Hour), end)
	if err != nil {
		t.Fatal(err)
	}
	if !(away[0].Rating-1500 > recent[0].Rating-1500+1 && away[0].Deviation > recent[0].Deviation+5) {
		t.Errorf("back after 180 days: %+.1f ± %.1f; played yesterday: %+.1f ± %.1f; want the first to move more and stay less certain",
			away[0].Rating-1500, away[0].Deviation, recent[0].Rating-1500, recent[0].Deviation)
	}
	fresh, _ := rate(duel.Mode, players, []store.Rating{store.NewRating("1v1", ""), store.NewRating("1v1", "")}, end)
	if fresh[0].Deviation > 400 || fresh[0].Rating < 1700 {
		t.Errorf("two newcomers, one win: %.1f ± %.1f; want about 1741 ± 397", fresh[0].Rating, fresh[0].Deviation)
	}
}
