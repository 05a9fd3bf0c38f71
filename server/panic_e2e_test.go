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

const internalError = "internal error; the session was closed"

// A panic in one session's code (a command, the lobby's Update or View, a
// room view) ends that session with a short message and exit status 1; the
// server, the other sessions and a running match carry on.
func TestPanicEndsOnlyItsSession(t *testing.T) {
	rc := lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: time.Second, Grace: 20 * time.Second},
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin = 1000 // the match must outlast the test
			return c
		}}},
	}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc, server.AddPanicCommands)

	// A match in progress.
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room")
	alice.Type("\r")
	alice.WaitFor(wait, "r1 · 1v1 · casual")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "join r1")
	bob.WaitFor(wait, "alice", "bob", "(you)")
	alice.Type("r")
	bob.Type("r")
	room, err := h.Rooms.Find("r1")
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the match to start", wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Playing })

	// ticking waits for the room to step further than it has now.
	ticking := func(what string) {
		t.Helper()
		fr, _ := room.Latest()
		from := fr.Tick
		waitUntil(t, "the room to keep ticking "+what, wait, func() bool {
			fr, _ := room.Latest()
			return fr.Phase == game.Playing && fr.Tick > from+10
		})
	}

	// A plain command.
	key := sshtest.NewKey(t)
	r := sshtest.Run(t, h.Addr, "carol", key, "panic")
	if r.Code != 1 || !strings.Contains(r.Stderr, internalError) {
		t.Fatalf("panicking command: code %d stdout %q stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	ticking("after a command panicked")

	// The lobby's Update, its View, and a room view (a spectator's).
	for _, c := range []struct{ cmd, key string }{{"panic-key", "!"}, {"panic-view", "!"}, {"panic-watch r1", ""}} {
		carol := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("carol", key)), 80, 24, c.cmd)
		if c.key != "" {
			carol.WaitFor(wait, "Welcome, carol!")
			carol.Type(c.key)
		}
		carol.WaitFor(wait, internalError)
		if code, err := carol.Wait(wait); err != nil || code != 1 {
			t.Fatalf("%s: exit %d, %v\n%s", c.cmd, code, err, carol.Screen())
		}
		ticking("after " + c.cmd)
	}

	// Another session still works, and so do the players' own.
	if r := sshtest.Run(t, h.Addr, "dave", sshtest.NewKey(t), "whoami"); r.Code != 0 || !strings.Contains(r.Stdout, "dave") {
		t.Fatalf("whoami after the panics: %+v", r)
	}
	fr, _ := room.Latest()
	if fr.Phase != game.Playing || !fr.Seats[0].Connected || !fr.Seats[1].Connected {
		t.Fatalf("the match was disturbed: phase %v seats %+v", fr.Phase, fr.Seats)
	}
	alice.WaitFor(wait, "▸alice")
	if h.Hub.Sessions() != 2 {
		t.Fatalf("%d sessions online, want alice's and bob's", h.Hub.Sessions())
	}
}
