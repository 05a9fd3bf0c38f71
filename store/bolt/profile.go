package bolt

import (
	"context"
	"fmt"

	"github.com/termarena/termarena/store"
)

// Profile reads the profile of the player with key fingerprint fp, or
// ErrNotFound.
func (s *Store) Profile(ctx context.Context, fp string) (store.Profile, error) {
	p, err := s.PlayerByFingerprint(ctx, fp)
	if err != nil {
		return store.Profile{}, err
	}
	return s.profileOf(ctx, p)
}

// ProfileByName reads the profile of the player holding name (compared
// case-insensitively), or ErrNotFound.
func (s *Store) ProfileByName(ctx context.Context, name string) (store.Profile, error) {
	p, err := s.PlayerByName(ctx, name)
	if err != nil {
		return store.Profile{}, err
	}
	return s.profileOf(ctx, p)
}

func (s *Store) profileOf(ctx context.Context, p store.Player) (store.Profile, error) {
	rs, err := s.Ratings(ctx, p.Fingerprint)
	if err != nil {
		return store.Profile{}, fmt.Errorf("store: profile of %s: %w", p.Name, err)
	}
	ms, err := s.Matches(ctx, p.Fingerprint, store.ProfileRecent)
	if err != nil {
		return store.Profile{}, fmt.Errorf("store: profile of %s: %w", p.Name, err)
	}
	return store.Profile{Player: p, Ratings: rs, Matches: ms}, nil
}
