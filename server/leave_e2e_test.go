package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// Alice has the match open in two terminals and closes one: the other
// plays on, with working keys and no grace countdown for anyone.
func TestTwoTerminalsOfOnePlayerShareTheSeat(t *testing.T) {
	rc := lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: time.Second, Grace: 20 * time.Second},
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin = 99
			return c
		}}},
	}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	aliceKey := sshtest.NewKey(t)
	first := sshtest.Dial(t, h.Addr, sshtest.Config("alice", aliceKey))
	a1 := sshtest.Open(t, first, 80, 24, "")
	a1.WaitFor(wait, "Welcome, alice!")
	a1.Type("c")
	a1.WaitFor(wait, "New room")
	a1.Type("\r")
	a1.WaitFor(wait, "r1 · 1v1 · casual", "(you)")
	a2 := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", aliceKey)), 80, 24, "join r1")
	a2.WaitFor(wait, "r1 · 1v1 · casual", "(you)")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "join r1")
	bob.WaitFor(wait, "alice", "bob", "(you)")
	a1.Type("r")
	bob.Type("r")
	room, err := h.Rooms.Find("r1")
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the match to start", wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Playing })
	a2.WaitFor(wait, "▸alice")

	sessions := h.Hub.Sessions()
	first.Close()
	// The hub forgets a session after it has left its room.
	waitUntil(t, "the first terminal's session to end", wait, func() bool { return h.Hub.Sessions() < sessions })
	if fr, _ := room.Latest(); fr.Paused || !fr.Seats[0].Connected {
		t.Fatalf("closing one of two terminals put the seat in grace: paused %v seat %+v", fr.Paused, fr.Seats[0])
	}
	top0, _ := paddleSpan(bob, 0)
	if top0 < 0 {
		t.Fatalf("no left paddle on bob's screen:\n%s", bob.Screen())
	}
	for range 12 {
		a2.Type("w")
		time.Sleep(30 * time.Millisecond)
	}
	waitUntil(t, "alice's paddle, moved from her other terminal, to rise on bob's screen", wait, func() bool {
		top, _ := paddleSpan(bob, 0)
		return top >= 0 && top < top0
	})
	for _, tm := range []*sshtest.Term{a2, bob} {
		if s := tm.Screen(); strings.Contains(s, "disconnected") {
			t.Fatalf("a pause notice for a player who is still here:\n%s", s)
		}
	}
}

// A ranked player drops during the opening countdown: the opponent sees the
// grace notice; back and walking out during the countdown is a forfeit that
// both sides are told about and `matches` marks.
func TestRankedCountdownDropAndWalkOut(t *testing.T) {
	rc := lobby.RoomsConfig{Room: game.RoomConfig{Countdown: 20 * time.Second, Grace: 20 * time.Second}}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	annKey := sshtest.NewKey(t)
	annConn := sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey))
	ann := sshtest.Open(t, annConn, 80, 24, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", sshtest.NewKey(t))), 80, 24, "play 1v1")
	room := rankedCountdown(t, h, ann, ben)

	annConn.Close()
	ben.WaitFor(wait, "ann disconnected —")
	ann2 := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 80, 24, "")
	ann2.WaitFor(wait, "▸ann")
	waitUntil(t, "the grace notice to clear", wait, func() bool { return !strings.Contains(ben.Screen(), "disconnected") })
	if fr, _ := room.Latest(); fr.Phase != game.Countdown {
		t.Fatalf("phase %v after ann came back, want the countdown", fr.Phase)
	}

	ann2.Type("q")
	ann2.Type("y") // confirms where leaving a ranked match asks first; nothing in the lobby
	ann2.WaitFor(wait, "You left a ranked match: counted as a loss (-241, now 1259? ± 397).", "No queue cooldown this time")
	ben.WaitFor(wait, "game over", "ann (0) (left)", "ann left", "n back to queue")
	r := sshtest.Run(t, h.Addr, "ann", annKey, "matches")
	if r.Code != 0 || !strings.Contains(r.Stdout, "ann 0 (left)") || strings.Contains(r.Stdout, "*") {
		t.Fatalf("matches: %+v", r)
	}
	// Its replay ends with the same results, the leaver marked.
	var ms []struct{ ID uint64 }
	waitUntil(t, "the replay to be stored", wait, func() bool {
		r := sshtest.Run(t, h.Addr, "x", sshtest.NewKey(t), "replays ann --json")
		return json.Unmarshal([]byte(r.Stdout), &ms) == nil && len(ms) == 1
	})
	viewer := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("dave", sshtest.NewKey(t))), 80, 24, fmt.Sprintf("replay %d", ms[0].ID))
	viewer.WaitFor(wait, "game over", "ann (0) (left)", "replay over")
}

// Ctrl-C in a ranked match closes the program, as it does everywhere,
// but is no decision to lose: the seat is kept for the grace period like a
// dropped connection's, the player is told so on their own terminal, and
// coming back with the same key resumes the match.
func TestCtrlCInARankedMatchKeepsTheSeat(t *testing.T) {
	rc := lobby.RoomsConfig{Room: game.RoomConfig{Countdown: 20 * time.Second, Grace: 20 * time.Second}}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	annKey := sshtest.NewKey(t)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 80, 24, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", sshtest.NewKey(t))), 80, 24, "play 1v1")
	room := rankedCountdown(t, h, ann, ben)
	ann.Type("\x03") // ctrl+c
	if _, err := ann.Wait(wait); err != nil {
		t.Fatal(err)
	}
	if scr := ann.Screen(); !strings.Contains(scr, "Your seat is kept for 20 s") {
		t.Fatalf("ann's terminal after ctrl+c:\n%s", scr)
	}
	ben.WaitFor(wait, "ann disconnected —")
	if fr, _ := room.Latest(); fr.Phase == game.Finished || fr.Seats[0].Player.Name != "ann" && fr.Seats[1].Player.Name != "ann" {
		t.Fatalf("after ann's ctrl+c the match is %v with seats %+v, want ann's seat kept", fr.Phase, fr.Seats)
	}
	ann2 := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 80, 24, "")
	ann2.WaitFor(wait, "▸ann")
	waitUntil(t, "the grace notice to clear", wait, func() bool { return !strings.Contains(ben.Screen(), "disconnected") })
	if fr, _ := room.Latest(); fr.Phase == game.Finished {
		t.Fatal("the match ended although ann came back within the grace")
	}
}

// rankedCountdown waits until ann and ben, queued, are matched and their
// ranked room counts down, and returns the room.
func rankedCountdown(t *testing.T, h *harness, ann, ben *sshtest.Term) *lobby.Room {
	t.Helper()
	ann.WaitFor(wait, "ranked")
	ben.WaitFor(wait, "ranked")
	var room *lobby.Room
	waitUntil(t, "the ranked countdown", wait, func() bool {
		for _, r := range h.Rooms.All() {
			if fr, _ := r.Latest(); r.Ranked != "" && fr.Phase == game.Countdown {
				room = r
				return true
			}
		}
		return false
	})
	return room
}

// Ann plays a ranked match from two terminals and closes one with Ctrl-C:
// that terminal says the match goes on in the other (no "seat kept" and no
// loss warning), nobody waits out a grace, and the other terminal plays on.
func TestCtrlCOnOneOfTwoTerminalsOfARankedSeat(t *testing.T) {
	rc := lobby.RoomsConfig{Room: game.RoomConfig{Countdown: 20 * time.Second, Grace: 20 * time.Second}}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	annKey := sshtest.NewKey(t)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 80, 24, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", sshtest.NewKey(t))), 80, 24, "play 1v1")
	room := rankedCountdown(t, h, ann, ben)
	ann2 := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 80, 24, "join "+room.ID())
	ann2.WaitFor(wait, "▸ann")
	ann.Type("\x03") // ctrl+c
	if _, err := ann.Wait(wait); err != nil {
		t.Fatal(err)
	}
	scr := ann.Screen()
	if !strings.Contains(scr, "goes on in your other") || strings.Contains(scr, "kept for") || strings.Contains(scr, "loss") {
		t.Fatalf("ann's closed terminal after ctrl+c:\n%s", scr)
	}
	time.Sleep(500 * time.Millisecond) // the session's end reaches the room
	fr, _ := room.Latest()
	for _, s := range fr.Seats {
		if fr.Paused || (s.Player.Name == "ann" && (!s.Connected || s.Sessions != 1)) {
			t.Fatalf("closing one of two terminals put the seat in grace: paused %v seats %+v", fr.Paused, fr.Seats)
		}
	}
	for _, tm := range []*sshtest.Term{ann2, ben} {
		if s := tm.Screen(); strings.Contains(s, "disconnected") {
			t.Fatalf("a grace for a player still playing from another terminal:\n%s", s)
		}
	}
	ann2.WaitFor(wait, "▸ann", room.ID()+" · pong-1v1 · ranked")
}
