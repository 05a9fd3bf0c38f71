package server_test

import (
	"strings"
	"testing"

	"github.com/termarena/termarena/games"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// Issue 20 item 7: a 40×12 terminal was seated in a ranked 2v2 and saw
// only "Terminal too small". `play MODE` and `join ROOM` from a terminal
// too small for the mode's board refuse before any screen opens, with
// the size needed and the size the player has, and exit 1; a terminal
// that fits goes on.
func TestPlayAndJoinRefuseATerminalTooSmallForTheMode(t *testing.T) {
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, lobby.RoomsConfig{Games: games.Catalog()})
	r, err := h.Rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	run := func(cols, rows int, cmd string) (int, string) {
		t.Helper()
		tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), cols, rows, cmd)
		st, err := tm.Wait(wait)
		if err != nil {
			t.Fatalf("%s at %d×%d: %v\n%s", cmd, cols, rows, err, tm.Screen())
		}
		return st, strings.ReplaceAll(string(tm.Raw()), "\r\n", "\n")
	}
	for _, tc := range []struct {
		cols, rows int
		cmd, want  string
	}{
		{40, 12, "play pong-2v2", "termarena: pong-2v2 needs a terminal of at least 44×24; yours is 40×12: enlarge the window and try again"},
		{60, 30, "play 1v1", "termarena: pong-1v1 needs a terminal of at least 76×22; yours is 60×30"},
		{40, 12, "join " + r.ID(), "termarena: " + r.ID() + " (pong 1v1) needs a terminal of at least 76×22; yours is 40×12"},
	} {
		st, out := run(tc.cols, tc.rows, tc.cmd)
		if st != server.ExitFail || !strings.Contains(out, tc.want) {
			t.Errorf("%s at %d×%d: exit %d, want 1 and %q:\n%s", tc.cmd, tc.cols, tc.rows, st, tc.want, out)
		}
	}
	// Light cycles follow the rider on a small terminal: 40×12 is enough.
	tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 40, 12, "play tron-ffa")
	tm.WaitFor(wait, "tron-ffa")
	tm.Close()
}

// Issue 20: `join r999` and `spectate r999` opened the full-screen lobby
// and exited 0. An unknown room is refused before any screen opens, with
// a message and exit 1, as `replay 999` is; so is joining a ranked match
// one does not play in.
func TestJoinAndSpectateAnUnknownRoomExit1(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	for _, tc := range []struct{ cmd, want string }{
		{"join r999", `termarena: no room "r999" is open (ssh HOST rooms lists them)`},
		{"join zzzzz left", `termarena: no room "zzzzz" is open`},
		{"spectate r999", `termarena: no live room "r999" to watch`},
	} {
		tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, tc.cmd)
		st, err := tm.Wait(wait)
		if err != nil || st != server.ExitFail || !strings.Contains(string(tm.Raw()), tc.want) {
			t.Errorf("%s: exit %d (%v), want 1 and %q:\n%s", tc.cmd, st, err, tc.want, tm.Screen())
		}
	}
	r, err := h.Rooms.CreateRanked(lobby.Match{Mode: "pong-1v1", Players: []lobby.Entry{{ID: "SHA256:x", Name: "xena"}, {ID: "SHA256:y", Name: "yann"}}})
	if err != nil {
		t.Fatal(err)
	}
	tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "join "+r.ID())
	if st, err := tm.Wait(wait); err != nil || st != server.ExitFail || !strings.Contains(string(tm.Raw()), r.ID()+" is a ranked match: only its players sit in it") {
		t.Errorf("join %s (a ranked match of others): exit %d (%v):\n%s", r.ID(), st, err, tm.Screen())
	}
}

// Issue 20: a TERMARENA_FPS outside 10–60 was replaced without a word.
// The lobby says which rate the screen runs at instead.
func TestAnFPSOutOfRangeIsToldNotIgnored(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 100, 30, "", "TERMARENA_FPS=5")
	tm.WaitFor(wait, "TERMARENA_FPS=5 is not a rate from 10 to 60:", "your screen runs at 30 fps.")
	ok := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 30, "", "TERMARENA_FPS=60")
	if scr := ok.WaitFor(wait, "Welcome, bob!"); strings.Contains(scr, "TERMARENA_FPS") {
		t.Fatalf("a rate in range is told off:\n%s", scr)
	}
}
