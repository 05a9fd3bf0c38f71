package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	pongview "github.com/termarena/termarena/game/pong/view"
)

// countingPong is the Pong view, counting the times the room screen has
// it repaint its whole court.
type countingPong struct {
	*pongview.Screen
	invalidated int
}

func (c *countingPong) Invalidate() { c.invalidated++; c.Screen.Invalidate() }

// A match's overlays come and go every second or so (the countdown's
// digits, "point: …", the results): each change repaints only the cells the
// old overlay covered, not the whole court. A whole 80×24 court is some
// 1,600 cells, and a court repainted per change made a session's frames
// under load about a fifth dearer than the first wave's (issue 21). What
// the player sees is the same: after every frame the court on the
// terminal is what a screen drawn afresh shows.
func TestOverlayChangesRepaintOnlyTheirCells(t *testing.T) {
	var frames []*game.Frame
	played := pointsScored(t, 900)
	for i := range 90 { // the countdown: 3, 2, 1
		fr := *played[0]
		fr.Phase, fr.Left = game.Countdown, 3*time.Second-time.Duration(i)*time.Second/30
		frames = append(frames, &fr)
	}
	frames = append(frames, played...)
	over := *played[len(played)-1]
	over.Phase, over.Result = game.Finished, &game.Result{Places: []int{1, 2}, Scores: []int{11, 3}}
	for range 30 {
		frames = append(frames, &over)
	}

	now := time.Unix(1000, 0)
	gv := &countingPong{Screen: pongview.NewScreen(viewBase, colorprofile.ANSI256)}
	out := newVT(80, 24)
	v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(frames[0]), Me: "a", Slot: 0, Out: out, Game: gv,
		Profile: colorprofile.ANSI256, Width: 80, Height: 24, Now: func() time.Time { return now }})
	changes := 0
	var shown []string
	for i, fr := range frames {
		now = now.Add(time.Second / 30)
		v.setFrame(fr, now)
		v.draw()
		if !slices.Equal(v.ov.lines, shown) {
			changes++
			shown = slices.Clone(v.ov.lines)
		}
		// The same frame on a screen of its own, painted whole.
		fresh := newVT(80, 24)
		w := newTestRoomView(RoomViewConfig{Room: newFakeRoom(fr), Me: "a", Slot: 0, Out: fresh,
			Profile: colorprofile.ANSI256, Width: 80, Height: 24, Now: func() time.Time { return now }})
		w.setFrame(fr, now)
		w.draw()
		if got, want := courtText(out, v), courtText(fresh, w); got != want {
			t.Fatalf("frame %d (%v): the court differs from one painted whole:\n%s\nwant:\n%s", i, fr.Phase, got, want)
		}
	}
	t.Logf("%d overlay changes", changes)
	if changes < 10 {
		t.Fatalf("the overlay changed %d times; the test needs the countdown, points and results", changes)
	}
	// The first frame lays the court out and paints it whole; no overlay
	// change does that again.
	if gv.invalidated > 1 {
		t.Errorf("the court was repainted whole %d times for %d overlay changes; want once, at the start", gv.invalidated, changes)
	}
}

// pointsScored plays a 1v1 in which the left paddle chases the ball and
// the right one stands still, so points come often, one frame per 1/30 s.
func pointsScored(tb testing.TB, n int) []*game.Frame {
	g := pong.New(pong.DefaultConfig(pong.OneVOne), 3)
	if g.Join(0) != nil || g.Join(1) != nil {
		tb.Fatal("join")
	}
	var out []*game.Frame
	for len(out) < n {
		for range 2 {
			s := g.Snapshot().(*pong.Snapshot)
			d := int8(0)
			if s.Ball.Y < s.Paddles[0].Pos-pong.Sub {
				d = -1
			} else if s.Ball.Y > s.Paddles[0].Pos+pong.Sub {
				d = 1
			}
			g.Step([]game.Input{{Slot: 0, Action: d}})
		}
		out = append(out, frameOf(g, 0))
		if _, over := g.Result(); over {
			break
		}
	}
	return out
}

// courtText is the court's cells on the terminal, row by row.
func courtText(out *vtWriter, v *RoomView) string {
	out.mu.Lock()
	defer out.mu.Unlock()
	x0, y0, w, h := v.boardRect()
	var b strings.Builder
	for y := y0; y < y0+h; y++ {
		for x := x0; x < x0+w; x++ {
			b.WriteRune(out.vt.Cell(x, y).Char)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
