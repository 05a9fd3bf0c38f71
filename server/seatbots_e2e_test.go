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

// shortPong plays Pong to one point.
func shortPong() game.Catalog {
	return game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
		c := pong.DefaultConfig(m)
		c.PointsToWin = 1
		return c
	}}}
}

// TestBotsFillACasualRoomsSeatsE2E: in a casual 2v2 room ann and bob sit
// down, and ann's b then 3 seats level-3 bots in the two free seats. The
// match they play is practice (practice-2v2, unrated, its replay kept,
// the bots no players of the server), and the bots are not online. When
// carol then sits down between matches a bot gives up its seat to her.
func TestBotsFillACasualRoomsSeatsE2E(t *testing.T) {
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: 500 * time.Millisecond}, Games: shortPong()})
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 100, 30, "")
	ann.WaitFor(wait, "Welcome, ann!")
	ann.Type("c")
	ann.WaitFor(wait, "mode: 1v1")
	ann.Type("2")
	ann.WaitFor(wait, "mode: 2v2")
	ann.Type("\r")
	ann.WaitFor(wait, "r1 · 2v2 · casual", "b bots")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 30, "join r1")
	bob.WaitFor(wait, "r1 · 2v2 · casual", "ann", "(you)")
	ann.Type("b")
	ann.WaitFor(wait, "Bots in the free seats: which level")
	ann.Type("3")
	ann.WaitFor(wait, "bot-L3", "ready ✓")
	room, err := h.Rooms.Find("r1")
	if err != nil {
		t.Fatal(err)
	}
	fr, _ := room.Latest()
	bots := 0
	for _, s := range fr.Seats {
		if s.Taken && s.Player.Name == "bot-L3" {
			bots++
		}
	}
	if bots != 2 {
		t.Fatalf("%d bots seated, want the two free seats: %+v", bots, fr.Seats)
	}
	who := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("dan", sshtest.NewKey(t))), 80, 24, "who")
	if _, err := who.Wait(wait); err != nil || strings.Contains(who.Screen(), "bot") {
		t.Fatalf("who lists a bot (%v):\n%s", err, who.Screen())
	}
	ann.Type("r")
	bob.Type("r")
	ann.WaitFor(time.Minute, "game over")
	var ms []store.MatchRecord
	waitUntil(t, "the match to be recorded", wait, func() bool {
		ms, err = h.Store.RecentMatches(context.Background(), 10, nil)
		return err == nil && len(ms) > 0
	})
	m := ms[0]
	if len(ms) != 1 || m.Mode != "practice-2v2" || m.Ranked || !m.Replay || len(m.Players) != 4 {
		t.Fatalf("recorded %+v; want one unrated practice-2v2 of four with its replay", ms)
	}
	for _, p := range m.Players {
		if strings.HasPrefix(p.Name, "bot-") && p.Fingerprint != "" {
			t.Errorf("a bot was recorded as a player of the server: %+v", p)
		}
		if p.RatingBefore != p.RatingAfter || p.Left {
			t.Errorf("%s: rating moved or marked left in practice: %+v", p.Name, p)
		}
	}
	for _, mode := range []string{"pong-2v2", "practice-2v2", "casual-2v2"} {
		if lb, err := h.Store.Leaderboard(context.Background(), mode, 0, 10); err != nil || len(lb) != 0 {
			t.Errorf("leaderboard %s after practice: %v, %v", mode, lb, err)
		}
	}

	// Between matches a person takes a bot's seat.
	carol := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("carol", sshtest.NewKey(t))), 100, 30, "join r1")
	carol.WaitFor(wait, "r1 · 2v2 · casual", "carol", "r rematch")
	waitUntil(t, "one bot left", wait, func() bool {
		fr, _ := room.Latest()
		n := 0
		for _, s := range fr.Seats {
			if s.Taken && s.Player.Name == "bot-L3" {
				n++
			}
		}
		return n == 1
	})
}

// With bots off (--bots=false) the waiting screen offers no b, and b
// seats nobody.
func TestNoBotsForCasualRoomsWhenOff(t *testing.T) {
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, lobby.RoomsConfig{MaxBotRooms: -1})
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 100, 30, "")
	ann.WaitFor(wait, "Welcome, ann!")
	ann.Type("c")
	ann.WaitFor(wait, "mode: 1v1")
	ann.Type("\r")
	ann.WaitFor(wait, "r1 · 1v1 · casual", "alone: r warm up")
	if strings.Contains(ann.Screen(), "b bots") {
		t.Fatalf("bots are off and the waiting screen offers them:\n%s", ann.Screen())
	}
	ann.Type("b")
	ann.Type("3")
	time.Sleep(300 * time.Millisecond) // the keys have been read
	room, err := h.Rooms.Find("r1")
	if err != nil {
		t.Fatal(err)
	}
	if fr, _ := room.Latest(); fr.Seats[1].Taken {
		t.Fatalf("a bot sat down with bots off: %+v", fr.Seats[1])
	}
}

// A person who walks out of a practice match mid-play ends it as it
// stood: recorded as practice with nobody marked "(left)" (before, the
// person was, as if they had forfeited a rated match).
func TestLeavingPracticeIsNoLeave(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "practice 1v1 --level 1")
	ann.WaitFor(wait, "practice, bots level 1", "bot-L1", "ready ✓")
	ann.Type("r")
	rooms, _ := h.Rooms.List()
	if len(rooms) != 1 {
		t.Fatalf("%d rooms", len(rooms))
	}
	waitUntil(t, "the practice match to be under way", wait, func() bool {
		fr, _ := rooms[0].Latest()
		return fr.Phase == game.Playing && fr.Tick > 30
	})
	ann.Type("q")
	var ms []store.MatchRecord
	var err error
	waitUntil(t, "the match to be recorded", wait, func() bool {
		ms, err = h.Store.RecentMatches(context.Background(), 10, nil)
		return err == nil && len(ms) > 0
	})
	if ms[0].Mode != "practice-1v1" {
		t.Fatalf("recorded %+v", ms[0])
	}
	for _, p := range ms[0].Players {
		if p.Left {
			t.Errorf("%s is marked as having left practice: %+v", p.Name, ms[0].Players)
		}
	}
	out := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "matches ann")
	if _, err := out.Wait(wait); err != nil || strings.Contains(out.Screen(), "(left)") || !strings.Contains(out.Screen(), "practice-1v1") {
		t.Fatalf("matches (%v):\n%s", err, out.Screen())
	}
}
