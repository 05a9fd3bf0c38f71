package server_test

import (
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// TestChatLineDuringPlayKeepsThePaddleStill: the game screen owns the
// chat line. Paddle keys typed into it are text that reaches the room's
// chat, and none of them reaches the game; once the line is sent, w is the
// paddle's again.
func TestChatLineDuringPlayKeepsThePaddleStill(t *testing.T) {
	rc := lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: 200 * time.Millisecond, Grace: 20 * time.Second},
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin = 1000 // nobody defends; the match must not end on its own
			return c
		}}},
	}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 30, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room")
	alice.Type("\r")
	alice.WaitFor(wait, "r1 · 1v1 · casual", "(you)")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 30, "join r1")
	bob.WaitFor(wait, "alice", "bob", "(you)")
	alice.Type("r")
	bob.Type("r")
	room := h.Rooms.All()[0]
	waitUntil(t, "the match to start", wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Playing })
	alice.WaitFor(wait, "chat · room r1")

	// Alice's inputs as the room has them: how many it took, and where her
	// paddle is.
	inputs := func() (uint32, int32) {
		fr, _ := room.Latest()
		return fr.Acks[0], fr.State.(*pong.Snapshot).Paddles[0].Pos
	}
	acks0, pos0 := inputs()
	alice.Type("t")
	alice.WaitFor(wait, "> ▏")
	for _, k := range "wwww ssss hello" {
		alice.Type(string(k))
	}
	alice.Type("\r")
	bob.WaitFor(wait, "alice: wwww ssss hello")
	alice.WaitFor(wait, "alice: wwww ssss hello")
	time.Sleep(200 * time.Millisecond) // a key that strayed would have reached the room by now
	if acks, pos := inputs(); acks != acks0 || pos != pos0 {
		t.Fatalf("the chat line's keys reached the game: acks %d → %d, paddle %d → %d", acks0, acks, pos0, pos)
	}

	// The line is sent and closed: w moves the paddle again.
	alice.Type("w")
	waitUntil(t, "w to reach the room after chat", wait, func() bool { acks, _ := inputs(); return acks != acks0 })
}
