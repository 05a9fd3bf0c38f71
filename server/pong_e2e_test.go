package server_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// paddleSpan finds the rows of the leftmost (side 0) or rightmost (side 1)
// column of block glyphs: the left and right paddles, as a person sees them.
func paddleSpan(tm *sshtest.Term, side int) (top, bottom int) {
	w, h := tm.Size()
	top, bottom = -1, -1
	col := -1
	// Paddle columns are the outermost columns holding block glyphs below
	// the HUD; the board is centred.
	for x := 0; x < w && col < 0; x++ {
		xx := x
		if side == 1 {
			xx = w - 1 - x
		}
		for y := 1; y < h-1; y++ {
			if isBlock(tm.Cell(xx, y).Char) {
				col = xx
				break
			}
		}
	}
	if col < 0 {
		return -1, -1
	}
	for y := 1; y < h-1; y++ {
		g := tm.Cell(col, y)
		// The paddle is coloured; walls (corners) are grey: skip cells whose
		// colour equals the corner's.
		if isBlock(g.Char) && g.FG != tm.Cell(col, firstBlockRow(tm, col)).FG {
			if top < 0 {
				top = y
			}
			bottom = y
		}
	}
	return top, bottom
}

func firstBlockRow(tm *sshtest.Term, col int) int {
	_, h := tm.Size()
	for y := 1; y < h-1; y++ {
		if isBlock(tm.Cell(col, y).Char) {
			return y
		}
	}
	return 0
}

func isBlock(r rune) bool { return r == '█' || r == '▀' || r == '▄' }

func waitUntil(t *testing.T, what string, timeout time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestTwoPlayersPlayPongOverSSH(t *testing.T) {
	rc := lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: time.Second, Grace: 20 * time.Second},
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin = 3
			return c
		}}},
	}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	base := h.goroutineBaseline()
	aliceKey, bobKey := sshtest.NewKey(t), sshtest.NewKey(t)

	aliceConn := sshtest.Dial(t, h.Addr, sshtest.Config("alice", aliceKey))
	alice := sshtest.Open(t, aliceConn, 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!", "no open rooms")
	alice.Type("c")
	alice.WaitFor(wait, "New room", "mode: 1v1")
	alice.Type("\r")
	alice.WaitFor(wait, "r1 · 1v1 · casual", "alice", "(you)", "(free)")

	bobConn := sshtest.Dial(t, h.Addr, sshtest.Config("bob", bobKey))
	bob := sshtest.Open(t, bobConn, 100, 30, "join r1")
	bob.WaitFor(wait, "alice", "bob", "(you)")
	alice.WaitFor(wait, "bob")

	alice.Type("r")
	bob.Type("r")
	// Countdown, then the board with both names and scores in the HUD.
	alice.WaitFor(wait, "▸alice 0", "bob 0", "w/s ↑/↓ move")
	bob.WaitFor(wait, "alice 0", "▸bob 0")
	room, err := h.Rooms.Find("r1")
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the countdown to end", wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Playing })

	// Alice holds "up": her paddle rises on both screens.
	aTop0, _ := paddleSpan(alice, 0)
	bTop0, _ := paddleSpan(bob, 0)
	if aTop0 < 0 || bTop0 < 0 {
		raw := alice.Raw()
		t.Fatalf("no left paddle found:\n%s\n%s\nalice's last bytes: %q", alice.Screen(), bob.Screen(), raw[max(0, len(raw)-3000):])
	}
	for range 12 {
		alice.Type("w") // auto-repeat, as a held key sends
		time.Sleep(30 * time.Millisecond)
	}
	waitUntil(t, "alice's paddle to rise on her screen", wait, func() bool { top, _ := paddleSpan(alice, 0); return top >= 0 && top < aTop0 })
	waitUntil(t, "alice's paddle to rise on bob's screen", wait, func() bool { top, _ := paddleSpan(bob, 0); return top >= 0 && top < bTop0 })

	// Nobody defends: a point is scored and both screens show it.
	scored := func(tm *sshtest.Term) bool {
		s := tm.Screen()
		return strings.Contains(s, "alice 1") || strings.Contains(s, "bob 1")
	}
	waitUntil(t, "a point on alice's screen", 30*time.Second, func() bool { return scored(alice) })
	waitUntil(t, "a point on bob's screen", wait, func() bool { return scored(bob) })

	// Bob's connection drops: alice sees the grace countdown.
	bobConn.Close()
	alice.WaitFor(wait, "bob disconnected —")
	// The same key comes back into the same seat (right side, "▸bob").
	bob2Conn := sshtest.Dial(t, h.Addr, sshtest.Config("bob", bobKey))
	bob2 := sshtest.Open(t, bob2Conn, 80, 24, "")
	bob2.WaitFor(wait, "▸bob")
	waitUntil(t, "the pause banner to clear", wait, func() bool { return !strings.Contains(alice.Screen(), "disconnected") })
	waitUntil(t, "bob's paddle on the right side after reconnecting", wait, func() bool { _, bottom := paddleSpan(bob2, 1); return bottom >= 0 })

	// Both leave: the room closes and every goroutine the sessions and the
	// room started ends.
	alice.Type("q")
	alice.WaitFor(wait, "Welcome, alice!")
	bob2.Type("q")
	bob2.WaitFor(wait, "Welcome, bob!")
	alice.Type("q")
	bob2.Type("q")
	if _, err := alice.Wait(wait); err != nil {
		t.Fatal(err)
	}
	if _, err := bob2.Wait(wait); err != nil {
		t.Fatal(err)
	}
	aliceConn.Close()
	bob2Conn.Close()
	waitUntil(t, "the room to be disposed", wait, func() bool { return h.Rooms.Count() == 0 })
	deadline := time.Now().Add(wait)
	for runtime.NumGoroutine() > base+2 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutines %d, baseline %d\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRoomsPrivateCodesAndJoinErrors(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	carol := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("carol", sshtest.NewKey(t))), 80, 24, "")
	carol.WaitFor(wait, "Welcome, carol!")
	carol.Type("c")
	carol.WaitFor(wait, "mode: 1v1")
	carol.Type("4") // free-for-all
	carol.Type("p") // private
	carol.WaitFor(wait, "mode: ffa", "private (join code)")
	carol.Type("\r")
	scr := carol.WaitFor(wait, "private · code ")
	i := strings.Index(scr, "code ")
	code := strings.Fields(scr[i+len("code "):])[0]
	if len(code) != 5 {
		t.Fatalf("join code %q from:\n%s", code, scr)
	}

	// Private rooms are not listed, neither in `rooms` nor by id.
	if r := sshtest.Run(t, h.Addr, "dave", sshtest.NewKey(t), "rooms"); r.Code != 0 || !strings.Contains(r.Stdout, "no open rooms") {
		t.Fatalf("rooms lists a private room: %+v", r)
	}
	// ... and join refuses it by id as a room that is not open, exit 1.
	dave := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("dave", sshtest.NewKey(t))), 80, 24, "join r1")
	if st, err := dave.Wait(wait); err != nil || st != server.ExitFail || !strings.Contains(dave.Screen(), `no room "r1" is open`) {
		t.Fatalf("join r1 (private): exit %d (%v)\n%s", st, err, dave.Screen())
	}

	// The code gets in; a taken side is refused with the free ones listed.
	erin := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("erin", sshtest.NewKey(t))), 80, 24, "join "+code+" left")
	erin.WaitFor(wait, "In r1, left is taken; free: right, top, bottom.")
	erin.Type("q")
	frank := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("frank", sshtest.NewKey(t))), 80, 24, "join "+strings.ToUpper(code)+" top")
	frank.WaitFor(wait, "carol", "frank", "(you)")
	carol.WaitFor(wait, "frank")

	// A public room shows in `rooms` and `rooms --json`.
	gina := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("gina", sshtest.NewKey(t))), 80, 24, "")
	gina.WaitFor(wait, "Welcome, gina!")
	gina.Type("c")
	gina.WaitFor(wait, "New room")
	gina.Type("2\r")
	gina.WaitFor(wait, "· 2v2 · casual")
	r := sshtest.Run(t, h.Addr, "dave", sshtest.NewKey(t), "rooms")
	if r.Code != 0 || !strings.Contains(r.Stdout, "2v2") || !strings.Contains(r.Stdout, "gina") || strings.Contains(r.Stdout, "carol") {
		t.Fatalf("rooms: %+v", r)
	}
	r = sshtest.Run(t, h.Addr, "dave", sshtest.NewKey(t), "rooms --json")
	if !strings.Contains(r.Stdout, `"mode": "2v2"`) || !strings.Contains(r.Stdout, `"players": [`) {
		t.Fatalf("rooms --json: %s", r.Stdout)
	}
	if r := sshtest.Run(t, h.Addr, "dave", sshtest.NewKey(t), "join"); r.Code != 2 {
		t.Fatalf("join without a room: %+v", r)
	}
}
