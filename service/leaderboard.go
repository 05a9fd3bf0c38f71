package service

import (
	"context"
	"fmt"
	"math"

	"github.com/termarena/termarena/rating"
	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/store"
)

// Leaderboard is a ranked mode's best players: the stable shape of
// `leaderboard --json` (fields are only added).
type Leaderboard struct {
	Mode    string            `json:"mode"`
	Players []LeaderboardLine `json:"players"`
	// Around is the player a `leaderboard --around NAME` centres on
	// (absent otherwise); their line is among Players.
	Around string `json:"around,omitempty"`
	// Ranked is how many established players the mode has (every rank
	// is out of it).
	Ranked int `json:"ranked"`
}

// LeaderboardLine is one player's place on a leaderboard.
type LeaderboardLine struct {
	Rank   int    `json:"rank"`
	Name   string `json:"name"`
	Rating int    `json:"rating"`
	// Deviation is the Glicko-2 rating deviation as of now (it grows
	// while a player is away), rounded: the rating is Rating ± Deviation.
	Deviation int `json:"deviation"`
	// Provisional is always false on a leaderboard, which lists only
	// established ratings (deviation < 110); kept for older readers.
	Provisional bool    `json:"provisional"`
	Games       int     `json:"games"`
	Wins        int     `json:"wins"`
	Losses      int     `json:"losses"`
	Draws       int     `json:"draws"`
	WinPct      float64 `json:"win_pct"`
	// Display is the rating as players see it ("1512"), for text.
	Display string `json:"-"`
	// Fingerprint finds a player's own line. Never shown.
	Fingerprint string `json:"-"`
}

// AroundRadius is how many players above and below a player
// LeaderboardAround lists.
const AroundRadius = 5

// Leaderboard reads the best limit players of a ranked mode (as ParseMode
// returns it), best first; ties rank as the store orders them. Only
// established ratings are listed, as on Lichess: a deviation (grown for
// the time since the player's last game) under rating.ProvisionalDeviation.
func (s *Service) Leaderboard(ctx context.Context, mode string, limit int) (Leaderboard, error) {
	ranked, err := s.ranked(ctx, mode)
	if err != nil {
		return Leaderboard{}, err
	}
	limit = min(max(limit, 0), 1000)
	if limit == 0 {
		limit = 20
	}
	return Leaderboard{Mode: mode, Players: ranked[:min(limit, len(ranked))], Ranked: len(ranked)}, nil
}

// LeaderboardAround is a player's place on a ranked mode's leaderboard and
// AroundRadius neighbours either side: ErrNoPlayer for an unknown name,
// ErrUnranked for a player without an established rating there.
func (s *Service) LeaderboardAround(ctx context.Context, mode, name string) (Leaderboard, error) {
	pl, err := s.PlayerNamed(ctx, name)
	if err != nil {
		return Leaderboard{}, err
	}
	ranked, err := s.ranked(ctx, mode)
	if err != nil {
		return Leaderboard{}, err
	}
	for i, l := range ranked {
		if l.Fingerprint == pl.Fingerprint {
			lo, hi := max(i-AroundRadius, 0), min(i+AroundRadius+1, len(ranked))
			return Leaderboard{Mode: mode, Players: ranked[lo:hi], Around: pl.Name, Ranked: len(ranked)}, nil
		}
	}
	return Leaderboard{}, fmt.Errorf("service: %s leaderboard around %q: %w", mode, sanitize.Arg(name), ErrUnranked)
}

// ranked is the mode's established players, ranked.
func (s *Service) ranked(ctx context.Context, mode string) ([]LeaderboardLine, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := s.store.Standings(ctx, mode)
	if err != nil {
		return nil, fmt.Errorf("service: leaderboard %s: %w", mode, err)
	}
	out := make([]LeaderboardLine, 0, len(rows))
	for _, r := range rows {
		dev := s.deviation(r)
		if rating.Provisional(dev) {
			continue
		}
		out = append(out, LeaderboardLine{
			Rank: len(out) + 1, Name: r.Name, Rating: int(math.Round(r.Rating)), Deviation: int(math.Round(dev)),
			Games: r.Games, Wins: r.Wins, Losses: r.Losses, Draws: r.Draws, WinPct: WinPct(r.Wins, r.Games),
			Display: rating.Display(r.Rating, dev), Fingerprint: r.Fingerprint,
		})
	}
	return out, nil
}

// deviation is r's deviation as of now: the stored one, grown for the
// days since r was last rated (rating.Decay).
func (s *Service) deviation(r store.Rating) float64 {
	if r.Updated.IsZero() || !(r.Deviation > 0) {
		return r.Deviation
	}
	days := s.now().Sub(r.Updated).Hours() / 24
	return rating.Decay(rating.Player{Rating: r.Rating, Deviation: r.Deviation, Volatility: r.Volatility}, rating.Periods(days)).Deviation
}

// rank is the 1-based rank of fp among mode's established players, 0 for
// none (a provisional rating).
func (s *Service) rank(ctx context.Context, mode, fp string) (rank, of int, err error) {
	rows, err := s.store.Standings(ctx, mode)
	if err != nil {
		return 0, 0, err
	}
	for _, r := range rows {
		if rating.Provisional(s.deviation(r)) {
			continue
		}
		of++
		if r.Fingerprint == fp {
			rank = of
		}
	}
	return rank, of, nil
}

// WinPct is the share of games won, in percent to one decimal.
func WinPct(wins, games int) float64 {
	if games == 0 {
		return 0
	}
	return math.Round(1000*float64(wins)/float64(games)) / 10
}
