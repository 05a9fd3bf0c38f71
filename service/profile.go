package service

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/termarena/termarena/rating"
	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/store"
)

// Profile is a player's ratings and recent matches: the stable shape of
// `profile --json` (fields are only added).
type Profile struct {
	Name      string       `json:"name"`
	FirstSeen string       `json:"first_seen"`
	Ratings   []ModeRating `json:"ratings"`
	Matches   []Match      `json:"matches"`
	// Player is the record the profile is of, for text and links.
	Player store.Player `json:"-"`
}

// ModeRating is a player's rating and record in one ranked mode.
type ModeRating struct {
	Mode   string  `json:"mode"`
	Rating int     `json:"rating"`
	Exact  float64 `json:"rating_exact"`
	// Deviation is the Glicko-2 rating deviation as of now (grown for the
	// time since the last game), rounded: the rating is Rating ± Deviation.
	Deviation   int    `json:"deviation"`
	Display     string `json:"display"`
	Provisional bool   `json:"provisional"`
	// Rank is the place on the mode's leaderboard, of Ranked established
	// players; 0 while provisional (not on it).
	Rank   int `json:"rank"`
	Ranked int `json:"ranked"`
	// WithDeviation is "1612 ± 48", for text.
	WithDeviation string `json:"-"`
	Games         int    `json:"games"`
	Wins          int    `json:"wins"`
	Losses        int    `json:"losses"`
	Draws         int    `json:"draws"`
}

// Profile reads the profile of the player with key fingerprint fp (as
// PlayerNamed or PlayerByKey found it): ErrNoPlayer when there is none.
// It is the same query as the lobby's profile screen.
func (s *Service) Profile(ctx context.Context, fp string) (Profile, error) {
	if err := ctx.Err(); err != nil {
		return Profile{}, err
	}
	pr, err := s.store.Profile(ctx, fp)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return Profile{}, fmt.Errorf("service: profile of %s: %w", fp, ErrNoPlayer)
	case err != nil:
		return Profile{}, fmt.Errorf("service: profile of %s: %w", fp, err)
	}
	return s.toProfile(ctx, pr)
}

func (s *Service) toProfile(ctx context.Context, pr store.Profile) (Profile, error) {
	out := Profile{Name: pr.Player.Name, FirstSeen: stamp(pr.Player.FirstSeen), Player: pr.Player,
		Ratings: make([]ModeRating, 0, len(pr.Ratings)), Matches: toMatches(pr.Matches)}
	for _, r := range pr.Ratings {
		dev := s.deviation(r)
		rank, of, err := s.rank(ctx, r.Mode, r.Fingerprint)
		if err != nil {
			return Profile{}, fmt.Errorf("service: profile of %s: rank in %s: %w", pr.Player.Fingerprint, r.Mode, err)
		}
		out.Ratings = append(out.Ratings, ModeRating{Mode: r.Mode, Rating: int(math.Round(r.Rating)), Exact: r.Rating,
			Deviation: int(math.Round(dev)), Display: rating.Display(r.Rating, dev), Provisional: rating.Provisional(dev),
			Rank: rank, Ranked: of, WithDeviation: rating.DisplayDeviation(r.Rating, dev),
			Games: r.Games, Wins: r.Wins, Losses: r.Losses, Draws: r.Draws})
	}
	return out, nil
}

// stamp is a time as every JSON shape writes it: RFC 3339 in UTC.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// ProfileNamed reads the profile of the player named name, in one read:
// ErrNoPlayer when nobody has it.
func (s *Service) ProfileNamed(ctx context.Context, name string) (Profile, error) {
	if err := ctx.Err(); err != nil {
		return Profile{}, err
	}
	pr, err := s.store.ProfileByName(ctx, name)
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrInvalidName):
		return Profile{}, fmt.Errorf("service: profile of %q: %w", sanitize.Arg(name), ErrNoPlayer)
	case err != nil:
		return Profile{}, fmt.Errorf("service: profile of %q: %w", sanitize.Arg(name), err)
	}
	return s.toProfile(ctx, pr)
}
