package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/bolt"
)

// TestLoneWarmUpE2E: a player alone in a casual Pong 1v1 room is offered
// a warm-up and gets the court on r (before, "needs 2 players" and r did
// nothing). When bob sits down the warm-up ends: back to the waiting
// screen, alice still ready, and the match the two then play starts from
// its own countdown and is the only one recorded. A warm-up nobody joined
// records nothing either.
func TestLoneWarmUpE2E(t *testing.T) {
	rc := lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: 500 * time.Millisecond},
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin = 1
			return c
		}}},
	}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room", "mode: 1v1")
	alice.Type("\r")
	alice.WaitFor(wait, "r1 · 1v1 · casual", "alone: r warm up")
	room, err := h.Rooms.Find("r1")
	if err != nil {
		t.Fatal(err)
	}
	alice.Type("r")
	waitUntil(t, "the warm-up to start", wait, func() bool {
		fr, _ := room.Latest()
		return fr.Phase == game.Playing && fr.WarmUp
	})
	alice.WaitFor(wait, "warm-up: nothing counts until someone sits")
	// Long enough for misses: an idle paddle misses the first serve within
	// a few seconds, and a miss in a warm-up only re-serves.
	waitUntil(t, "a missed serve", 20*time.Second, func() bool {
		fr, _ := room.Latest()
		s, ok := fr.State.(*pong.Snapshot)
		return ok && s.LastPointTick > 0
	})
	if fr, _ := room.Latest(); fr.Phase != game.Playing || !fr.WarmUp {
		t.Fatalf("the warm-up ended on a miss: %v warm-up %v", fr.Phase, fr.WarmUp)
	}

	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "join r1")
	bob.WaitFor(wait, "r1 · 1v1 · casual", "alice", "ready ✓", "bob", "not ready")
	if fr, _ := room.Latest(); fr.Phase != game.Waiting || fr.WarmUp {
		t.Fatalf("bob sat down and the room is %v (warm-up %v); want waiting", fr.Phase, fr.WarmUp)
	}
	alice.WaitFor(wait, "needs 2 players, all ready")
	bob.Type("r")
	waitUntil(t, "the match to start", wait, func() bool {
		fr, _ := room.Latest()
		return fr.Phase == game.Countdown || fr.Phase == game.Playing
	})
	if fr, _ := room.Latest(); fr.WarmUp {
		t.Fatal("the match of two is still a warm-up")
	}
	alice.WaitFor(time.Minute, "game over")
	var ms []store.MatchRecord
	waitUntil(t, "the match to be recorded", wait, func() bool {
		ms, err = h.Store.RecentMatches(context.Background(), 10, nil)
		return err == nil && len(ms) > 0
	})
	if len(ms) != 1 || ms[0].Mode != "casual-1v1" || len(ms[0].Players) != 2 {
		t.Fatalf("recorded %+v; want the one match of alice and bob", ms)
	}

	// Alone again: a rematch alone is a warm-up, and leaving it records
	// nothing.
	bob.Type("q")
	alice.WaitFor(wait, "alone: r warm up")
	alice.Type("r")
	waitUntil(t, "the second warm-up to start", wait, func() bool {
		fr, _ := room.Latest()
		return fr.Phase == game.Playing && fr.WarmUp
	})
	alice.Type("q")
	alice.WaitFor(wait, "Welcome, alice!")
	waitUntil(t, "the room to close", wait, func() bool { _, err := h.Rooms.Find("r1"); return err != nil })
	h.Stop() // the results writer has drained
	st, err := bolt.Open(h.Dir+"/termarena.db", bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if ms, err := st.RecentMatches(context.Background(), 10, nil); err != nil || len(ms) != 1 {
		t.Fatalf("%d matches recorded (%v), want only the match of two: %+v", len(ms), err, ms)
	}
}

// TestLoneLightCycleWarmUpE2E: a lone rider in a casual light-cycle room
// is offered the warm-up too, and its header says nothing counts (its
// rounds are won by nobody) until a second rider sits down.
func TestLoneLightCycleWarmUpE2E(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 100, 30, "")
	ann.WaitFor(wait, "Welcome, ann!")
	ann.Type("c")
	ann.WaitFor(wait, "mode: 1v1")
	ann.Type("g")
	ann.WaitFor(wait, "Light cycles")
	ann.Type("\r")
	ann.WaitFor(wait, "r1 · tron · casual", "alone: r warm up")
	ann.Type("r")
	ann.WaitFor(wait, "warm-up, nothing counts · round 1")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 30, "join r1")
	bob.WaitFor(wait, "r1 · tron · casual", "(you)")
	ann.WaitFor(wait, "needs 2 players, all ready")
}

// TestJoinWarmingUpRoomAndReadyAtOnceE2E: bob opens a room where alice
// warms up alone (`ssh … join r1`) and presses r at once, before his
// screen has shown him anything: the match of the two starts from its
// countdown, not a warm-up, both seated. Before, the r reached the rooms
// list while the join was still under way and was lost: bob sat "not
// ready" beside a ready alice, and the room waited for nothing.
func TestJoinWarmingUpRoomAndReadyAtOnceE2E(t *testing.T) {
	rc := lobby.RoomsConfig{Room: game.RoomConfig{Countdown: 500 * time.Millisecond}, Games: game.Catalog{pong.Kind{}}}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room", "mode: 1v1")
	alice.Type("\r")
	alice.WaitFor(wait, "r1 · 1v1 · casual", "alone: r warm up")
	room, err := h.Rooms.Find("r1")
	if err != nil {
		t.Fatal(err)
	}
	alice.Type("r")
	waitUntil(t, "the warm-up to start", wait, func() bool {
		fr, _ := room.Latest()
		return fr.Phase == game.Playing && fr.WarmUp
	})

	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "join r1")
	bob.Type("r")
	waitUntil(t, "the match of two to start", wait, func() bool {
		fr, _ := room.Latest()
		return (fr.Phase == game.Countdown || fr.Phase == game.Playing) && !fr.WarmUp
	})
	fr, _ := room.Latest()
	if !fr.Seats[0].Taken || !fr.Seats[1].Taken || fr.Seats[0].Player.Name != "alice" || fr.Seats[1].Player.Name != "bob" {
		t.Fatalf("the match started with %+v; want alice and bob", fr.Seats)
	}
	bob.WaitFor(wait, "alice", "bob")
	alice.WaitFor(wait, "bob")
}
