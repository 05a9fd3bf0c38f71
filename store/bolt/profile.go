package bolt

import (
	"context"

	"github.com/termarena/termarena/store"
)

// Profile reads the profile of the player with key fingerprint fp, or
// ErrNotFound.
func (s *Store) Profile(ctx context.Context, fp string) (store.Profile, error) {
	p, err := s.PlayerByFingerprint(ctx, fp)
	if err != nil {
		return store.Profile{}, err
	}
	return store.ProfileOf(ctx, s, p)
}

// ProfileByName reads the profile of the player holding name (compared
// case-insensitively), or ErrNotFound.
func (s *Store) ProfileByName(ctx context.Context, name string) (store.Profile, error) {
	p, err := s.PlayerByName(ctx, name)
	if err != nil {
		return store.Profile{}, err
	}
	return store.ProfileOf(ctx, s, p)
}
