package store

import "fmt"

// ProfileRecent is how many recent matches a profile lists, on screen and
// from `ssh HOST profile` alike.
const ProfileRecent = 20

// Profile is what a player's profile shows: who they are, their rating in
// every mode they played, and their recent matches, newest first.
type Profile struct {
	Player  Player
	Ratings []Rating
	Matches []MatchRecord
}

// Profile reads the profile of the player with key fingerprint fp, or
// ErrNotFound.
func (s *Store) Profile(fp string) (Profile, error) {
	p, err := s.PlayerByFingerprint(fp)
	if err != nil {
		return Profile{}, err
	}
	return s.profileOf(p)
}

// ProfileByName reads the profile of the player holding name (compared
// case-insensitively), or ErrNotFound.
func (s *Store) ProfileByName(name string) (Profile, error) {
	p, err := s.PlayerByName(name)
	if err != nil {
		return Profile{}, err
	}
	return s.profileOf(p)
}

func (s *Store) profileOf(p Player) (Profile, error) {
	rs, err := s.Ratings(p.Fingerprint)
	if err != nil {
		return Profile{}, fmt.Errorf("store: profile of %s: %w", p.Name, err)
	}
	ms, err := s.Matches(p.Fingerprint, ProfileRecent)
	if err != nil {
		return Profile{}, fmt.Errorf("store: profile of %s: %w", p.Name, err)
	}
	return Profile{Player: p, Ratings: rs, Matches: ms}, nil
}
