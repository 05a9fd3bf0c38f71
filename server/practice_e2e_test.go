package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
	"github.com/termarena/termarena/store"
)

// practice refuses what it cannot play with a usage line and exit status
// 2, before any screen opens, and says when the server runs no bots.
func TestPracticeRefusesBadModesAndLevels(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	run := func(args string) (int, string) {
		t.Helper()
		tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "practice "+args)
		st, err := tm.Wait(wait)
		if err != nil {
			t.Fatalf("practice %s: %v\n%s", args, err, tm.Screen())
		}
		return st, tm.Screen()
	}
	for _, c := range []struct{ args, says string }{
		{"chess", `no mode "chess"`},
		{"1v1 --level 6", `no level "6": levels are 1 to 5`},
		{"1v1 --level 0", `no level "0"`},
		{"--level x", `no level "x"`},
		{"1v1 2v2", "usage: ssh -t HOST practice [1v1|2v2|ffa|tron|tron-ffa] [--level 1-5]"},
		{"1v1 --speed 3", `unknown flag "--speed"`},
	} {
		st, out := run(c.args)
		if st != server.ExitUsage || !strings.Contains(out, c.says) || !strings.Contains(out, "usage: ssh -t HOST practice") {
			t.Errorf("practice %s: exit %d, want 2 saying %q:\n%s", c.args, st, c.says, out)
		}
	}
	if got := h.Rooms.Count(); got != 0 {
		t.Errorf("%d rooms left behind by refused practice", got)
	}
}

// An operator who turned bots off (--bots=false) gets a plain refusal,
// exit status 1.
func TestPracticeWhenBotsAreOff(t *testing.T) {
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, lobby.RoomsConfig{MaxBotRooms: -1})
	tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "practice")
	st, err := tm.Wait(wait)
	if err != nil || st != server.ExitFail || !strings.Contains(tm.Screen(), "practice bots are turned off on this server") {
		t.Fatalf("practice with bots off: exit %d, %v\n%s", st, err, tm.Screen())
	}
}

// A player practises against a bot: the bot sits in the other seat and is
// ready, the match plays once the player readies, and it is recorded as
// practice (practice-1v1): unrated, with no rating for anyone, the bot
// named but never a player of the server, and its replay kept. When the
// player leaves, the bot leaves too and the room is gone.
func TestPracticeAgainstABotIsRecordedUnrated(t *testing.T) {
	rc := lobby.RoomsConfig{
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin = 1
			return c
		}}},
	}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	key := sshtest.NewKey(t)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", key)), 80, 24, "practice 1v1 --level 5")
	ann.WaitFor(wait, "practice, bots level 5", "bot-L5", "ready ✓", "(you)")
	ann.Type("r")
	ann.WaitFor(time.Minute, "game over", "bot-L5", "rematch (1 ready)")
	// Recorded once the writer has it.
	var ms []store.MatchRecord
	deadline := time.Now().Add(wait)
	for len(ms) == 0 && time.Now().Before(deadline) {
		var err error
		if ms, err = h.Store.RecentMatches(context.Background(), 10, nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(ms) != 1 {
		t.Fatalf("%d matches recorded, want the practice match", len(ms))
	}
	m := ms[0]
	if m.Mode != "practice-1v1" || m.Ranked || !m.Replay || len(m.Players) != 2 {
		t.Fatalf("recorded %+v; want an unrated practice-1v1 with its replay", m)
	}
	for _, p := range m.Players {
		if p.RatingBefore != p.RatingAfter {
			t.Errorf("%s's rating moved in practice: %+v", p.Name, p)
		}
		if strings.HasPrefix(p.Name, "bot-") && p.Fingerprint != "" {
			t.Errorf("the bot was recorded as a player of the server: %+v", p)
		}
	}
	for _, mode := range []string{"pong-1v1", "practice-1v1", "casual-1v1"} {
		if lb, err := h.Store.Leaderboard(context.Background(), mode, 0, 10); err != nil || len(lb) != 0 {
			t.Errorf("leaderboard %s after practice: %v, %v", mode, lb, err)
		}
	}
	if rs, err := h.Store.Ratings(context.Background(), m.Players[0].Fingerprint); err != nil || len(rs) != 0 {
		t.Errorf("ann has ratings after practice alone: %+v, %v", rs, err)
	}
	ann.Type("q")
	deadline = time.Now().Add(wait)
	for h.Rooms.Count() != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := h.Rooms.Count(); n != 0 {
		t.Fatalf("%d rooms live after the player left practice; the bot should have left with them", n)
	}
}

// --max-bot-rooms caps live practice rooms: one more is refused with exit
// status 1 until one ends.
func TestPracticeRoomsAreCapped(t *testing.T) {
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, lobby.RoomsConfig{MaxBotRooms: 1})
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "practice tron --level 2")
	ann.WaitFor(wait, "practice, bots level 2", "bot-L2")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "practice")
	st, err := bob.Wait(wait)
	if err != nil || st != server.ExitFail || !strings.Contains(bob.Screen(), "as many practice rooms as it runs") {
		t.Fatalf("a second practice room over the cap: exit %d, %v\n%s", st, err, bob.Screen())
	}
}

// In the lobby, the create dialog's b picks a bot level: enter then
// opens a practice room with the bots seated, as practice does.
func TestLobbyCreateDialogSeatsBots(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 100, 30, "")
	ann.WaitFor(wait, "Welcome, ann!")
	ann.Type("c")
	ann.WaitFor(wait, "mode: 1v1", "b bots (off, 1-5)")
	ann.Type("b")
	ann.WaitFor(wait, "practice: bots of level 1")
	ann.Type("b")
	ann.WaitFor(wait, "practice: bots of level 2")
	ann.Type("\r")
	ann.WaitFor(wait, "practice, bots level 2", "bot-L2", "ready ✓", "(you)")
	rooms, _ := h.Rooms.List()
	if len(rooms) != 1 || rooms[0].Practice != 2 {
		t.Fatalf("rooms %v: want one practice room of level 2", rooms)
	}
}

// A player who walks out of practice before anyone scored finds the match
// listed as abandoned, not as a 2nd place behind a bot that never scored
// either.
func TestPracticeWalkOutAtNilNilIsAbandoned(t *testing.T) {
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, lobby.RoomsConfig{Room: game.RoomConfig{Countdown: 200 * time.Millisecond}})
	key := sshtest.NewKey(t)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", key)), 80, 24, "practice 1v1 --level 1")
	ann.WaitFor(wait, "practice, bots level 1", "bot-L1", "(you)")
	r := roomOf(t, h, "ann")
	ann.Type("r")
	waitUntil(t, "the match to start", wait, func() bool {
		fr, _ := r.Latest()
		return fr.Phase == game.Playing
	})
	// The first serve waits a second: nobody has scored yet.
	ann.Type("q")
	var ms []store.MatchRecord
	waitUntil(t, "the walk-out to be recorded", wait, func() bool {
		var err error
		ms, err = h.Store.RecentMatches(context.Background(), 10, nil)
		return err == nil && len(ms) > 0
	})
	if m := ms[0]; m.Players[0].Score != 0 || m.Players[1].Score != 0 || !m.Forfeit {
		t.Fatalf("recorded %+v; want a 0–0 walk-out", m)
	}
	res := sshtest.Run(t, h.Addr, "ann", key, "matches ann")
	lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	if res.Code != 0 || len(lines) != 2 || !strings.Contains(lines[1], "abandoned") || strings.Contains(lines[1], "2nd") {
		t.Fatalf("matches ann after a 0–0 walk-out: %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
}
