package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// Ann plays a ranked match in one terminal; a second terminal of hers
// cannot queue for another (p, or play from a shell), is told where her
// match is, and b takes it back to that match on the same seat. Carol,
// queued meanwhile, is not paired with her.
func TestSecondTerminalCannotQueueWhileInARankedMatch(t *testing.T) {
	rc := lobby.RoomsConfig{Room: game.RoomConfig{Countdown: 30 * time.Second, Grace: 20 * time.Second}}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	annKey := sshtest.NewKey(t)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 80, 24, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", sshtest.NewKey(t))), 80, 24, "play 1v1")
	room := rankedCountdown(t, h, ann, ben)

	ann2 := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 100, 30, "")
	ann2.WaitFor(wait, "Welcome, ann!", "Your ranked pong-1v1 match is on in "+room.ID(), "b go back to it")
	ann2.Type("p")
	ann2.WaitFor(wait, "already playing a ranked pong-1v1 match, in "+room.ID())
	// From a shell too: the lobby opens with the same answer.
	ann3 := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 100, 30, "play pong-1v1")
	ann3.WaitFor(wait, "already playing a ranked pong-1v1 match, in "+room.ID())
	carol := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("carol", sshtest.NewKey(t))), 80, 24, "play pong-1v1")
	carol.WaitFor(wait, "Looking for a pong-1v1 match", "in the queue  1")
	time.Sleep(2 * lobby.WaveInterval) // a wave or two, had ann been queued
	for _, tm := range []*sshtest.Term{ann2, ann3} {
		if scr := tm.Screen(); strings.Contains(scr, "Looking for a") {
			t.Fatalf("a second terminal of a player in a ranked match queued:\n%s", scr)
		}
	}
	if scr := carol.Screen(); !strings.Contains(scr, "Looking for a pong-1v1 match") {
		t.Fatalf("carol left the queue although nobody else was in it:\n%s", scr)
	}
	for _, r := range h.Rooms.All() {
		if r != room && r.Ranked != "" {
			t.Fatalf("a second ranked room %s was made while ann held a seat in %s", r.ID(), room.ID())
		}
	}
	// Help lists the way back; b goes back to the match, on ann's seat.
	ann2.Type("?")
	ann2.WaitFor(wait, "b  back to your ranked match in "+room.ID())
	ann2.Type("?")
	ann2.Type("b")
	ann2.WaitFor(wait, room.ID()+" · pong-1v1 · ranked", "▸ann")
	if fr, _ := room.Latest(); fr.Phase != game.Countdown {
		t.Fatalf("the match is %v after ann's second terminal came back to it, want the countdown", fr.Phase)
	}
}

// The light-cycle queue says a match needs four riders and how many wait.
func TestTronQueueSaysHowManyItNeeds(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "play tron-ffa")
	ann.WaitFor(wait, "Looking for a tron-ffa match", "in the queue  1 · a match needs 4 players")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", sshtest.NewKey(t))), 80, 24, "play tron-ffa")
	ben.WaitFor(wait, "in the queue  2 · a match needs 4 players")
}

// Ann's first terminal sits on the results of a finished ranked 1v1 while
// her second plays a ranked 2v2: ready there asks for no rematch (both
// would be rated at once); she is told why.
func TestNoRankedRematchWhileInAnotherRankedMatch(t *testing.T) {
	rc := lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: time.Second, Grace: 20 * time.Second},
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin = 99
			if m == pong.OneVOne {
				c.PointsToWin = 1
			}
			return c
		}}},
	}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	annKey := sshtest.NewKey(t)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 80, 24, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", sshtest.NewKey(t))), 80, 24, "play pong-1v1")
	ann.WaitFor(30*time.Second, "game over")
	var first *lobby.Room
	for _, r := range h.Rooms.All() {
		first = r
	}
	terms := []*sshtest.Term{sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 100, 30, "play pong-2v2")}
	for _, name := range []string{"cat", "dan", "eve"} {
		terms = append(terms, sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config(name, sshtest.NewKey(t))), 100, 30, "play pong-2v2"))
	}
	terms[0].WaitFor(wait, "pong-2v2 · ranked")
	ben.Type("r")
	ann.Type("r")
	ann.WaitFor(wait, "no rematch here until it ends")
	time.Sleep(2 * time.Second) // the rematch's countdown, had it started
	if fr, _ := first.Latest(); fr.Phase != game.Finished {
		t.Fatalf("a ranked rematch started in %s (%v) while ann plays a ranked 2v2", first.ID(), fr.Phase)
	}
}
