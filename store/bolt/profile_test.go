package bolt

import (
	"errors"
	"testing"

	"github.com/termarena/termarena/store"
)

// Profile and ProfileByName read the same thing, for the lobby's profile
// screen and `ssh HOST profile` alike, and keep to ProfileRecent matches.
func TestProfile(t *testing.T) {
	s := openPlayers(t, Options{})
	for range store.ProfileRecent + 2 {
		mustRecord(t, s, duel(fpAlice, fpBob), shift(10, -10))
	}
	byKey, err := s.Profile(ctx, fpAlice)
	if err != nil {
		t.Fatal(err)
	}
	byName, err := s.ProfileByName(ctx, "ALICE")
	if err != nil {
		t.Fatal(err)
	}
	if byKey.Player.Name != "alice" || len(byKey.Ratings) != 1 || byKey.Ratings[0].Wins != store.ProfileRecent+2 || len(byKey.Matches) != store.ProfileRecent {
		t.Fatalf("profile = %+v", byKey)
	}
	if byName.Player != byKey.Player || len(byName.Matches) != len(byKey.Matches) || byName.Matches[0].ID != byKey.Matches[0].ID {
		t.Fatal("by name and by key differ")
	}
	if _, err := s.ProfileByName(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown name: %v", err)
	}
	if p, err := s.Profile(ctx, fpCarol); err != nil || len(p.Ratings) != 0 || len(p.Matches) != 0 {
		t.Fatalf("a player with no games: %+v, %v", p, err)
	}
}
