package server_test

import (
	"strings"
	"testing"

	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// A room takes at most MaxWatchers watchers (there was no limit: every
// watcher's screen costs the server a frame at their rate). One more is
// refused with the room and the limit named: `spectate ROOM` before any
// screen opens, exit 1; from the lobby's chooser with a notice, and the
// chooser stays. A watcher who leaves makes room for another.
func TestRoomRefusesAWatcherBeyondItsLimit(t *testing.T) {
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, lobby.RoomsConfig{MaxWatchers: 1})
	r, err := h.Rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "join "+r.ID())
	ann.WaitFor(wait, "ann", "(you)")
	carol := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("carol", sshtest.NewKey(t))), 80, 24, "spectate "+r.ID())
	carol.WaitFor(wait, "watching "+r.ID())

	want := "room " + r.ID() + " has the most watchers it takes (1)"
	dave := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("dave", sshtest.NewKey(t))), 80, 24, "spectate "+r.ID())
	if st, err := dave.Wait(wait); err != nil || st != server.ExitFail || !strings.Contains(dave.Screen(), "termarena: "+want) {
		t.Fatalf("spectate %s beyond the limit: exit %d (%v)\n%s", r.ID(), st, err, dave.Screen())
	}

	erin := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("erin", sshtest.NewKey(t))), 80, 24, "")
	erin.WaitFor(wait, "Welcome, erin!")
	erin.Type("w")
	erin.WaitFor(wait, "Watch a live room", r.ID())
	erin.Type("\r")
	erin.WaitFor(wait, want, "Watch a live room")
	if strings.Contains(erin.Screen(), "watching "+r.ID()) {
		t.Fatalf("erin watches beyond the limit:\n%s", erin.Screen())
	}

	carol.Type("q") // back to the chooser: her place is free
	carol.WaitFor(wait, "Watch a live room")
	waitUntil(t, "carol's place to be free", wait, func() bool { return r.Watchers() == 0 })
	erin.Type("\r")
	erin.WaitFor(wait, "watching "+r.ID())
}
