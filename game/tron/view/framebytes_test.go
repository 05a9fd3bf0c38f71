package view

import (
	"slices"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// Bytes per frame against the least any cell-diff renderer could send for
// the same change, priced from what a terminal emulator shows before and
// after the frame (not from our renderer). The model, per changed cell in
// reading order: the cheapest way to get the cursor there (absolute CUP,
// forward CUF, or, on the same row, reprinting the cells in between when
// they are in the current pen), the shortest SGR from the current pen (a
// reset-and-set, or adding what differs when nothing must be removed),
// and the character. A frame starts with cursor and pen unknown.

type cellPen struct {
	fg, bg vt10x.Color
	bold   bool
}

func penAt(g vt10x.Glyph) cellPen { return cellPen{g.FG, g.BG, g.Mode&4 != 0} }

func colourLen(c vt10x.Color, fg bool) int {
	switch {
	case c == vt10x.DefaultFG || c == vt10x.DefaultBG, c < 8:
		return 2 // 39/49, 3x/4x
	case c < 16:
		if fg {
			return 2 // 9x
		}
		return 3 // 10x
	case c < 256:
		return 5 + len(strconv.Itoa(int(c))) // 38;5;N
	}
	return 5 + len(strconv.Itoa(int(c>>16&255))) + len(strconv.Itoa(int(c>>8&255))) + len(strconv.Itoa(int(c&255))) + 2
}

func sgrLen(params ...int) int {
	n, k := 3, 0 // ESC [ … m
	for _, p := range params {
		if p > 0 {
			n += p
			k++
		}
	}
	if k == 0 {
		return 0
	}
	return n + k - 1
}

func penCost(from, to cellPen, known bool) int {
	if known && from == to {
		return 0
	}
	b := 0
	if to.bold {
		b = 1
	}
	fg, bg := 0, 0
	if to.fg != vt10x.DefaultFG {
		fg = colourLen(to.fg, true)
	}
	if to.bg != vt10x.DefaultBG {
		bg = colourLen(to.bg, false)
	}
	best := sgrLen(1, b, fg, bg) // "0" first
	if known && (!from.bold || to.bold) {
		b, fg, bg = 0, 0, 0
		if to.bold && !from.bold {
			b = 1
		}
		if from.fg != to.fg {
			fg = colourLen(to.fg, true)
		}
		if from.bg != to.bg {
			bg = colourLen(to.bg, false)
		}
		best = min(best, sgrLen(b, fg, bg))
	}
	return best
}

func cupLen(x, y int) int {
	n := 3 + len(strconv.Itoa(y+1))
	if x > 0 {
		n += 1 + len(strconv.Itoa(x+1))
	}
	return n
}

func cells(vt vt10x.Terminal, w, h int) []vt10x.Glyph {
	g := make([]vt10x.Glyph, 0, w*h)
	for y := range h {
		for x := range w {
			g = append(g, vt.Cell(x, y))
		}
	}
	return g
}

// idealBytes prices turning screen a into b (w cells a row).
func idealBytes(a, b []vt10x.Glyph, w int) int {
	n, cx, cy := 0, -1, -1
	var pen cellPen
	known := false
	for i := range b {
		if a[i] == b[i] {
			continue
		}
		x, y := i%w, i/w
		if cx != x || cy != y {
			move := cupLen(x, y)
			if cy == y && cx >= 0 && x > cx {
				cuf := 3
				if x-cx > 1 {
					cuf += len(strconv.Itoa(x - cx))
				}
				move = min(move, cuf)
				reprint := 0
				for gx := cx; gx < x && reprint >= 0; gx++ {
					if g := b[y*w+gx]; known && penAt(g) == pen {
						reprint += utf8.RuneLen(g.Char)
					} else {
						reprint = -1
					}
				}
				if reprint >= 0 {
					move = min(move, reprint)
				}
			}
			n += move
		}
		to := penAt(b[i])
		n += penCost(pen, to, known) + utf8.RuneLen(b[i].Char)
		pen, known = to, true
		cx, cy = x+1, y
	}
	return n
}

func TestFrameBytesAgainstTheIdealDiff(t *testing.T) {
	frames := recorded(t, 1200)
	for _, c := range benchCases {
		t.Run(c.name, func(t *testing.T) {
			tm := newTerm(c.w, c.h, c.prof)
			v := New(base, c.prof)
			v.SetCamera(c.cam)
			tm.paint(t, v, frames[0], Viewer{Slot: 0})
			var ours, ideal int
			var ratios []float64
			for _, s := range frames[1:] {
				before := cells(tm.vt, c.w, c.h)
				v.Paint(tm.scr, Rect{0, 0, c.w, c.h}, s, Viewer{Slot: 0})
				out := tm.scr.Render()
				if _, err := tm.vt.Write(out); err != nil {
					t.Fatal(err)
				}
				id := idealBytes(before, cells(tm.vt, c.w, c.h), c.w)
				ours += len(out)
				ideal += id
				if id > 0 {
					ratios = append(ratios, float64(len(out))/float64(id))
				}
			}
			slices.Sort(ratios)
			n := float64(len(frames) - 1)
			total := float64(ours) / float64(ideal)
			t.Logf("%d frames: ours %.1f B/frame, ideal %.1f B/frame: total %.3f×, per changed frame p50 %.3f× p95 %.3f× max %.3f×",
				len(frames)-1, float64(ours)/n, float64(ideal)/n, total,
				ratios[len(ratios)/2], ratios[len(ratios)*95/100], ratios[len(ratios)-1])
			// The screen's renderer adds its save/restore cursor wrap
			// (4 bytes) to each frame and does not reprint to move: a
			// small constant over the ideal, which the budget allows.
			if total > 1.2 {
				t.Errorf("bytes per frame are %.3f× the ideal", total)
			}
		})
	}
}
