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
	"github.com/termarena/termarena/store/bolt"
)

func newService(t *testing.T) (*service.Service, *bolt.Store) {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "termarena.db"), bolt.Options{Timeout: time.Second})
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
	if _, _, err := st.Login(context.Background(), "SHA256:ann", "ssh-ed25519", "ann"); err != nil {
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
		if _, _, err := st.Login(context.Background(), "SHA256:"+p, "ssh-ed25519", p); err != nil {
			t.Fatal(err)
		}
	}
	m, err := st.RecordMatch(context.Background(), store.MatchEnd{Match: store.MatchRecord{Mode: "casual-1v1", Room: "r1", Start: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC), Duration: time.Minute,
		Players: []store.MatchPlayer{{Fingerprint: "SHA256:ann", Place: 1, Score: 5}, {Fingerprint: "SHA256:ben", Slot: 1, Place: 2, Score: 4, Left: true}}}})
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

// Glicko-2's deviation grows while a player is away: an established player
// (± 100 when last rated) who stays away long enough is provisional again,
// drops off the leaderboard and loses their rank, and comes back by
// playing; the stored rating itself is untouched.
func TestDeviationGrowsWhileAway(t *testing.T) {
	last := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	st, err := bolt.Open(filepath.Join(t.TempDir(), "termarena.db"), bolt.Options{Now: func() time.Time { return last }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	for _, n := range []string{"alice", "bob"} {
		if _, _, err := st.Login(context.Background(), "SHA256:"+n, "ssh-ed25519", n); err != nil {
			t.Fatal(err)
		}
	}
	_, err = st.RecordMatch(context.Background(), store.MatchEnd{Match: store.MatchRecord{Mode: "pong-1v1", Ranked: true, Start: last, Players: []store.MatchPlayer{
		{Fingerprint: "SHA256:alice", Place: 1}, {Fingerprint: "SHA256:bob", Slot: 1, Place: 2}}}, Rate: func(cur []store.Rating) ([]store.Rating, error) {
		cur[0].Rating, cur[0].Deviation, cur[0].Volatility, cur[0].Games = 1700, 100, 0.06, 20
		cur[1].Rating, cur[1].Deviation, cur[1].Volatility, cur[1].Games = 1600, 60, 0.06, 50
		return cur, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	rooms := lobby.NewRooms(t.Context(), lobby.RoomsConfig{Games: game.Catalog{pong.Kind{}}})
	at := func(days int) *service.Service {
		return service.New(st, rooms).WithClock(func() time.Time { return last.AddDate(0, 0, days) })
	}
	names := func(lb service.Leaderboard) (out []string) {
		for _, l := range lb.Players {
			out = append(out, l.Name)
		}
		return out
	}
	// Day 0: both established, alice first.
	lb, err := at(0).Leaderboard(t.Context(), "pong-1v1", 10)
	if err != nil || !reflect.DeepEqual(names(lb), []string{"alice", "bob"}) || lb.Players[0].Deviation != 100 {
		t.Fatalf("day 0: %+v, %v", lb, err)
	}
	// 100 days (21.4 periods): alice's ± 100 has grown past 110 (√(0.5756² + 21.4·0.06²)
	// ·173.7 = 111.0); bob's ± 60 is ± 77.0.
	lb, _ = at(100).Leaderboard(t.Context(), "pong-1v1", 10)
	if !reflect.DeepEqual(names(lb), []string{"bob"}) || lb.Players[0].Deviation != 77 || lb.Players[0].Rank != 1 {
		t.Errorf("day 100: %+v; want bob alone, ± 77, rank 1", lb)
	}
	pr, err := at(100).ProfileNamed(t.Context(), "alice")
	if err != nil || len(pr.Ratings) != 1 {
		t.Fatal(pr, err)
	}
	if r := pr.Ratings[0]; r.Rating != 1700 || r.Deviation != 111 || !r.Provisional || r.Rank != 0 || r.Display != "1700?" {
		t.Errorf("alice on day 100: %+v; want 1700? ± 111, no rank", r)
	}
	if _, err := at(100).LeaderboardAround(t.Context(), "pong-1v1", "alice"); !errors.Is(err, service.ErrUnranked) {
		t.Errorf("around alice on day 100: %v, want ErrUnranked", err)
	}
	if pr, _ := at(0).ProfileNamed(t.Context(), "bob"); pr.Ratings[0].Rank != 2 || pr.Ratings[0].Ranked != 2 || pr.Ratings[0].WithDeviation != "1600 ± 60" {
		t.Errorf("bob on day 0: %+v; want 1600 ± 60, #2 of 2", pr.Ratings[0])
	}
}
