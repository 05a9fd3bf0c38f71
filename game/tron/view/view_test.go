package view

import (
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/hinshun/vt10x"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/tron"
)

func headC(slot int) vt10x.Color  { return vt10x.Color(head256[slot]) }
func trailC(slot int) vt10x.Color { return vt10x.Color(trail256[slot]) }

// At 80×24 the camera follows the viewer's head: it is at the centre, the
// other riders in view show where the rules put them, and near a wall the
// camera stops at the border instead of centring.
func TestFollowAt80x24(t *testing.T) {
	m := newMatch(t, 1)
	s := m.steps(40)
	for _, slot := range alive(s) {
		tm := newTerm(80, 24, colorprofile.ANSI256)
		v := New(base, colorprofile.ANSI256)
		v.SetCamera(Follow(slot))
		tm.paint(t, v, s, Viewer{Slot: slot})
		c := s.Cycles[slot]
		// The arena cell at the top left of the screen, border included.
		x0 := min(max(int(c.X)-40, -1), 121-80)
		y0 := min(max(int(c.Y)/2-12, -1), 37-24)
		col0, row0 := -x0, -y0
		if got := tm.at(col0, row0, int(c.X), int(c.Y)); got != headC(slot) {
			t.Errorf("slot %d at %d,%d: head cell shows colour %d, want %d", slot, c.X, c.Y, got, headC(slot))
		}
		if x0 > -1 && x0 < 121-80 && (col0+int(c.X) < 39 || col0+int(c.X) > 40) {
			t.Errorf("slot %d: head at column %d, not centred", slot, col0+int(c.X))
		}
		// Behind the head, its trail.
		dx, dy := tron.Delta(c.Heading)
		if got := tm.at(col0, row0, int(c.X)-dx, int(c.Y)-dy); got != trailC(slot) {
			t.Errorf("slot %d: cell behind the head shows %d, want its trail %d", slot, got, trailC(slot))
		}
		for _, o := range alive(s) {
			oc := s.Cycles[o]
			col, row := col0+int(oc.X), row0+int(oc.Y)/2
			if col >= 0 && col < 80 && row >= 0 && row < 24 {
				if got := tm.at(col0, row0, int(oc.X), int(oc.Y)); got != headC(o) {
					t.Errorf("following %d: slot %d's head shows %d, want %d", slot, o, got, headC(o))
				}
			}
		}
		// The border shows exactly where the camera reaches it.
		if x0 == -1 {
			for row := max(row0, 0); row < min(row0+36, 24); row++ {
				if r := tm.char(0, row); r != '│' {
					t.Errorf("slot %d: left border row %d is %q", slot, row, r)
				}
			}
		} else if r := tm.char(0, 12); r == '│' {
			t.Errorf("slot %d: a border at column 0 with the camera at x %d", slot, x0)
		}
	}
}

// A free camera pans up to the border and no further: at the corners the
// border's corners are at the screen's corners, and Center reports the
// clamped position.
func TestFreeCameraClampsAtTheEdges(t *testing.T) {
	m := newMatch(t, 2)
	s := m.steps(10)
	tm := newTerm(80, 24, colorprofile.ANSI256)
	v := New(base, colorprofile.ANSI256)
	v.SetCamera(Free(-50, -50))
	tm.paint(t, v, s, Viewer{Slot: -1})
	if r := tm.char(0, 0); r != '┌' {
		t.Errorf("top left is %q, want ┌", r)
	}
	if r := tm.char(79, 0); r != '─' {
		t.Errorf("top row is %q, want ─", r)
	}
	if x, y := v.Center(); x != 39 || y != 22 {
		t.Errorf("Center after panning past the top left = %d,%d, want 39,22", x, y)
	}
	v.SetCamera(Free(500, 500))
	tm.paint(t, v, s, Viewer{Slot: -1})
	if r := tm.char(79, 23); r != '┘' {
		t.Errorf("bottom right is %q, want ┘", r)
	}
	if r := tm.char(0, 23); r != '─' {
		t.Errorf("bottom row is %q, want ─", r)
	}
}

// At 200×50 the whole arena shows at full resolution, centred, with its
// border, and every rider is where the rules put it.
func TestWholeAt200x50(t *testing.T) {
	m := newMatch(t, 3)
	s := m.steps(120)
	tm := newTerm(200, 50, colorprofile.ANSI256)
	v := New(base, colorprofile.ANSI256)
	tm.paint(t, v, s, Viewer{Slot: 0})
	col0, row0 := 40, 7 // (200-120)/2, (50-36)/2
	corners := [4]struct {
		col, row int
		r        rune
	}{{col0 - 1, row0 - 1, '┌'}, {col0 + 120, row0 - 1, '┐'}, {col0 - 1, row0 + 36, '└'}, {col0 + 120, row0 + 36, '┘'}}
	for _, c := range corners {
		if r := tm.char(c.col, c.row); r != c.r {
			t.Errorf("border corner at %d,%d is %q, want %q", c.col, c.row, r, c.r)
		}
	}
	if len(alive(s)) < 2 {
		t.Fatalf("only %d riders left: the script no longer exercises the view", len(alive(s)))
	}
	for y := range s.Height {
		for x := range s.Width {
			o := s.At(x, y)
			want := vt10x.DefaultBG
			switch {
			case o < 0:
			case s.Cycles[o].Alive && int(s.Cycles[o].X) == x && int(s.Cycles[o].Y) == y:
				want = headC(o)
			default:
				want = trailC(o)
			}
			if got := tm.at(col0, row0, x, y); got != want {
				t.Fatalf("arena cell %d,%d (owner %d) shows colour %d, want %d", x, y, o, got, want)
			}
		}
	}
}

// A turn is drawn in the frame after the key, before the room has it, at
// the cell the rules then move the cycle to.
func TestPredictionDrawsTheTurnAtOnce(t *testing.T) {
	m := newMatch(t, 4)
	s := m.steps(30)
	for s.MoveIn < 2 { // a frame between moves: the room has not moved yet
		m.g.Step(nil)
		s = m.snap()
	}
	const me = 2
	c := s.Cycles[me]
	if !c.Alive {
		t.Fatal("slot 2 crashed in the script")
	}
	turn := tron.Left
	if c.Heading == tron.Left || c.Heading == tron.Right {
		turn = tron.Up
	}
	tm := newTerm(80, 24, colorprofile.ANSI256)
	v := New(base, colorprofile.ANSI256)
	v.SetCamera(Follow(me))
	tm.paint(t, v, s, Viewer{Slot: me})
	x0, y0 := min(max(int(c.X)-40, -1), 41), min(max(int(c.Y)/2-12, -1), 13)
	dx, dy := tron.Delta(turn)
	px, py := int(c.X)+dx, int(c.Y)+dy
	if got := tm.at(-x0, -y0, px, py); got == headC(me) {
		t.Fatalf("the turned-to cell %d,%d shows the head before the key", px, py)
	}

	tm.paint(t, v, s, Viewer{Slot: me, Pending: []int8{turn}})
	if got := tm.at(-x0, -y0, px, py); got != headC(me) {
		t.Fatalf("after the key the cell %d,%d shows %d, want the head %d", px, py, got, headC(me))
	}
	if got := tm.at(-x0, -y0, int(c.X), int(c.Y)); got != trailC(me) {
		t.Errorf("the cell the head leaves shows %d, want the trail %d", got, trailC(me))
	}

	// The room takes the turn (acknowledged: no longer pending) but has
	// not moved yet: the turn stays drawn, nothing flickers back.
	m.g.Step([]game.Input{{Slot: me, Seq: 1, Action: turn}})
	if acked := m.snap(); acked.Cycles[me].X != c.X || acked.Cycles[me].Y != c.Y {
		t.Fatal("the cycle moved on the tick that took the turn; the script needs a frame between")
	} else {
		tm.paint(t, v, acked, Viewer{Slot: me})
		if got := tm.at(-x0, -y0, px, py); got != headC(me) {
			t.Errorf("once the room has the turn, before the move, the cell %d,%d shows %d, want the head", px, py, got)
		}
	}

	// The room moves: the head is where it was drawn.
	for m.snap().Tick < s.Tick+uint64(s.MoveIn) {
		m.g.Step(nil)
	}
	s2 := m.snap()
	if got := s2.Cycles[me]; int(got.X) != px || int(got.Y) != py {
		t.Fatalf("the rules moved the cycle to %d,%d; the prediction drew %d,%d", got.X, got.Y, px, py)
	}
	tm.paint(t, v, s2, Viewer{Slot: me})
	x0, y0 = min(max(px-40, -1), 41), min(max(py/2-12, -1), 13)
	if got := tm.at(-x0, -y0, px, py); got != headC(me) {
		t.Errorf("after the move the head cell shows %d, want %d", got, headC(me))
	}
}

// Without colour every rider's head is its own letter, the viewer's in
// bold, and the trails use patterns of their own.
func TestNoColourTellsRidersApart(t *testing.T) {
	m := newMatch(t, 5)
	s := m.steps(30)
	tm := newTerm(200, 50, colorprofile.ASCII)
	v := New(base, colorprofile.ASCII)
	tm.paint(t, v, s, Viewer{Slot: 3})
	seen := map[rune]bool{}
	for _, i := range alive(s) {
		c := s.Cycles[i]
		g := tm.vt.Cell(40+int(c.X), 7+int(c.Y)/2)
		if g.Char != rune(headLetters[i]) {
			t.Errorf("slot %d's head shows %q, want %q", i, g.Char, headLetters[i])
		}
		if bold := g.Mode&4 != 0; bold != (i == 3) {
			t.Errorf("slot %d's head bold = %v (the viewer is 3)", i, bold)
		}
		seen[g.Char] = true
	}
	if len(seen) != 8 {
		t.Errorf("%d distinct head glyphs, want 8: %v", len(seen), seen)
	}
	for i, g := range trailGlyphs {
		for j := range i {
			if trailGlyphs[j] == g {
				t.Errorf("slots %d and %d share the trail glyph %q", j, i, g)
			}
		}
	}
}

// Scaled down, the whole arena still shows every riding head in its colour
// and the border around it.
func TestScaledWholeKeepsEveryHead(t *testing.T) {
	m := newMatch(t, 6)
	var s *tron.Snapshot
	for _, size := range [][2]int{{80, 24}, {60, 20}, {30, 10}, {119, 50}} {
		for step := range 8 {
			s = m.steps(25 + step*7)
			tm := newTerm(size[0], size[1], colorprofile.ANSI256)
			v := New(base, colorprofile.ANSI256)
			tm.paint(t, v, s, Viewer{Slot: -1})
			got := map[vt10x.Color]bool{}
			for row := range size[1] {
				for col := range size[0] {
					got[tm.half(col, row, true)] = true
					got[tm.half(col, row, false)] = true
				}
			}
			for _, i := range alive(s) {
				if !got[headC(i)] {
					t.Errorf("%dx%d at tick %d: slot %d's head is not shown", size[0], size[1], s.Tick, i)
				}
			}
			if r := tm.char(0, 0); r != '┌' && size[0] < 120 {
				// Scaled regions put the border in the corner or centre
				// the arena inside it.
				found := false
				for row := range size[1] {
					for col := range size[0] {
						found = found || tm.char(col, row) == '┌'
					}
				}
				if !found {
					t.Errorf("%dx%d: no border corner", size[0], size[1])
				}
			}
		}
	}
}

// Painting frame after frame, redrawing only what changed, shows the same
// as painting the last frame from scratch, in every camera and profile.
func TestIncrementalFramesMatchAFullPaint(t *testing.T) {
	for _, c := range []struct {
		name string
		w, h int
		cam  Camera
		prof colorprofile.Profile
	}{
		{"follow 80x24", 80, 24, Follow(0), colorprofile.ANSI256},
		{"whole 200x50", 200, 50, Whole(), colorprofile.TrueColor},
		{"whole scaled 80x24", 80, 24, Whole(), colorprofile.ANSI},
		{"follow no colour", 80, 24, Follow(5), colorprofile.ASCII},
		{"free 100x30", 100, 30, Free(30, 20), colorprofile.ANSI256},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newMatch(t, 7)
			inc := newTerm(c.w, c.h, c.prof)
			v := New(base, c.prof)
			v.SetCamera(c.cam)
			var pending []int8
			rounds := int32(0)
			for f := range 1800 {
				m.step()
				if f%2 == 1 {
					continue // 30 frames a second at 60 ticks
				}
				s := m.snap()
				rounds = s.Round
				pending = pending[:0]
				if f%14 == 0 {
					pending = append(pending, tron.Up, tron.Left)
				}
				inc.paint(t, v, s, Viewer{Slot: 0, Pending: pending})
				if f%30 != 0 {
					continue
				}
				full := newTerm(c.w, c.h, c.prof)
				fv := New(base, c.prof)
				fv.SetCamera(c.cam)
				if c.cam.Mode == ModeFollow {
					fv.cx, fv.cy, fv.placed = v.cx, v.cy, true
				}
				full.paint(t, fv, s, Viewer{Slot: 0, Pending: pending})
				for row := range c.h {
					for col := range c.w {
						if a, b := inc.vt.Cell(col, row), full.vt.Cell(col, row); a != b {
							t.Fatalf("tick %d, cell %d,%d: incremental %+v, full paint %+v", s.Tick, col, row, a, b)
						}
					}
				}
			}
			if rounds < 3 {
				t.Fatalf("the script played %d rounds: it no longer covers round resets", rounds)
			}
		})
	}
}

func TestKeys(t *testing.T) {
	for key, want := range map[string]int8{"up": tron.Up, "w": tron.Up, "down": tron.Down, "s": tron.Down,
		"left": tron.Left, "a": tron.Left, "right": tron.Right, "d": tron.Right, "D": tron.Right} {
		if got, ok := Action(key); !ok || got != want {
			t.Errorf("Action(%q) = %d, %v; want %d", key, got, ok, want)
		}
	}
	for _, key := range []string{"q", "enter", "space", "x", ""} {
		if _, ok := Action(key); ok {
			t.Errorf("Action(%q) is a game key", key)
		}
	}
}

func TestWholeSizeIsWhereTheArenaFitsWithItsBorder(t *testing.T) {
	cfg := tron.DefaultConfig(tron.Casual)
	w, h := WholeSize(cfg.Width, cfg.Height)
	if w != 122 || h != 38 {
		t.Fatalf("WholeSize = %dx%d, want 122x38", w, h)
	}
	m := newMatch(t, 12)
	s := m.steps(5)
	tm := newTerm(w, h, colorprofile.ANSI256)
	tm.paint(t, New(base, colorprofile.ANSI256), s, Viewer{Slot: -1})
	if tm.char(0, 0) != '┌' || tm.char(w-1, h-1) != '┘' {
		t.Errorf("corners at %dx%d: %q %q", w, h, tm.char(0, 0), tm.char(w-1, h-1))
	}
}

// A screen resized under an unchanged region (the board keeps its place
// when the terminal grows) is blank; the next Paint draws the board again.
func TestResizedScreenIsRepainted(t *testing.T) {
	m := newMatch(t, 13)
	s := m.steps(30)
	tm := newTerm(100, 30, colorprofile.ANSI256)
	v := New(base, colorprofile.ANSI256)
	v.SetCamera(Follow(1))
	r := Rect{2, 1, 80, 24}
	v.Paint(tm.scr, r, s, Viewer{Slot: 1})
	tm.flush(t)
	tm.scr.Resize(100, 31)
	tm.vt.Resize(100, 31)
	tm.h = 31
	v.Paint(tm.scr, r, s, Viewer{Slot: 1})
	tm.flush(t)
	shown := 0
	for row := r.Y; row < r.Y+r.H; row++ {
		for col := r.X; col < r.X+r.W; col++ {
			if tm.char(col, row) != ' ' {
				shown++
			}
		}
	}
	if shown < 20 {
		t.Fatalf("after the resize the board region shows %d non-blank cells", shown)
	}
}
