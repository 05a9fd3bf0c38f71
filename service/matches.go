package service

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/rating"
	"github.com/termarena/termarena/store"
)

// Match is one recorded match: the stable shape of an element of
// `matches --json` and `replays --json` (fields are only added).
type Match struct {
	ID       uint64        `json:"id"`
	Mode     string        `json:"mode"`
	Ranked   bool          `json:"ranked"`
	Aborted  bool          `json:"aborted"`
	Start    string        `json:"start"`
	Duration float64       `json:"duration_seconds"`
	Players  []MatchPlayer `json:"players"`
	// Replay is true while a replay is stored: `replay ID` plays it.
	Replay bool `json:"replay"`
	// Abandoned: an unrated match someone walked out of before anyone
	// scored (every score still level). Its places rank nobody by play,
	// so listings say "abandoned" instead of "2nd" for the walker.
	Abandoned bool `json:"abandoned,omitempty"`
	// Started is Start as a time, for text.
	Started time.Time `json:"-"`
}

// MatchPlayer is one seat of a match.
type MatchPlayer struct {
	Name         string `json:"name"`
	Place        int    `json:"place"`
	Score        int    `json:"score"`
	RatingBefore int    `json:"rating_before"`
	RatingAfter  int    `json:"rating_after"`
	Left         bool   `json:"left"`
	// DeviationBefore and DeviationAfter are the Glicko-2 deviations
	// around a rated match (rounded); absent for unrated matches and for
	// those rated under Elo, before deviations were kept.
	DeviationBefore int `json:"deviation_before,omitempty"`
	DeviationAfter  int `json:"deviation_after,omitempty"`
	// RatingDisplay is RatingAfter as players see it ("1512?" while
	// provisional), for text; plain for Elo-era records.
	RatingDisplay string `json:"-"`
	// Rank is Place as players are shown it, standard competition
	// ranking: two sharing fifth place are followed by seventh (Place
	// says sixth); a 2v2's teams rank as teams (game.Ranks).
	Rank int `json:"rank"`
	// Fingerprint is the player's key ("" for a guest): a listing finds
	// its reader's own seat by it. Never shown.
	Fingerprint string `json:"-"`
	// Team is the player's team in a mode with teams (0 for everyone in
	// one without): a listing tells teammates from opponents by it.
	Team int `json:"-"`
}

func toMatch(m store.MatchRecord) Match {
	j := Match{ID: m.ID, Mode: m.Mode, Ranked: m.Ranked, Aborted: m.Aborted, Start: stamp(m.Start), Started: m.Start,
		Duration: m.Duration.Seconds(), Players: make([]MatchPlayer, 0, len(m.Players)), Replay: m.Replay}
	for _, p := range m.Players {
		j.Players = append(j.Players, MatchPlayer{Name: p.Name, Place: p.Place, Score: p.Score,
			RatingBefore: int(math.Round(p.RatingBefore)), RatingAfter: int(math.Round(p.RatingAfter)), Left: p.Left,
			DeviationBefore: int(math.Round(p.DeviationBefore)), DeviationAfter: int(math.Round(p.DeviationAfter)),
			RatingDisplay: rating.Display(p.RatingAfter, p.DeviationAfter), Fingerprint: p.Fingerprint, Team: p.Team})
	}
	// Team is recorded only for modes with teams, where a contested match
	// has players of team 1; elsewhere every player is team 0.
	teams := slices.ContainsFunc(m.Players, func(p store.MatchPlayer) bool { return p.Team != 0 })
	places := make([]int, len(m.Players))
	for i, p := range m.Players {
		places[i] = p.Place
	}
	ranks := game.Ranks(places, func(i int) int {
		if teams {
			return m.Players[i].Team
		}
		return -1
	})
	for i := range j.Players {
		j.Players[i].Rank = ranks[i]
	}
	j.Abandoned = abandoned(m)
	return j
}

// abandoned: unrated, not aborted, someone left (a forfeit: practice
// marks no leaver), and nobody got ahead
// (every player's score level: 0–0 in Pong or light cycles, full lives
// in a free-for-all). A ranked walk-out keeps its places: it is rated
// as a loss.
func abandoned(m store.MatchRecord) bool {
	left := m.Forfeit || slices.ContainsFunc(m.Players, func(p store.MatchPlayer) bool { return p.Left })
	if m.Ranked || m.Aborted || len(m.Players) == 0 || !left {
		return false
	}
	for _, p := range m.Players {
		if p.Score != m.Players[0].Score {
			return false
		}
	}
	return true
}

func toMatches(ms []store.MatchRecord) []Match {
	out := make([]Match, 0, len(ms))
	for _, m := range ms {
		out = append(out, toMatch(m))
	}
	return out
}

// Match reads one match by id (a link to it, `/m/ID` on the web):
// ErrNoMatch when there is none.
func (s *Service) Match(ctx context.Context, id uint64) (Match, error) {
	if err := ctx.Err(); err != nil {
		return Match{}, err
	}
	m, err := s.store.Match(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return Match{}, fmt.Errorf("service: match %d: %w", id, ErrNoMatch)
	case err != nil:
		return Match{}, fmt.Errorf("service: match %d: %w", id, err)
	}
	return toMatch(m), nil
}

// Matches reads the matches of the player with key fingerprint fp, newest
// first, at most limit.
func (s *Service) Matches(ctx context.Context, fp string, limit int) ([]Match, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ms, err := s.store.Matches(ctx, fp, limit)
	if err != nil {
		return nil, fmt.Errorf("service: matches of %s: %w", fp, err)
	}
	return toMatches(ms), nil
}

// Replays reads the matches whose replay is still stored, newest first,
// at most limit: the player's with key fingerprint fp, or, for "", the
// server's whoever played them.
func (s *Service) Replays(ctx context.Context, fp string, limit int) ([]Match, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if fp == "" {
		ms, err := s.store.RecentMatches(ctx, limit, func(m store.MatchRecord) bool { return m.Replay })
		if err != nil {
			return nil, fmt.Errorf("service: replays: %w", err)
		}
		return toMatches(ms), nil
	}
	// Pruned matches keep their record but lose the replay: read more
	// than the limit so the listing still fills up.
	ms, err := s.store.Matches(ctx, fp, min(limit*4, 1000))
	if err != nil {
		return nil, fmt.Errorf("service: replays of %s: %w", fp, err)
	}
	out := []Match{}
	for _, m := range ms {
		if m.Replay && len(out) < limit {
			out = append(out, toMatch(m))
		}
	}
	return out, nil
}

// HasReplay reports whether match id's replay is stored: ErrNoReplay when
// it is not (an unknown match, or a pruned one).
func (s *Service) HasReplay(ctx context.Context, id uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := s.store.Replay(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("service: match %d: %w", id, ErrNoReplay)
	case err != nil:
		return fmt.Errorf("service: replay of match %d: %w", id, err)
	}
	return nil
}
