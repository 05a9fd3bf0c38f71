package main

import (
	"strings"
	"testing"
)

// boardFrame is a whole Pong board at 80×24 as the room view draws it
// (walls in rows 2 and 22, paddles in columns 3 and 78) with the given
// HUD and footer: what a tracker or verifier sees after a full repaint.
func boardFrame(hud, foot string) []byte {
	var b strings.Builder
	b.WriteString("\x1b7\x1b[2J\x1b[1;2H" + hud + "\x1b[24;2H" + foot)
	for _, row := range []int{2, 22} {
		b.WriteString("\x1b[" + itoa(row) + ";3H\x1b[38;5;244m" + strings.Repeat("█", 76))
	}
	for _, row := range []int{9, 10, 11, 12} {
		b.WriteString("\x1b[" + itoa(row) + ";3H\x1b[38;5;39m█\x1b[" + itoa(row) + ";78H█")
	}
	b.WriteString("\x1b[0m\x1b8")
	return []byte(b.String())
}

// TestTrackerKnowsEveryResultsFooter: the results screen of a ranked
// match the other player has left offers only "n queue", and a casual
// room left alone "waiting for players"; both are the results, where a
// queue bot presses n.
func TestTrackerKnowsEveryResultsFooter(t *testing.T) {
	for _, foot := range []string{"r rematch · n queue · q leave", "n queue · q leave", "r rematch · q leave", "waiting for players · q leave"} {
		tr := newTracker(80, 24)
		tr.Write(boardFrame("▸ann 1  bob 0", "w/s ↑/↓ move · q leave"))
		if tr.phase != phasePlay {
			t.Fatalf("phase %v on the board; want play", tr.phase)
		}
		tr.Write([]byte("\x1b7\x1b[24;2H" + foot + strings.Repeat(" ", 40) + "\x1b8"))
		if tr.phase != phaseFinished {
			t.Errorf("footer %q: phase %v; want finished", foot, tr.phase)
		}
	}
}

// TestTrackerFollowsAWatchersBoard: a watcher's footer has its own keys;
// its board is live while no overlay covers it.
func TestTrackerFollowsAWatchersBoard(t *testing.T) {
	tr := newTracker(80, 24)
	tr.watcher = true
	tr.Write(boardFrame("ann 1  bob 0", "watching r1 · 1v1 · casual  tab/1-2 follow · n/p next room · q back"))
	if tr.phase != phasePlay || !tr.live {
		t.Fatalf("phase %v live %v; want play, live", tr.phase, tr.live)
	}
	tr.Write([]byte("\x1b7\x1b[12;30Hmatch over · n next room · q back\x1b8"))
	if tr.live {
		t.Error("live with the match-over overlay on the board")
	}
	v := newVerifier(80, 24, "watcher0")
	v.watcher = true
	v.Write(boardFrame("ann 1  bob 0", "watching r1 · 1v1 · casual  tab/1-2 follow · n/p next room · q back"))
	if ok, why := v.check(); !ok {
		t.Errorf("a watcher's screen failed the check: %s\n%s", why, v.Screen())
	}
}
