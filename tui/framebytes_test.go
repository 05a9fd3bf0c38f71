package tui

import (
	"slices"
	"strconv"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/colorprofile"
	"github.com/hinshun/vt10x"
)

// The game screen's bytes per frame against the ideal cell diff for the
// same frame. The ideal is computed from what a terminal emulator shows
// before and after the frame, not from our renderer, with a cost model at
// least as good as any cell-diff renderer's: for every changed cell the
// cheapest of an absolute move (CUP), a forward move (CUF) or reprinting
// the unchanged cells in between when they share the pen; the shortest SGR
// that turns the current pen into the cell's (incremental, or reset and
// set); the character's UTF-8. Nothing else: no save/restore wrapper.

type grid [][]vt10x.Glyph

func snap(vt vt10x.Terminal, w, h int) grid {
	g := make(grid, h)
	for y := range h {
		g[y] = make([]vt10x.Glyph, w)
		for x := range w {
			g[y][x] = vt.Cell(x, y)
		}
	}
	return g
}

type pen struct {
	fg, bg vt10x.Color
	mode   int16
	known  bool
}

// The SGR attributes vt10x keeps in Mode: reverse 1, underline 2, bold 4,
// italic 16, blink 32 (its attr* constants); reverse is already applied to
// the stored colours, so it is not priced.
var modeParams = []struct {
	bit   int16
	param string
}{{2, "4"}, {4, "1"}, {16, "3"}, {32, "5"}}

const modeMask = 2 | 4 | 16 | 32

func colorParam(c vt10x.Color, fg bool) string {
	base, bright, ext, def := "3", "9", "38", "39"
	if !fg {
		base, bright, ext, def = "4", "10", "48", "49"
	}
	switch {
	case c == vt10x.DefaultFG || c == vt10x.DefaultBG:
		return def
	case c < 8:
		return base + strconv.Itoa(int(c))
	case c < 16:
		return bright + strconv.Itoa(int(c-8))
	case c < 256:
		return ext + ";5;" + strconv.Itoa(int(c))
	}
	return ext + ";2;" + strconv.Itoa(int(c>>16&255)) + ";" + strconv.Itoa(int(c>>8&255)) + ";" + strconv.Itoa(int(c&255))
}

func sgrBytes(params []string) int {
	if len(params) == 0 {
		return 0
	}
	n := 3 + len(params) - 1 // ESC [ … m and the separators
	for _, p := range params {
		n += len(p)
	}
	return n
}

// sgrCost is the fewest bytes of SGR that turn pen `from` into `to`.
func sgrCost(from, to pen) int {
	to.mode &= modeMask
	from.mode &= modeMask
	if from.known && from == to {
		return 0
	}
	reset := []string{"0"}
	for _, m := range modeParams {
		if to.mode&m.bit != 0 {
			reset = append(reset, m.param)
		}
	}
	if to.fg != vt10x.DefaultFG {
		reset = append(reset, colorParam(to.fg, true))
	}
	if to.bg != vt10x.DefaultBG {
		reset = append(reset, colorParam(to.bg, false))
	}
	best := sgrBytes(reset)
	if from.known && from.mode&^to.mode == 0 { // only attributes to add
		var inc []string
		for _, m := range modeParams {
			if to.mode&m.bit != 0 && from.mode&m.bit == 0 {
				inc = append(inc, m.param)
			}
		}
		if from.fg != to.fg {
			inc = append(inc, colorParam(to.fg, true))
		}
		if from.bg != to.bg {
			inc = append(inc, colorParam(to.bg, false))
		}
		best = min(best, sgrBytes(inc))
	}
	return best
}

func penOf(g vt10x.Glyph) pen { return pen{fg: g.FG, bg: g.BG, mode: g.Mode & modeMask, known: true} }

func cupBytes(x, y int) int {
	switch {
	case x == 0 && y == 0:
		return 3 // ESC [ H
	case x == 0:
		return 3 + len(strconv.Itoa(y+1))
	}
	return 4 + len(strconv.Itoa(y+1)) + len(strconv.Itoa(x+1))
}

// idealDiff is the fewest bytes (under the model above) that turn a into b,
// starting with the cursor and pen unknown, as a frame does.
func idealDiff(a, b grid) int {
	n := 0
	cx, cy := -1, -1
	cur := pen{}
	for y := range b {
		for x := range b[y] {
			if a[y][x] == b[y][x] {
				continue
			}
			move := 0
			if cx != x || cy != y {
				move = cupBytes(x, y)
				if cy == y && x > cx && cx >= 0 {
					d := x - cx
					cuf := 3
					if d > 1 {
						cuf += len(strconv.Itoa(d))
					}
					move = min(move, cuf)
					reprint, same := 0, true
					for gx := cx; gx < x; gx++ {
						if penOf(b[y][gx]) != cur {
							same = false
							break
						}
						reprint += utf8.RuneLen(b[y][gx].Char)
					}
					if same {
						move = min(move, reprint)
					}
				}
			}
			to := penOf(b[y][x])
			n += move + sgrCost(cur, to) + utf8.RuneLen(b[y][x].Char)
			cur = to
			cx, cy = x+1, y
		}
	}
	return n
}

// idealWriter feeds each frame to an emulator and prices it both ways.
type idealWriter struct {
	vt           vt10x.Terminal
	w, h         int
	ours, ideal  []int
	skipFirst    bool
	totalOurs    int
	totalIdeal   int
	framesPriced int
}

func (iw *idealWriter) WriteFrame(p []byte) error {
	before := snap(iw.vt, iw.w, iw.h)
	if _, err := iw.vt.Write(p); err != nil {
		return err
	}
	if iw.skipFirst {
		iw.skipFirst = false // the full first paint is not a typical frame
		return nil
	}
	ideal := idealDiff(before, snap(iw.vt, iw.w, iw.h))
	iw.ours = append(iw.ours, len(p))
	iw.ideal = append(iw.ideal, ideal)
	iw.totalOurs += len(p)
	iw.totalIdeal += ideal
	return nil
}

func TestGameFrameBytesAgainstTheIdealDiff(t *testing.T) {
	for _, c := range []struct {
		name  string
		w, h  int
		prof  colorprofile.Profile
		limit float64 // asserted for 80×24, the figure; logged otherwise
	}{
		{"80x24 256 colours", 80, 24, colorprofile.ANSI256, 1.2},
		{"80x24 16 colours", 80, 24, colorprofile.ANSI, 1.2},
		{"200x50 256 colours", 200, 50, colorprofile.ANSI256, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			frames := recordedFrames(t, 600)
			iw := &idealWriter{vt: vt10x.New(vt10x.WithSize(c.w, c.h)), w: c.w, h: c.h, skipFirst: true}
			now := time.Unix(1000, 0)
			v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(frames[0]), Me: "a", Slot: 0, Out: iw, Profile: c.prof,
				Width: c.w, Height: c.h, Now: func() time.Time { return now }})
			v.setFrame(frames[0], now)
			v.draw()
			for _, f := range frames[1:] {
				now = now.Add(time.Second / 30)
				v.setFrame(f, now)
				v.draw()
			}
			if len(iw.ours) < 100 {
				t.Fatalf("only %d frames written", len(iw.ours))
			}
			ratios := make([]float64, len(iw.ours))
			for i := range iw.ours {
				ratios[i] = float64(iw.ours[i]) / float64(max(iw.ideal[i], 1))
			}
			slices.Sort(ratios)
			total := float64(iw.totalOurs) / float64(iw.totalIdeal)
			p50, p95 := ratios[len(ratios)/2], ratios[len(ratios)*95/100]
			t.Logf("%d frames: ours %.1f B/frame, ideal %.1f B/frame: total %.3f×, per frame p50 %.3f× p95 %.3f× max %.3f×",
				len(iw.ours), float64(iw.totalOurs)/float64(len(iw.ours)), float64(iw.totalIdeal)/float64(len(iw.ours)),
				total, p50, p95, ratios[len(ratios)-1])
			if c.limit > 0 && (total > c.limit || p50 > c.limit) {
				t.Fatalf("bytes per frame are %.3f× the ideal in total and %.3f× per frame at the median; the budget is %.1f×", total, p50, c.limit)
			}
		})
	}
}
