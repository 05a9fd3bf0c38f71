package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// ballCell finds the ball: the only cell drawn in the ball's colour away
// from the board's edges. The board is live (casual rooms have no delay).
func ballAt(tm *sshtest.Term) (int, int) {
	w, h := tm.Size()
	for y := 2; y < h-2; y++ {
		for x := 3; x < w-3; x++ {
			g := tm.Cell(x, y)
			if (g.Char == '▀' || g.Char == '▄' || g.Char == '█') && g.FG == 231 { // the ball: #F9FAFB in 256 colours
				return x, y
			}
		}
	}
	return -1, -1
}

func TestSpectateAndReplayOverSSH(t *testing.T) {
	rc := lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: time.Second},
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin = 4
			return c
		}}},
	}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room")
	alice.Type("\r")
	alice.WaitFor(wait, "r1 · 1v1 · casual")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "join r1")
	bob.WaitFor(wait, "(you)")
	alice.Type("r")
	bob.Type("r")
	alice.WaitFor(wait, "▸alice 0")

	// Without a terminal: use ssh -t.
	if r := sshtest.Run(t, h.Addr, "carol", sshtest.NewKey(t), "spectate r1"); r.Code != 2 || !strings.Contains(r.Stderr, "ssh -t") {
		t.Fatalf("spectate without pty: %+v", r)
	}
	// An unknown room is refused before any screen opens, exit 1, as
	// replay refuses an unknown match (issue 20).
	carolKey := sshtest.NewKey(t)
	lost := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("carol", carolKey)), 80, 24, "spectate r42")
	if st, err := lost.Wait(wait); err != nil || st != server.ExitFail || !strings.Contains(lost.Screen(), `termarena: no live room "r42" to watch`) {
		t.Fatalf("spectate r42: exit %d (%v)\n%s", st, err, lost.Screen())
	}

	carol := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("carol", carolKey)), 100, 30, "spectate r1")
	carol.WaitFor(wait, "watching r1", "alice", "bob")
	// The players see they are watched.
	alice.WaitFor(wait, "1 watching")
	// The ball moves on the watcher's screen.
	waitUntil(t, "the ball on the watcher's screen", wait, func() bool { x, _ := ballAt(carol); return x >= 0 })
	x0, y0 := ballAt(carol)
	waitUntil(t, "the ball to move", wait, func() bool { x, y := ballAt(carol); return x >= 0 && (x != x0 || y != y0) })
	// Follow mode.
	carol.Type("1")
	carol.WaitFor(wait, "following alice")
	carol.Type("0")

	// Play on until the match ends (nobody defends).
	for _, tm := range []*sshtest.Term{alice, bob} {
		tm.WaitFor(60*time.Second, "game over")
	}
	var ms []struct {
		ID     uint64
		Replay bool
	}
	poll := sshtest.Dial(t, h.Addr, sshtest.Config("poller", sshtest.NewKey(t)))
	waitUntil(t, "the match and its replay to be stored", wait, func() bool {
		r := sshtest.RunOn(t, poll, "matches alice --json")
		return json.Unmarshal([]byte(r.Stdout), &ms) == nil && len(ms) == 1 && ms[0].Replay
	})
	if r := sshtest.Run(t, h.Addr, "x", sshtest.NewKey(t), "replays alice"); r.Code != 0 || !strings.Contains(r.Stdout, fmt.Sprint(ms[0].ID)) {
		t.Fatalf("replays: %+v", r)
	}
	if r := sshtest.Run(t, h.Addr, "x", sshtest.NewKey(t), "replay 999"); r.Code != 2 {
		// no pty: usage first
		t.Fatalf("replay without pty: %+v", r)
	}
	rp := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("dave", sshtest.NewKey(t))), 80, 24, fmt.Sprintf("replay %d", ms[0].ID))
	rp.WaitFor(wait, "alice", "bob", "space pause")
	rp.Type("+++") // 8×: the short match plays out quickly
	rp.WaitFor(60*time.Second, "game over", "1. ")
	// --cast needs no terminal: the replay comes out as an asciicast v2
	// file painted by the same room screen, to its results.
	cast := sshtest.Run(t, h.Addr, "x", sshtest.NewKey(t), fmt.Sprintf("replay %d --cast", ms[0].ID))
	head, events, _ := strings.Cut(cast.Stdout, "\n")
	if cast.Code != 0 || !strings.HasPrefix(head, `{"version":2,"width":80,"height":24,`) || !strings.Contains(events, "alice") || !strings.Contains(events, "game over") {
		t.Fatalf("replay --cast: exit %d, %d bytes, header %q, stderr %q", cast.Code, len(cast.Stdout), head, cast.Stderr)
	}
	if r := sshtest.Run(t, h.Addr, "x", sshtest.NewKey(t), "replay 999 --cast"); r.Code != 1 || !strings.Contains(r.Stderr, "no replay of match 999") || r.Stdout != "" {
		t.Fatalf("replay 999 --cast: %+v", r)
	}
	missing := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("dave", sshtest.NewKey(t))), 80, 24, "replay 999")
	if code, _ := missing.Wait(wait); code != 1 || !strings.Contains(string(missing.Raw()), "no replay of match 999") {
		t.Fatalf("replay of an unknown match: code %d %q", code, missing.Raw())
	}
}
