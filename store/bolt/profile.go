package bolt

import (
	"fmt"

	"github.com/termarena/termarena/store"
)

// Profile reads the profile of the player with key fingerprint fp, or
// ErrNotFound.
func (s *Store) Profile(fp string) (store.Profile, error) {
	p, err := s.PlayerByFingerprint(fp)
	if err != nil {
		return store.Profile{}, err
	}
	return s.profileOf(p)
}

// ProfileByName reads the profile of the player holding name (compared
// case-insensitively), or ErrNotFound.
func (s *Store) ProfileByName(name string) (store.Profile, error) {
	p, err := s.PlayerByName(name)
	if err != nil {
		return store.Profile{}, err
	}
	return s.profileOf(p)
}

func (s *Store) profileOf(p store.Player) (store.Profile, error) {
	rs, err := s.Ratings(p.Fingerprint)
	if err != nil {
		return store.Profile{}, fmt.Errorf("store: profile of %s: %w", p.Name, err)
	}
	ms, err := s.Matches(p.Fingerprint, store.ProfileRecent)
	if err != nil {
		return store.Profile{}, fmt.Errorf("store: profile of %s: %w", p.Name, err)
	}
	return store.Profile{Player: p, Ratings: rs, Matches: ms}, nil
}
