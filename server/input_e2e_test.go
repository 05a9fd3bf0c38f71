package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/games"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// escPause is far longer than Bubble Tea's 50 ms ESC timeout: a person
// pressing Esc and then, a moment later, another key.
const escPause = 400 * time.Millisecond

// Esc, a pause, then a key that would continue an escape sequence (P opens
// a DCS, / is an intermediate byte): the key acts at once and the keys after
// it still work.
func TestKeyAfterEscAndAPauseIsAKey(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")

	alice.Type("p")
	alice.WaitFor(wait, "Looking for a pong-1v1 match")
	alice.Type("\x1b")
	waitUntil(t, "the lobby after leaving the queue", wait, func() bool {
		s := alice.Screen()
		return strings.Contains(s, "Welcome, alice!") && !strings.Contains(s, "Looking for")
	})
	time.Sleep(escPause)
	alice.Type("P")
	alice.WaitFor(wait, "Ranked match", "1 pong-1v1 · 2 pong-2v2")
	alice.Type("2")
	alice.WaitFor(wait, "Looking for a pong-2v2 match")

	alice.Type("\x1b")
	waitUntil(t, "the lobby after leaving the queue", wait, func() bool {
		return !strings.Contains(alice.Screen(), "Looking for")
	})
	time.Sleep(escPause)
	alice.Type("/")
	alice.WaitFor(wait, "Join code:")
	alice.Type("ab")
	alice.WaitFor(wait, "Join code: ab")
}

// Esc never leaves a room (it also ends chat typing, so one Esc too many
// would forfeit); q in a ranked match in play asks first, and only y
// leaves, which loses the match. After the match, q leaves at once.
func TestEscNeverLeavesAndRankedLeaveAsks(t *testing.T) {
	rc := lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: time.Second},
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin = 1000 // nobody defends; the match must not end on its own
			return c
		}}},
	}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", sshtest.NewKey(t))), 80, 24, "play pong-1v1")
	ann.WaitFor(wait, "▸ann", "ranked")
	ben.WaitFor(wait, "▸ben", "ranked")
	rooms := h.Rooms.All()
	if len(rooms) != 1 {
		t.Fatalf("%d rooms, want the ranked one", len(rooms))
	}
	room := rooms[0]
	waitUntil(t, "the match to start", wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Playing })
	seated := func(name string) bool {
		fr, _ := room.Latest()
		for _, s := range fr.Seats {
			if s.Taken && s.Player.Name == name {
				return true
			}
		}
		return false
	}
	// stays checks ann is still in the match a while after her keys: on
	// her screen and in the room.
	stays := func(after string) {
		t.Helper()
		time.Sleep(300 * time.Millisecond)
		fr, _ := room.Latest()
		if !seated("ann") || fr.Phase != game.Playing || strings.Contains(ann.Screen(), "Welcome, ann!") {
			t.Fatalf("ann left the ranked match after %s:\n%s", after, ann.Screen())
		}
	}

	ann.Type("\x1b")
	time.Sleep(200 * time.Millisecond)
	ann.Type("\x1b")
	stays("two Esc presses")

	ann.Type("q")
	ann.WaitFor(wait, "Leave ranked match? You lose it.", "y = leave · any other key = stay")
	ann.Type("n")
	waitUntil(t, "the question to go after n", wait, func() bool { return !strings.Contains(ann.Screen(), "Leave ranked match?") })
	stays("q then n")

	ann.Type("q")
	ann.WaitFor(wait, "Leave ranked match?")
	ann.Type("\x1b")
	waitUntil(t, "the question to go after Esc", wait, func() bool { return !strings.Contains(ann.Screen(), "Leave ranked match?") })
	stays("q then Esc")

	ann.Type("q")
	ann.WaitFor(wait, "Leave ranked match?")
	ann.Type("y")
	ann.WaitFor(wait, "Welcome, ann!")
	if seated("ann") {
		t.Fatal("ann still holds her seat after q, y")
	}

	// The forfeit is recorded: ann lost, ben won.
	ben.WaitFor(wait, "game over")
	// The result is written after the room publishes it: "game over" can
	// be on screen before the profile has the match.
	var p profileOut
	waitUntil(t, "the forfeit on ann's profile", wait, func() bool {
		r := sshtest.Run(t, h.Addr, "someone", sshtest.NewKey(t), "profile ann --json")
		p = profileOut{}
		if err := json.Unmarshal([]byte(r.Stdout), &p); err != nil || r.Code != 0 {
			t.Fatalf("profile ann: %v %+v", err, r)
		}
		return len(p.Matches) > 0
	})
	if len(p.Ratings) != 1 || p.Ratings[0].Losses != 1 || p.Ratings[0].Wins != 0 || len(p.Matches) != 1 {
		t.Fatalf("ann's record after leaving: %+v", p)
	}
	for _, pl := range p.Matches[0].Players {
		if pl.Name == "ann" && pl.Place != 2 {
			t.Fatalf("ann placed %d in the match she left, want 2: %+v", pl.Place, p.Matches[0])
		}
	}

	// After the match, q leaves without asking.
	ben.Type("q")
	ben.WaitFor(wait, "Welcome, ben!")
}

// One tap of w moves the paddle one row, on the player's own screen (drawn
// before the room confirms it) and on the opponent's.
func TestTapMovesThePaddleOneRow(t *testing.T) {
	rc := lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: time.Second},
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin = 1000
			return c
		}}},
	}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room")
	alice.Type("\r")
	alice.WaitFor(wait, "(you)", "(free)")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "join r1")
	bob.WaitFor(wait, "(you)")
	alice.Type("r")
	bob.Type("r")
	room, err := h.Rooms.Find("r1")
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the match to start", wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Playing })
	still := func() int32 {
		var pos int32
		waitUntil(t, "alice's paddle to rest", wait, func() bool {
			fr, _ := room.Latest()
			p := fr.State.(*pong.Snapshot).Paddles[pong.Left]
			pos = p.Pos
			return p.Dir == 0
		})
		return pos
	}
	before := still()
	aTop, aBottom := paddleSpan(alice, 0)
	bTop, bBottom := paddleSpan(bob, 0)
	alice.Type("w")
	waitUntil(t, "the tap to go out and stop", wait, func() bool {
		fr, _ := room.Latest()
		p := fr.State.(*pong.Snapshot).Paddles[pong.Left]
		return p.Pos != before && p.Dir == 0
	})
	after := still()
	time.Sleep(200 * time.Millisecond) // both screens draw the last frame
	for _, s := range []struct {
		who         string
		tm          *sshtest.Term
		top, bottom int
	}{{"alice", alice, aTop, aBottom}, {"bob", bob, bTop, bBottom}} {
		top, bottom := paddleSpan(s.tm, 0)
		if top != s.top-1 || bottom != s.bottom-1 {
			t.Errorf("on %s's screen one tap moved the paddle from rows %d–%d to %d–%d, want one row up (room: %d → %d sub-units)",
				s.who, s.top, s.bottom, top, bottom, before, after)
		}
	}
}

// The lobby's help lists the keys of every game, whole, and the web
// face's address (--public-url), at 80×24 and 200×50; ssh HOST help names
// the server's ranked modes.
func TestHelpListsGameKeys(t *testing.T) {
	cfg := server.DefaultConfig()
	cfg.WebURL = "https://arena.example.org"
	h := startWith(t, t.TempDir(), cfg, nil, lobby.RoomsConfig{Games: games.Catalog()})
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), size[0], size[1], "")
		tm.WaitFor(wait, "Welcome, alice")
		tm.Type("?")
		tm.WaitFor(wait, "In a game", "Pong: w/s ↑/↓  move (a/d ←/→ top and bottom) · tap: a cell, hold: glide",
			"Light cycles: arrows/WASD turn · watching: f free camera, 0 overview",
			"t enter  chat · r  ready, rematch · n  next ranked match",
			"q  leave (a ranked match asks first) · esc never leaves", "? or esc close help",
			"web  https://arena.example.org")
		tm.Close()
	}
	key := sshtest.NewKey(t)
	for _, cmd := range []string{"help", "help play", "help leaderboard"} {
		if r := sshtest.Run(t, h.Addr, "alice", key, cmd); r.Code != 0 || !strings.Contains(r.Stdout, "pong-1v1, pong-2v2, pong-ffa4, tron-ffa") {
			t.Errorf("%s: %+v", cmd, r)
		}
	}
}
