package tui

import (
	"context"
	"time"

	"testing"

	"github.com/termarena/termarena/lobby"

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

type agedRatings map[string]store.Rating

func (a agedRatings) Rating(_ context.Context, _, fp string) (store.Rating, bool, error) {
	return a[fp], true, nil
}

// A watcher's header shows each seat's rating as the profile does: one
// established (± 100) at their last game 200 days ago has grown past 110
// while away and wears the "?" again; one who played yesterday does not.
func TestWatchLabelsGrowTheDeviationWhileAway(t *testing.T) {
	now := time.Now()
	rr := agedRatings{
		"SHA256:away":   {Rating: 1700, Deviation: 100, Volatility: 0.06, Updated: now.AddDate(0, 0, -200)},
		"SHA256:active": {Rating: 1650, Deviation: 100, Volatility: 0.06, Updated: now.AddDate(0, 0, -1)},
	}
	room := &lobby.Room{Ranked: lobby.RankedMode("pong-1v1"), Seats: map[game.PlayerID]int{"SHA256:away": 0, "SHA256:active": 1}}
	got := ratingLabels(context.Background(), rr, room)
	if got[0] != "1700?" || got[1] != "1650" {
		t.Errorf("labels %q, %q; want 1700? (away 200 days), 1650", got[0], got[1])
	}
}
