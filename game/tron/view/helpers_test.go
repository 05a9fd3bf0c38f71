package view

import (
	"math/rand/v2"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/hinshun/vt10x"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/tron"
	"github.com/termarena/termarena/screen"
)

// base is where the tests put the view's styles in the palette, past a
// few caller styles, as a session would.
const base screen.Style = 3

func palette(p colorprofile.Profile) *screen.Palette {
	specs := make([]screen.Spec, int(base)+NumStyles)
	copy(specs[base:], Specs(p))
	return screen.NewPalette(p, specs)
}

// match is a default 8-rider match driven by a bot that turns at random
// and away from what it is about to hit, as players would.
type match struct {
	g   *tron.Game
	rnd *rand.Rand
	in  []game.Input
}

func newMatch(t testing.TB, seed uint64) *match {
	t.Helper()
	cfg := tron.DefaultConfig(tron.Casual)
	cfg.RoundsToWin = 1 << 20
	m := &match{g: tron.New(cfg, seed), rnd: rand.New(rand.NewPCG(seed, 7))}
	for s := range cfg.Players {
		if err := m.g.Join(s); err != nil {
			t.Fatalf("Join(%d): %v", s, err)
		}
	}
	return m
}

func (m *match) snap() *tron.Snapshot { return m.g.Snapshot().(*tron.Snapshot) }

// step plays one tick: before each move a rider about to crash turns to a
// free side, and now and then one turns anyway.
func (m *match) step() {
	s := m.snap()
	m.in = m.in[:0]
	if s.MoveIn == 1 && s.HoldIn == 0 && s.PauseIn == 0 {
		for i := range s.Slots {
			x, y, h, ok := s.NextHead(i)
			if !ok || s.Free(x, y) && m.rnd.IntN(12) != 0 {
				continue
			}
			for _, turn := range [...]int8{tron.Up, tron.Down, tron.Left, tron.Right} {
				if turn == h || turn == tron.Reverse(h) {
					continue
				}
				c := &s.Cycles[i]
				dx, dy := tron.Delta(turn)
				if s.Free(int(c.X)+dx, int(c.Y)+dy) && (m.rnd.IntN(2) == 0 || !s.Free(x, y)) {
					m.in = append(m.in, game.Input{Slot: i, Action: turn})
					break
				}
			}
		}
	}
	m.g.Step(m.in)
}

func (m *match) steps(n int) *tron.Snapshot {
	for range n {
		m.step()
	}
	return m.snap()
}

// term is a screen written through a terminal emulator, so tests see
// what a player's terminal shows.
type term struct {
	scr  *screen.Screen
	vt   vt10x.Terminal
	w, h int
}

func newTerm(w, h int, p colorprofile.Profile) *term {
	return &term{scr: screen.New(w, h, palette(p)), vt: vt10x.New(vt10x.WithSize(w, h)), w: w, h: h}
}

// paint paints a frame with v over the whole terminal and shows it.
func (tm *term) paint(t testing.TB, v *View, s *tron.Snapshot, me Viewer) {
	t.Helper()
	v.Paint(tm.scr, Rect{0, 0, tm.w, tm.h}, s, me)
	tm.flush(t)
}

func (tm *term) flush(t testing.TB) {
	t.Helper()
	if out := tm.scr.Render(); out != nil {
		if _, err := tm.vt.Write(out); err != nil {
			t.Fatal(err)
		}
	}
}

func (tm *term) char(col, row int) rune { return tm.vt.Cell(col, row).Char }

// half is the colour of the top (or bottom) half of a cell as the
// terminal draws it, none for the background.
func (tm *term) half(col, row int, top bool) vt10x.Color {
	g := tm.vt.Cell(col, row)
	switch g.Char {
	case '█':
		return g.FG
	case '▀':
		if top {
			return g.FG
		}
	case '▄':
		if !top {
			return g.FG
		}
	default:
		return vt10x.DefaultBG
	}
	return g.BG
}

// at is the colour the terminal shows for arena cell x, y, given the
// screen cell of arena cell 0, 0 (1:1 views).
func (tm *term) at(col0, row0, x, y int) vt10x.Color {
	return tm.half(col0+x, row0+y/2, y%2 == 0)
}

func alive(s *tron.Snapshot) []int {
	var a []int
	for i := range s.Slots {
		if s.Cycles[i].Rider && s.Cycles[i].Alive {
			a = append(a, i)
		}
	}
	return a
}
