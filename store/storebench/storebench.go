// Package storebench is one set of Go benchmarks for every store backend:
// what a login (first contact and returning), a match end and a
// leaderboard page cost, so BENCHMARKS.md can set bbolt and PostgreSQL
// side by side on the same work. A backend's tests call Run with a
// function that opens a fresh, empty store.
package storebench

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/termarena/termarena/store"
)

// Open gives a benchmark a fresh, empty store, closed when it ends.
type Open func(b *testing.B) store.Store

// Settle does, after seeding, the housekeeping a running server gets
// from its backend in the background (PostgreSQL's autovacuum keeps the
// planner's statistics current); nil for none.
type Settle func(b *testing.B, s store.Store)

// Run runs every benchmark of the set against stores from open.
func Run(b *testing.B, open Open, settle Settle) {
	b.Run("LoginFirst", func(b *testing.B) { loginFirst(b, open, false) })
	b.Run("LoginFirstParallel", func(b *testing.B) { loginFirst(b, open, true) })
	b.Run("LoginReturning", func(b *testing.B) { loginReturning(b, open, false) })
	b.Run("LoginReturningParallel", func(b *testing.B) { loginReturning(b, open, true) })
	b.Run("MatchEnd", func(b *testing.B) { matchEnd(b, open, false) })
	b.Run("MatchEndParallel", func(b *testing.B) { matchEnd(b, open, true) })
	// A benchmark with sub-benchmarks runs once, so the players are
	// seeded once per size, not once per b.N the framework tries.
	b.Run("Leaderboard", func(b *testing.B) {
		s := open(b)
		seeded := int64(0)
		for _, n := range []int64{1000, 10000} {
			seedRated(b, s, seeded, n)
			seeded = n
			if settle != nil {
				settle(b, s)
			}
			b.Run(fmt.Sprintf("players=%d", n), func(b *testing.B) { leaderboard(b, s) })
		}
	})
}

// each runs fn b.N times, from one goroutine or from GOMAXPROCS×4 at once
// (a storm: many sessions logging in together).
func each(b *testing.B, parallel bool, fn func(i int64) error) {
	b.ReportAllocs()
	b.ResetTimer()
	if !parallel {
		for i := range int64(b.N) {
			if err := fn(i); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	var next atomic.Int64
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := fn(next.Add(1)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func fp(i int64) string { return fmt.Sprintf("SHA256:bench-%08d", i) }

// user is player i's SSH user name: each their own, so a login costs what
// a typical first login does rather than a walk past taken names.
func user(i int64) string { return fmt.Sprintf("u%d", i) }

func loginFirst(b *testing.B, open Open, parallel bool) {
	s := open(b)
	ctx := context.Background()
	each(b, parallel, func(i int64) error {
		_, created, err := s.Login(ctx, fp(i), "ssh-ed25519", user(i))
		if err == nil && !created {
			err = fmt.Errorf("login %d: not created", i)
		}
		return err
	})
}

// returningPlayers is how many players the returning-login benchmark
// cycles through.
const returningPlayers = 1000

func loginReturning(b *testing.B, open Open, parallel bool) {
	s := open(b)
	ctx := context.Background()
	for i := range int64(returningPlayers) {
		if _, _, err := s.Login(ctx, fp(i), "ssh-ed25519", user(i)); err != nil {
			b.Fatal(err)
		}
	}
	each(b, parallel, func(i int64) error {
		_, created, err := s.Login(ctx, fp(i%returningPlayers), "ssh-ed25519", user(i%returningPlayers))
		if err == nil && created {
			err = fmt.Errorf("login %d: created again", i)
		}
		return err
	})
}

// rateBy is a stand-in for the rating maths (which the store does not
// own): the first seat wins delta points from the second. Deltas that
// differ by match keep ratings apart, as real ones are: a board of
// exact ties would measure sorting ties, not reading a page.
func rateBy(delta float64) func([]store.Rating) ([]store.Rating, error) {
	return func(current []store.Rating) ([]store.Rating, error) {
		next := slices.Clone(current)
		for i := range next {
			next[i].Games++
			if i == 0 {
				next[i].Rating += delta
				next[i].Wins++
			} else {
				next[i].Rating -= delta
				next[i].Losses++
			}
			next[i].Deviation = max(next[i].Deviation*0.95, 50)
		}
		return next, nil
	}
}

// replay is the size of a typical stored Pong replay.
var replay = make([]byte, 6<<10)

func end(a, c int64) store.MatchEnd {
	return store.MatchEnd{
		Match: store.MatchRecord{Mode: "pong-1v1", Ranked: true, Room: "r1", Start: time.Now(), Duration: 3 * time.Minute,
			Players: []store.MatchPlayer{
				{Fingerprint: fp(a), Slot: 0, Team: 0, Place: 1, Score: 11},
				{Fingerprint: fp(c), Slot: 1, Team: 1, Place: 2, Score: 7},
			}},
		Rate:   rateBy(5 + float64(a%1009)/7),
		Replay: replay,
	}
}

// matchPlayers is the pool the match-end benchmark pairs players from.
const matchPlayers = 200

func matchEnd(b *testing.B, open Open, parallel bool) {
	s := open(b)
	ctx := context.Background()
	for i := range int64(matchPlayers) {
		if _, _, err := s.Login(ctx, fp(i), "ssh-ed25519", user(i)); err != nil {
			b.Fatal(err)
		}
	}
	each(b, parallel, func(i int64) error {
		// Disjoint pairs in turn, so parallel ends rarely share a seat.
		a := (2 * i) % matchPlayers
		_, err := s.RecordMatch(ctx, end(a, a+1))
		return err
	})
}

// seedRated adds players from to to, each with one rated game.
func seedRated(b *testing.B, s store.Store, from, to int64) {
	ctx := context.Background()
	for i := from; i < to; i++ {
		if _, _, err := s.Login(ctx, fp(i), "ssh-ed25519", user(i)); err != nil {
			b.Fatal(err)
		}
	}
	for i := from; i+1 < to; i += 2 {
		if _, err := s.RecordMatch(ctx, end(i, i+1)); err != nil {
			b.Fatal(err)
		}
	}
}

// leaderboard reads pages of 20 from the first ten pages, as the lobby's
// board and the web face's do.
func leaderboard(b *testing.B, s store.Store) {
	ctx := context.Background()
	each(b, false, func(i int64) error {
		page, err := s.Leaderboard(ctx, "pong-1v1", int(i%10)*20, 20)
		if err == nil && len(page) != 20 {
			err = fmt.Errorf("a page of %d", len(page))
		}
		return err
	})
}
