package service

import (
	"context"
	"fmt"
	"math"

	"github.com/termarena/termarena/rating"
)

// Leaderboard is a ranked mode's best players: the stable shape of
// `leaderboard --json` (fields are only added).
type Leaderboard struct {
	Mode    string            `json:"mode"`
	Players []LeaderboardLine `json:"players"`
}

// LeaderboardLine is one player's place on a leaderboard.
type LeaderboardLine struct {
	Rank        int     `json:"rank"`
	Name        string  `json:"name"`
	Rating      int     `json:"rating"`
	Provisional bool    `json:"provisional"`
	Games       int     `json:"games"`
	Wins        int     `json:"wins"`
	Losses      int     `json:"losses"`
	Draws       int     `json:"draws"`
	WinPct      float64 `json:"win_pct"`
	// Display is the rating as players see it ("1512?"), for text.
	Display string `json:"-"`
}

// Leaderboard reads the best limit players of a ranked mode (as
// ParseMode returns it), best first; ties rank as the store orders them.
func (s *Service) Leaderboard(ctx context.Context, mode string, limit int) (Leaderboard, error) {
	if err := ctx.Err(); err != nil {
		return Leaderboard{}, err
	}
	rows, err := s.store.Leaderboard(mode, limit)
	if err != nil {
		return Leaderboard{}, fmt.Errorf("service: leaderboard %s: %w", mode, err)
	}
	out := Leaderboard{Mode: mode, Players: make([]LeaderboardLine, 0, len(rows))}
	for i, r := range rows {
		out.Players = append(out.Players, LeaderboardLine{
			Rank: i + 1, Name: r.Name, Rating: int(math.Round(r.Rating)), Provisional: rating.Provisional(r.Games),
			Games: r.Games, Wins: r.Wins, Losses: r.Losses, Draws: r.Draws, WinPct: WinPct(r.Wins, r.Games),
			Display: rating.Display(r.Rating, r.Games),
		})
	}
	return out, nil
}

// WinPct is the share of games won, in percent to one decimal.
func WinPct(wins, games int) float64 {
	if games == 0 {
		return 0
	}
	return math.Round(1000*float64(wins)/float64(games)) / 10
}
