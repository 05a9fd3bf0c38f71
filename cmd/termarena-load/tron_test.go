package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	tronview "github.com/termarena/termarena/game/tron/view"
)

// TestTronRoomsAgainstRealServer: light-cycle rooms of 8 over SSH
// against a real in-process server: every bot reaches a round, rides (the
// bots' turns keep them alive long enough for live seconds), and the
// verified screens are real light-cycle frames.
func TestTronRoomsAgainstRealServer(t *testing.T) {
	t.Parallel()
	addr, metrics := startServerWith(t, 1000)
	hs := httptest.NewServer(metrics.Handler())
	t.Cleanup(hs.Close)
	rep := runTool(t, "--addr", addr, "--game", "tron", "--players", "8", "--ramp", "40", "--duration", "12s", "--mode", "rooms", "--verify", "4",
		"--metrics", hs.URL+"/metrics", "--server-pid", strconv.Itoa(os.Getpid()))
	checkGame(t, rep.Termarena, 8)
	if s := rep.Termarena.Summary; s.SessionSeconds == 0 {
		t.Errorf("no live session-seconds: the bots never rode a whole second")
	}
	// One room of the eight, counted by game at scrape time.
	if g := metrics.Snapshot().Games["tron"]; g.Rooms != 1 {
		t.Errorf("tron rooms %d, want 1", g.Rooms)
	}
	rec := httptest.NewRecorder()
	metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{`termarena_game_rooms{game="tron"} 1`, `termarena_game_rooms{game="pong"} 0`} {
		if !strings.Contains(string(body), want+"\n") {
			t.Errorf("exposition lacks %q", want)
		}
	}
}

// TestTronQueueAgainstRealServer: four bots queue for ranked tron-ffa,
// the matchmaker seats them at one table, and they ride.
func TestTronQueueAgainstRealServer(t *testing.T) {
	t.Parallel()
	addr := startServer(t)
	rep := runTool(t, "--addr", addr, "--game", "tron", "--players", "4", "--ramp", "20", "--duration", "10s", "--mode", "queue", "--verify", "2")
	checkGame(t, rep.Termarena, 4)
}

// TestTronColoursMatchTheView: the riders' colours the bots read are the
// view's own at 256 colours (trails are style kind 1..8, heads 9..16).
func TestTronColoursMatchTheView(t *testing.T) {
	specs := tronview.Specs(colorprofile.ANSI256)
	for s := range 8 {
		for _, c := range []struct {
			idx  int
			want int16
		}{{s, trailColour256[s]}, {8 + s, headColour256[s]}} {
			got, ok := specs[c.idx].FG.(ansi.IndexedColor)
			if !ok || int16(got) != c.want {
				t.Errorf("slot %d style %d: view has %v, the tool reads %d", s, c.idx, specs[c.idx].FG, c.want)
			}
		}
	}
}

// tronFrame draws cells as a game frame would: ESC 7, moves, SGR, ESC 8.
func tronFrame(cells ...string) []byte {
	var b strings.Builder
	b.WriteString("\x1b7")
	for _, c := range cells {
		b.WriteString(c)
	}
	b.WriteString("\x1b8")
	return []byte(b.String())
}

func at(x, y int, sgr, s string) string {
	return fmt.Sprintf("\x1b[%d;%dH\x1b[%sm%s", y+1, x+1, sgr, s)
}

// TestCyclesSteerAwayFromATrail: a rider (slot 2, from the waiting room)
// heading up with another's trail two cells ahead turns, toward the side
// with room; the colours come from SGR as the server writes them.
func TestCyclesSteerAwayFromATrail(t *testing.T) {
	tr := newTracker(40, 12).withTron(rand.New(rand.NewPCG(1, 2)), 0)
	tr.seat = 2
	tr.phase, tr.cyc.prev = phaseWaiting, phaseWaiting
	head, trail := headColour256[2], trailColour256[2]
	wall := strings.Repeat("█", 12)
	frame := tronFrame(
		at(0, 11, "0", "arrows/WASD turn · q leave"),
		// The head in the upper half of (20,6) over its own trail in the
		// lower half, the trail below; another rider's trail fills row 5
		// from column 8 to 20, just ahead, and crosses row 6 two cells to
		// the left.
		at(20, 6, fmt.Sprintf("38;5;%d;48;5;%d", trail, head), "▄"),
		at(20, 7, fmt.Sprintf("0;38;5;%d", trail), "█"),
		at(8, 5, "0;38;5;25", wall),
		at(20, 5, "0;38;5;25", "▄"),
		at(17, 6, "0;38;5;25", "█"), // closer on the left
	)
	tr.Write(frame)
	c := tr.cyc
	if c.slot != 2 || !c.head || c.hx != 20 || c.hy != 12 {
		t.Fatalf("slot %d head %v at %d,%d; want slot 2's head at 20,12", c.slot, c.head, c.hx, c.hy)
	}
	if c.heading != dirUp {
		t.Fatalf("heading %d, want up", c.heading)
	}
	if !tr.live || !c.steerNew || c.steer != dirRight {
		t.Fatalf("live %v steer %d (new %v); want a turn right, away from the trail ahead and the closer one on the left", tr.live, c.steer, c.steerNew)
	}
}

// TestCyclesSGR: the pen follows 256-colour, basic, reset and default
// parameters, and skips truecolor's.
func TestCyclesSGR(t *testing.T) {
	c := newCycles(4, 4, nil, 0)
	for _, step := range []struct {
		p      []int
		fg, bg int16
	}{
		{[]int{38, 5, 48}, 48, colourNone}, // 48 here is a colour, not a background
		{[]int{48, 5, 203}, 48, 203},
		{[]int{39}, colourNone, 203},
		{[]int{31, 104}, 1, 12},
		{[]int{38, 2, 1, 2, 3, 1}, colourRGB, 12},
		{[]int{0}, colourNone, colourNone},
	} {
		c.sgr(step.p)
		if c.penFG != step.fg || c.penBG != step.bg {
			t.Fatalf("after %v: pen %d/%d, want %d/%d", step.p, c.penFG, c.penBG, step.fg, step.bg)
		}
	}
}
