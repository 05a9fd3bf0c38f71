// Package storetest is the conformance suite every store backend runs:
// the contract of the store package's interfaces, written once against
// them, so bbolt (store/bolt) and PostgreSQL (store/postgres) cannot
// drift apart. A backend's own tests call Run with a Backend that opens
// it; what only one backend has (bbolt's file format and migrations,
// PostgreSQL's several processes) stays in that backend's tests.
//
// The suite covers: a match end written whole with every seat's rating
// (and nothing of it under a failure or a cancelled context mid-way),
// concurrent match ends losing no rating update, name reservation races
// between two handles, ban and mute expiry and lifting, the audit log
// append-only and ordered, replays stored and pruned, leaderboard order
// with ties and paging, rank lookups, leave strikes durable across a
// reopen, and the sentinel errors.
package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/termarena/termarena/store"
)

// Backend opens the store under test.
type Backend struct {
	// Open returns a new, empty store whose clock is now (expiry, audit
	// times, FirstSeen): the suite moves it instead of sleeping. Open
	// closes the store when the test ends (t.Cleanup); closing it twice
	// must be harmless.
	Open func(t *testing.T, now func() time.Time) store.Store
	// Again opens another handle on the data s holds, with the same
	// clock: a second node, or the same node after a restart. With
	// Exclusive the suite closes s before calling it.
	Again func(t *testing.T, s store.Store) store.Store
	// Exclusive means one handle at a time (bbolt's file lock): races
	// "between two handles" then run between goroutines of one.
	Exclusive bool
}

// Run runs the whole suite against b, each check a subtest.
func Run(t *testing.T, b Backend) {
	if b.Open == nil || b.Again == nil {
		t.Fatal("storetest: Backend needs Open and Again")
	}
	for _, c := range []struct {
		name string
		run  func(*testing.T, Backend)
	}{
		{"MatchEndIsWhole", testMatchEndIsWhole},
		{"MatchEndFailureWritesNothing", testMatchEndFailureWritesNothing},
		{"MatchEndCancelledWritesNothing", testMatchEndCancelledWritesNothing},
		{"MatchEndRatesEverySeat", testMatchEndRatesEverySeat},
		{"UnrankedMatchEnd", testUnrankedMatchEnd},
		{"ConcurrentMatchEndsLoseNoUpdate", testConcurrentMatchEnds},
		{"KeyedMatchEndRatedOnce", testKeyedMatchEnd},
		{"NameRaceBetweenHandles", testNameRace},
		{"RenameRace", testRenameRace},
		{"Names", testNames},
		{"BanExpiryAndLifting", testBans},
		{"MuteExpiryAndLifting", testMutes},
		{"Roles", testRoles},
		{"AuditLogAppendOnlyAndOrdered", testAudit},
		{"ReplaysStoredAndPruned", testReplays},
		{"LeaderboardOrderTiesAndPages", testLeaderboard},
		{"RankLookups", testRanks},
		{"LeaveStrikesDurableAcrossReopen", testLeaves},
		{"ConcurrentWriters", testConcurrentWriters},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, b) })
	}
}

// clock is a test's time, moved by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// open is a new store and its clock, at a fixed time with a fraction of
// a second that a backend must not lose.
func open(t *testing.T, b Backend) (store.Store, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 11, 27, 12, 0, 0, 123456000, time.UTC)}
	return b.Open(t, c.now), c
}

// again is another handle on s's data (s closed first when exclusive).
func again(t *testing.T, b Backend, s store.Store) store.Store {
	t.Helper()
	if b.Exclusive {
		if err := s.Close(); err != nil {
			t.Fatalf("close before reopening: %v", err)
		}
	}
	return b.Again(t, s)
}

var bg = context.Background()

func fp(name string) string { return "SHA256:" + name }

// login makes a player named name (the SSH user), keyed "SHA256:"+name.
func login(t *testing.T, s store.Store, name string) store.Player {
	t.Helper()
	p, created, err := s.Login(bg, fp(name), "ssh-ed25519", name)
	if err != nil || !created || p.Name != name {
		t.Fatalf("Login(%s) = %+v, created %v, %v; want a new player named %s", name, p, created, err, name)
	}
	return p
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// duel is a ranked 1v1 of a (first) against b.
func duel(a, b string, start time.Time) store.MatchRecord {
	return store.MatchRecord{Mode: "pong-1v1", Ranked: true, Room: "r1", Start: start, Duration: 90 * time.Second,
		Players: []store.MatchPlayer{
			{Fingerprint: fp(a), Slot: 0, Place: 1, Score: 7},
			{Fingerprint: fp(b), Slot: 1, Team: 1, Place: 2, Score: 3},
		}}
}

// shift is a rate that moves every seat by delta[i] and counts the game
// (a win for a positive delta, a loss for a negative one).
func shift(delta ...float64) func([]store.Rating) ([]store.Rating, error) {
	return func(cur []store.Rating) ([]store.Rating, error) {
		for i := range cur {
			cur[i].Rating += delta[i]
			cur[i].Deviation = max(cur[i].Deviation-50, 60)
			cur[i].Games++
			switch {
			case delta[i] > 0:
				cur[i].Wins++
			case delta[i] < 0:
				cur[i].Losses++
			default:
				cur[i].Draws++
			}
		}
		return cur, nil
	}
}

// set is a rate that gives every seat the rating r[i], one more game.
func set(r ...float64) func([]store.Rating) ([]store.Rating, error) {
	return func(cur []store.Rating) ([]store.Rating, error) {
		for i := range cur {
			cur[i].Rating = r[i]
			cur[i].Games++
		}
		return cur, nil
	}
}
