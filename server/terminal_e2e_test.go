package server_test

import (
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// A key in play goes from the session's terminal to the room screen, which
// maps it for the game on its own goroutine; the menu program never sees
// it (issue 21). The keys the room keeps (chat, leave) still reach the
// menu, and back in the lobby every key does.
func TestAKeyInPlayNeverReachesTheMenu(t *testing.T) {
	rc := lobby.RoomsConfig{
		Room:  game.RoomConfig{Countdown: time.Second, Grace: 20 * time.Second},
		Games: game.Catalog{pong.Kind{}},
	}
	var menu *server.MenuKeys
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc, func(srv *server.Server) { menu = server.AddMenuKeysCommand(srv) })

	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 120, 36, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room", "mode: 1v1")
	alice.Type("\r")
	alice.WaitFor(wait, "r1 · 1v1 · casual", "(free)")

	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "menu-keys r1")
	bob.WaitFor(wait, "alice", "bob", "(you)")
	alice.Type("r")
	bob.Type("r")
	bob.WaitFor(wait, "alice 0", "▸bob 0", "w/s ↑/↓ move")
	room, err := h.Rooms.Find("r1")
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the countdown to end", wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Playing })
	_, bottom0 := paddleSpan(alice, 1)
	if bottom0 < 0 {
		t.Fatalf("no right paddle on alice's screen:\n%s", alice.Screen())
	}

	// Bob moves down: his paddle goes down on alice's screen, and his
	// menu handled none of those keys.
	for range 12 {
		bob.Type("s")
		time.Sleep(30 * time.Millisecond)
	}
	waitUntil(t, "bob's paddle to move down on alice's screen", wait, func() bool { _, b := paddleSpan(alice, 1); return b > bottom0 })
	if n := menu.Count("s"); n != 0 {
		t.Fatalf("bob's menu program handled %d of his 12 moves", n)
	}

	// The chat line is the menu's: typed during play, every key reaches
	// it, the game's keys too, and alice reads the line.
	bob.Type("t")
	bob.WaitFor(wait, "> ")
	bob.Type("sw")
	bob.Type("\r")
	alice.WaitFor(wait, "bob: sw")
	if menu.Count("t") != 1 || menu.Count("s") != 1 || menu.Count("w") != 1 {
		t.Fatalf("the chat line's keys reached the menu t×%d s×%d w×%d, want one each", menu.Count("t"), menu.Count("s"), menu.Count("w"))
	}

	// q leaves (the menu's); in the lobby the menu has every key again.
	bob.Type("q")
	bob.WaitFor(wait, "Welcome, bob!")
	bob.Type("s")
	waitUntil(t, "the lobby's menu to get s", wait, func() bool { return menu.Count("s") == 2 })
}

// A notice reaches a player in a match as it reaches one in the lobby: an
// announcement and whispers both ways, the player in the match typing
// theirs on the chat line during play (issue 21: the room screen takes the
// game's keys, the chat line and notices stay the menu's).
func TestNoticesReachPlayersInAMatchAndInTheLobby(t *testing.T) {
	adminKey := sshtest.NewKey(t)
	rc := lobby.RoomsConfig{Room: game.RoomConfig{Countdown: time.Second, Grace: 20 * time.Second}, Games: game.Catalog{pong.Kind{}}}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true}, rc)
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 200, 50, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room", "mode: 1v1")
	alice.Type("\r")
	alice.WaitFor(wait, "r1 · 1v1 · casual", "(you)")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "join r1")
	bob.WaitFor(wait, "alice", "bob", "(you)")
	alice.Type("r")
	bob.Type("r")
	alice.WaitFor(wait, "▸alice 0", "bob 0", "chat · room r1")
	carol := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("carol", sshtest.NewKey(t))), 100, 40, "")
	carol.WaitFor(wait, "Welcome, carol!")

	if r := sshtest.Run(t, h.Addr, "ops", adminKey, "admin announce back in five"); r.Code != 0 {
		t.Fatalf("admin announce: %d %s", r.Code, r.Stderr)
	}
	alice.WaitFor(wait, "Announcement: back in five")
	carol.WaitFor(wait, "back in five")

	carol.Type("t")
	carol.Type("/w alice psst\r")
	alice.WaitFor(wait, "carol", "psst")
	alice.Type("t")
	alice.Type("/w carol ws from the match\r")
	carol.WaitFor(wait, "ws from the match")
}
