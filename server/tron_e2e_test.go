package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/game/tron"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// lightCycles serves Pong and light cycles; cfg tunes the light-cycle
// config of both modes.
func lightCycles(cfg func(*tron.Config)) lobby.RoomsConfig {
	return lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: time.Second, Grace: 20 * time.Second},
		Games: game.Catalog{pong.Kind{}, tron.Kind{Configure: func(m tron.Mode) tron.Config {
			c := tron.DefaultConfig(m)
			cfg(&c)
			return c
		}}},
	}
}

// Three riders at 80×24, 120×40 and 200×50 share one arena: each sees
// the others' cycles, the smaller terminals through a camera that follows
// their own cycle and the largest whole; a turn shows on the rider's
// screen; a watcher has an overview, follows a rider and pans a free
// camera.
func TestLightCyclesThreeRidersAndAWatcher(t *testing.T) {
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, lightCycles(func(c *tron.Config) { c.RoundsToWin = 5 }))
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "")
	ann.WaitFor(wait, "Welcome, ann!")
	ann.Type("c")
	ann.WaitFor(wait, "New room", "game: Pong", "g for Light cycles")
	ann.Type("g")
	ann.WaitFor(wait, "game: Light cycles", "mode: tron")
	ann.Type("\r")
	ann.WaitFor(wait, "r1 · tron · casual", "seat 1  ann", "(you)", "seat 8  (free)")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", sshtest.NewKey(t))), 120, 40, "join r1")
	ben.WaitFor(wait, "seat 2  ben", "(you)")
	cy := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("cy", sshtest.NewKey(t))), 200, 50, "join r1")
	cy.WaitFor(wait, "seat 3  cy", "(you)")
	for _, p := range []*sshtest.Term{ann, ben, cy} {
		p.Type("r")
	}
	room, err := h.Rooms.Find("r1")
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the riders to ride", wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Playing })
	for _, p := range []*sshtest.Term{ann, ben, cy} {
		p.WaitFor(wait, "ann 0", "ben 0", "cy 0", "round 1 · first to 5", "arrows/WASD turn")
	}
	// The whole arena (and its four corners) on the largest terminal only.
	cy.WaitFor(wait, "┌", "┐", "└", "┘")
	for _, p := range []*sshtest.Term{ann, ben} {
		if s := p.Screen(); strings.Contains(s, "┌") && strings.Contains(s, "┘") {
			t.Fatalf("a terminal smaller than the arena shows it whole:\n%s", s)
		}
	}
	// Every rider's cycle is on the whole arena.
	heads := func(tm *sshtest.Term) int {
		n := 0
		for _, r := range tm.Screen() {
			if r == '▀' || r == '▄' || r == '█' {
				n++
			}
		}
		return n
	}
	waitUntil(t, "three cycles on cy's screen", wait, func() bool { return heads(cy) >= 3 })

	// Ann turns: her screen changes at once, and the room takes the turn.
	before := ann.Screen()
	ann.Type("a")
	waitUntil(t, "ann's turn on her screen", wait, func() bool { return ann.Screen() != before })
	waitUntil(t, "the room to take ann's turn", wait, func() bool {
		fr, _ := room.Latest()
		s, ok := fr.State.(*tron.Snapshot)
		return ok && (s.Cycles[0].Heading == tron.Left || s.Round > 1)
	})

	// The frames are counted as light-cycle frames, and the room as one.
	if g := h.Metrics.Snapshot().Games["tron"]; g.Rooms != 1 || g.FramesWritten == 0 || h.Metrics.Snapshot().Games["pong"].FramesWritten != 0 {
		t.Fatalf("telemetry by game: %+v", h.Metrics.Snapshot().Games)
	}

	w := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("wat", sshtest.NewKey(t))), 80, 24, "spectate r1")
	// The overview: the arena scaled down to fit, border and all.
	w.WaitFor(wait, "1 watching", "┌", "┘", "tab/1-8 follow", "f/arrows camera")
	w.Type("2")
	w.WaitFor(wait, "▸ben")
	waitUntil(t, "the camera to follow ben, full size", wait, func() bool { s := w.Screen(); return !strings.Contains(s, "┘") || !strings.Contains(s, "┌") })
	w.Type("f")
	following := w.Screen()
	for range 3 {
		w.Type("\x1b[D") // left arrow: pan
		time.Sleep(50 * time.Millisecond)
	}
	waitUntil(t, "the free camera to pan", wait, func() bool { return w.Screen() != following })
}

// Four players queue for tron-ffa: a ranked match is formed, played to
// the end with rating changes on the results and in profile --json, and
// its replay plays to the end.
func TestRankedLightCyclesThroughTheQueue(t *testing.T) {
	rc := lightCycles(func(c *tron.Config) { c.Width, c.Height, c.RoundsToWin, c.PauseTicks, c.ReadyTicks = 60, 30, 1, 30, 30 })
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	var terms []*sshtest.Term
	annConn := sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t)))
	for _, name := range []string{"ann", "ben", "cy", "dee"} {
		c := annConn
		if name != "ann" {
			c = sshtest.Dial(t, h.Addr, sshtest.Config(name, sshtest.NewKey(t)))
		}
		terms = append(terms, sshtest.Open(t, c, 80, 24, "play tron-ffa"))
	}
	// Matched and played to the end (a round or two on a small arena):
	// every rider's results show all four with their rating changes.
	for _, tm := range terms {
		tm.WaitFor(40*time.Second, "game over", "1. ", "+", "-", "n back to queue", "ann", "ben", "cy", "dee")
	}
	r := sshtest.RunOn(t, annConn, "profile --json")
	var prof struct {
		Ratings []struct {
			Mode      string `json:"mode"`
			Games     int    `json:"games"`
			Deviation int    `json:"deviation"`
		} `json:"ratings"`
		Matches []struct {
			ID   uint64 `json:"id"`
			Mode string `json:"mode"`
		} `json:"matches"`
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &prof) != nil || len(prof.Ratings) != 1 || prof.Ratings[0].Mode != "tron-ffa" ||
		prof.Ratings[0].Games != 1 || len(prof.Matches) != 1 || prof.Matches[0].Mode != "tron-ffa" {
		t.Fatalf("profile --json: %d %s %+v", r.Code, r.Stdout, prof)
	}
	// Four newcomers' free-for-all is three pairwise games each: 500 → ± 301,
	// still provisional, so nobody is on the leaderboard yet.
	if prof.Ratings[0].Deviation != 301 {
		t.Fatalf("ann's deviation after one free-for-all: %d, want 301", prof.Ratings[0].Deviation)
	}
	if r := sshtest.RunOn(t, annConn, "leaderboard --mode tron-ffa"); r.Code != 0 || !strings.Contains(r.Stdout, "no established tron-ffa ratings yet") {
		t.Fatalf("leaderboard: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	rep := sshtest.Open(t, annConn, 200, 50, "replay 1")
	rep.WaitFor(40*time.Second, "replay over", "game over")
	if s := rep.Screen(); strings.Contains(s, "diverged") {
		t.Fatalf("the replay diverged:\n%s", s)
	}
}
