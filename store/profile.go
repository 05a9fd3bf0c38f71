package store

import (
	"context"
	"fmt"
)

// profileSource is what a profile is read from: every backend has it.
type profileSource interface {
	Ratings(ctx context.Context, fp string) ([]Rating, error)
	Matches(ctx context.Context, fp string, limit int) ([]MatchRecord, error)
}

// ProfileOf is p's profile, read through src: their ratings in every mode
// and their ProfileRecent newest matches. Both backends assemble a
// profile with it, so the two cannot differ in what a profile holds.
func ProfileOf(ctx context.Context, src profileSource, p Player) (Profile, error) {
	rs, err := src.Ratings(ctx, p.Fingerprint)
	if err != nil {
		return Profile{}, fmt.Errorf("store: profile of %s: %w", p.Name, err)
	}
	ms, err := src.Matches(ctx, p.Fingerprint, ProfileRecent)
	if err != nil {
		return Profile{}, fmt.Errorf("store: profile of %s: %w", p.Name, err)
	}
	return Profile{Player: p, Ratings: rs, Matches: ms}, nil
}
