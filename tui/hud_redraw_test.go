package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// When only the header's figures change (the round trip, measured every
// 2 s; the frame rate; the watchers), only they are drawn again: not the
// seats, nor the footer. Where the seats were squeezed to fit (2v2's long
// names at 80 columns) the figures change the fit, so the header is drawn
// whole, but not the footer. The screen then shows what a header drawn
// whole shows, with all figures or some dropped, at 80 and 200 columns.
func TestHeaderFiguresRedrawOnlyThemselves(t *testing.T) {
	for _, c := range []struct {
		mode pong.Mode
		w, h int
		// most is how many cell changes new figures may take: the
		// figures are at most some 40 cells, blanked and written again;
		// a header row at most blanks and writes each of its cells. The
		// seats and the footer drawn again took 140 to 210.
		most int
	}{{pong.OneVOne, 80, 24, 80}, {pong.OneVOne, 200, 50, 80}, {pong.TwoVTwo, 80, 24, 2 * 80}} {
		var fr *game.Frame
		if c.mode == pong.TwoVTwo {
			fr = match4(t, pong.TwoVTwo)
		} else {
			_, fr = match1v1(t, 90)
		}
		fr.Phase = game.Finished // the board stands still
		rtt, watchers := 12*time.Millisecond, 0
		labels := func(slot int) string { return []string{"1520?", "1480?", "1510?", "1490?"}[slot%4] }
		cfg := func() RoomViewConfig {
			return RoomViewConfig{Room: newFakeRoom(fr), Me: "a", Slot: 0, Out: &countWriter{}, Title: "r1 · casual",
				Profile: colorprofile.ANSI256, Width: c.w, Height: c.h, Labels: labels,
				RTT: func() time.Duration { return rtt }, Watchers: func() int { return watchers }}
		}
		v := newTestRoomView(cfg())
		v.setFrame(fr, time.Now())
		v.draw()
		for _, step := range []struct {
			rtt      time.Duration
			watchers int
		}{{13 * time.Millisecond, 0}, {140 * time.Millisecond, 0}, {140 * time.Millisecond, 12345}, {2 * time.Millisecond, 3}, {0, 0}} {
			rtt, watchers = step.rtt, step.watchers
			before := v.scr.Changes()
			v.draw()
			changed := v.scr.Changes() - before
			whole := newTestRoomView(cfg())
			whole.setFrame(fr, time.Now())
			whole.draw()
			for y := range c.h {
				for x := range c.w {
					if got, want := v.scr.Get(x, y), whole.scr.Get(x, y); got != want {
						t.Fatalf("%v %dx%d, rtt %v, %d watching: cell %d,%d is %q, a header drawn whole has %q\n%s",
							c.mode, c.w, c.h, rtt, watchers, x, y, got.R, want.R, screenRow(v, 0))
					}
				}
			}
			if changed > uint64(c.most) {
				t.Errorf("%v %dx%d, rtt %v, %d watching: %d cell changes to show new figures (the header and footer drawn again)\n%s",
					c.mode, c.w, c.h, rtt, watchers, changed, screenRow(v, 0))
			}
		}
	}
}

// screenRow is row y of v's screen as text.
func screenRow(v *RoomView, y int) string {
	var b []rune
	w, _ := v.scr.Size()
	for x := range w {
		if c := v.scr.Get(x, y); c.R > 0 {
			b = append(b, c.R)
		}
	}
	return string(b)
}

// The light-cycle header (a game without a scoreboard: seats, the match
// line when it fits, the figures) does the same: new figures are drawn
// alone while the match line stays where it was; at 80 columns, where
// the match line is in the footer, and at 200, where it is in the header;
// figures that move the match line draw both again.
// Whatever is drawn, the screen is the one a header drawn whole makes.
func TestPlainHeaderFiguresRedrawOnlyThemselves(t *testing.T) {
	_, fr := tronFrame(t, 30)
	fr.Phase = game.Finished // the arena stands still
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		clock := time.Unix(1000, 0)
		rtt, watchers := 12*time.Millisecond, 0
		view := func() *RoomView {
			v, _, _ := tronRoomView(fr, 0, size[0], size[1], colorprofile.ANSI256, &clock)
			v.cfg.RTT = func() time.Duration { return rtt }
			v.cfg.Watchers = func() int { return watchers }
			return v
		}
		v := view()
		v.draw()
		for _, step := range []struct {
			rtt      time.Duration
			watchers int
		}{{13 * time.Millisecond, 0}, {140 * time.Millisecond, 0}, {140 * time.Millisecond, 12345}, {2 * time.Millisecond, 3}, {0, 0}} {
			rtt, watchers = step.rtt, step.watchers
			before, lineWas := v.scr.Changes(), strings.Contains(screenRow(v, 0), "round")
			v.draw()
			changed := v.scr.Changes() - before
			whole := view()
			whole.draw()
			for y := range size[1] {
				for x := range size[0] {
					if got, want := v.scr.Get(x, y), whole.scr.Get(x, y); got != want {
						t.Fatalf("%dx%d, rtt %v, %d watching: cell %d,%d is %q, a header drawn whole has %q\n%s",
							size[0], size[1], rtt, watchers, x, y, got.R, want.R, screenRow(v, 0))
					}
				}
			}
			if moved := strings.Contains(screenRow(v, 0), "round") != lineWas; changed > 80 && !moved {
				// (Figures that move the match line between the header and
				// the footer change both.)
				t.Errorf("%dx%d, rtt %v, %d watching: %d cell changes to show new figures (the header and footer drawn again)\n%s",
					size[0], size[1], rtt, watchers, changed, screenRow(v, 0)+"\n"+screenRow(v, size[1]-1))
			}
		}
	}
}

// The light-cycle header's match line keeps a gap before the figures, or
// goes to the footer: at 80 columns the tour saw "2 ridingrtt <1ms", the
// line's fit measured from the seats less the spaces they end with.
func TestPlainHeaderMatchLineKeepsItsGap(t *testing.T) {
	_, fr := tronFrame(t, 30)
	for slot, name := range []string{"player-b6d2", "player-f171", "player-08ca"} {
		fr.Seats[slot].Player.Name = name
	}
	for w := 70; w <= 140; w++ {
		for _, rtt := range []time.Duration{12 * time.Millisecond, 500 * time.Microsecond, 140 * time.Millisecond} {
			clock := time.Unix(1000, 0)
			v, _, _ := tronRoomView(fr, 0, w, 24, colorprofile.ANSI256, &clock)
			v.cfg.RTT = func() time.Duration { return rtt }
			v.draw()
			row := strings.TrimRight(screenRow(v, 0), " ")
			_, after, ok := strings.Cut(row, "riding")
			if ok && after != "" && !strings.HasPrefix(after, "  ") {
				t.Fatalf("%d columns, rtt %v: the match line runs into the figures:\n%q", w, rtt, row)
			}
		}
	}
}
