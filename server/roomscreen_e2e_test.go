package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// TestRoomHelpAndHeaderWithBotsE2E: the room's ? help names b, as the
// waiting screen offers it, and a casual room bots sit in says so in its
// title ("casual · vs bots"), waiting and in play.
func TestRoomHelpAndHeaderWithBotsE2E(t *testing.T) {
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: 500 * time.Millisecond}, Games: shortPong()})
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 100, 30, "")
	ann.WaitFor(wait, "Welcome, ann!")
	ann.Type("c")
	ann.WaitFor(wait, "mode: 1v1")
	ann.Type("\r")
	ann.WaitFor(wait, "r1 · 1v1 · casual", "b bots")
	if strings.Contains(ann.Screen(), "vs bots") {
		t.Fatalf("no bot sits and the title says vs bots:\n%s", ann.Screen())
	}
	ann.Type("?")
	ann.WaitFor(wait, "Keys", "b  bots in the free seats")
	ann.Type("?")
	ann.Type("b")
	ann.WaitFor(wait, "Bots in the free seats: which level")
	ann.Type("2")
	ann.WaitFor(wait, "r1 · 1v1 · casual · vs bots", "bot-L2")
	ann.Type("r")
	waitUntil(t, "the match to start", wait, func() bool {
		r, err := h.Rooms.Find("r1")
		if err != nil {
			return false
		}
		fr, _ := r.Latest()
		return fr.Phase == game.Playing
	})
	ann.WaitFor(wait, "casual · vs bots")
}

// With bots off the room's help names no b.
func TestRoomHelpWithoutBotsE2E(t *testing.T) {
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, lobby.RoomsConfig{MaxBotRooms: -1})
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 100, 30, "")
	ann.WaitFor(wait, "Welcome, ann!")
	ann.Type("c")
	ann.WaitFor(wait, "mode: 1v1")
	ann.Type("\r")
	ann.WaitFor(wait, "r1 · 1v1 · casual")
	ann.Type("?")
	ann.WaitFor(wait, "Keys", "q  leave")
	if strings.Contains(ann.Screen(), "bots in the free seats") {
		t.Fatalf("bots are off and the help offers them:\n%s", ann.Screen())
	}
}
