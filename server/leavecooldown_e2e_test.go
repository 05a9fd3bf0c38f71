package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
	gossh "golang.org/x/crypto/ssh"
)

// Ann walks out of a ranked 1v1 (forgiven), the server restarts, and she
// walks out of a ranked 2v2 that plays on without her: the strike counts
// from the moment she left, so she cannot queue again while the match she
// abandoned is still being played, and another restart forgives nothing.
func TestRanked2v2LeaverCannotQueueUntilTheCooldown(t *testing.T) {
	dir := t.TempDir()
	rc := lobby.RoomsConfig{Room: game.RoomConfig{Countdown: 60 * time.Second, Grace: 20 * time.Second}}
	annKey := sshtest.NewKey(t)
	keys := []*sshtestKey{{"ann", annKey}, {"ben", sshtest.NewKey(t)}, {"cat", sshtest.NewKey(t)}, {"dan", sshtest.NewKey(t)}}

	h := startWith(t, dir, server.DefaultConfig(), nil, rc)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 80, 24, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", keys[1].key)), 80, 24, "play pong-1v1")
	rankedCountdown(t, h, ann, ben)
	ann.Type("q")
	ann.Type("y")
	ann.WaitFor(wait, "You left a ranked match", "No queue cooldown this time")
	h.Stop()

	h = startWith(t, dir, server.DefaultConfig(), nil, rc)
	var terms []*sshtest.Term
	for _, k := range keys {
		tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config(k.name, k.key)), 100, 30, "play pong-2v2")
		tm.WaitFor(wait, "pong-2v2")
		terms = append(terms, tm)
	}
	var room *lobby.Room
	waitUntil(t, "the ranked 2v2 countdown", wait, func() bool {
		for _, r := range h.Rooms.All() {
			if fr, _ := r.Latest(); r.Ranked == "pong-2v2" && fr.Phase == game.Countdown {
				room = r
				return true
			}
		}
		return false
	})
	ann = terms[0]
	ann.WaitFor(wait, "ranked", "▸ann")
	ann.Type("q")
	ann.Type("y")
	scr := ann.WaitFor(wait, "You left a ranked match", "Queue cooldown: 5 min.")
	if fr, _ := room.Latest(); fr.Phase != game.Countdown && fr.Phase != game.Playing {
		t.Fatalf("the 2v2 ann left is %v, want it still being played:\n%s", fr.Phase, scr)
	}
	ann.Type("p")
	ann.WaitFor(wait, "you can queue again in")
	if scr := ann.Screen(); strings.Contains(scr, "Looking for a") {
		t.Fatalf("a 2v2 leaver queued again while the match she left plays on:\n%s", scr)
	}
	h.Stop()

	// A restart keeps the cooldown.
	h = startWith(t, dir, server.DefaultConfig(), nil, rc)
	again := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 100, 30, "play pong-1v1")
	again.WaitFor(wait, "you can queue again in")
	if scr := again.Screen(); strings.Contains(scr, "Looking for a") {
		t.Fatalf("a restart forgave the leaver:\n%s", scr)
	}
}

type sshtestKey struct {
	name string
	key  gossh.Signer
}
