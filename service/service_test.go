package service_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/store"
)

func newService(t *testing.T) (*service.Service, *store.Store) {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "termarena.db"), store.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	rooms := lobby.NewRooms(t.Context(), lobby.RoomsConfig{Games: game.Catalog{pong.Kind{}}})
	return service.New(st, rooms), st
}

// What a web handler needs to tell a 404 from a 500: unknown players and
// replays are errors it can match, whichever query finds them missing.
func TestMissingThingsAreMatchableErrors(t *testing.T) {
	svc, st := newService(t)
	ctx := context.Background()
	if _, _, err := st.Login("SHA256:ann", "ssh-ed25519", "ann"); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"player by name":    second(svc.PlayerNamed(ctx, "nobody")),
		"player not a name": second(svc.PlayerNamed(ctx, "no such name!")),
		"player by key":     second(svc.PlayerByKey(ctx, "SHA256:nobody")),
		"profile by key":    second(svc.Profile(ctx, "SHA256:nobody")),
		"profile by name":   second(svc.ProfileNamed(ctx, "nobody")),
	} {
		if !errors.Is(err, service.ErrNoPlayer) {
			t.Errorf("%s: %v, want ErrNoPlayer", name, err)
		}
	}
	if _, err := svc.Match(ctx, 42); !errors.Is(err, service.ErrNoMatch) {
		t.Errorf("an unknown match: %v, want ErrNoMatch", err)
	}
	if err := svc.HasReplay(ctx, 42); !errors.Is(err, service.ErrNoReplay) {
		t.Errorf("replay of an unknown match: %v, want ErrNoReplay", err)
	}
	if _, err := svc.ParseMode("chess"); !errors.Is(err, service.ErrUnknownMode) {
		t.Errorf("unknown mode: %v", err)
	}
	if pr, err := svc.ProfileNamed(ctx, "ANN"); err != nil || pr.Name != "ann" || pr.Ratings == nil || pr.Matches == nil {
		t.Errorf("ann's profile = %+v, %v: want her, with empty lists (JSON [] not null)", pr, err)
	}

	// A request that has gone (a closed connection) reads nothing.
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := svc.Leaderboard(done, "pong-1v1", 10); !errors.Is(err, context.Canceled) {
		t.Errorf("leaderboard after the request ended: %v", err)
	}
	if _, err := svc.Rooms(done); !errors.Is(err, context.Canceled) {
		t.Errorf("rooms after the request ended: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }

// A match read by id is the element `matches --json` lists for it.
func TestMatchByIDIsTheListedMatch(t *testing.T) {
	svc, st := newService(t)
	ctx := context.Background()
	for _, p := range []string{"ann", "ben"} {
		if _, _, err := st.Login("SHA256:"+p, "ssh-ed25519", p); err != nil {
			t.Fatal(err)
		}
	}
	m, err := st.RecordMatch(store.MatchRecord{Mode: "casual-1v1", Room: "r1", Start: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC), Duration: time.Minute,
		Players: []store.MatchPlayer{{Fingerprint: "SHA256:ann", Place: 1, Score: 5}, {Fingerprint: "SHA256:ben", Slot: 1, Place: 2, Score: 4, Left: true}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	one, err := svc.Match(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	listed, err := svc.Matches(ctx, "SHA256:ben", 5)
	if err != nil || len(listed) != 1 {
		t.Fatalf("ben's matches = %+v, %v", listed, err)
	}
	if !reflect.DeepEqual(one, listed[0]) || one.Start != "2026-11-27T10:00:00Z" || !one.Players[1].Left || one.Players[1].Name != "ben" {
		t.Errorf("match %d = %+v\nlisted as %+v", m.ID, one, listed[0])
	}
}
