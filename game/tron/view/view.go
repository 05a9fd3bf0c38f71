// Package view paints a light-cycle match (game/tron) for one viewer into a
// session's cell grid (screen): the game's half of the plug-in seam, next
// to the rules. It holds the palette specs per colour profile, the keys,
// the camera (follow a cycle, the whole arena, or a free camera) and the
// HUD content; the caller owns the screen, the layout around the board and
// the names.
//
// The arena is drawn with half blocks, one arena cell a column wide and
// half a row high, so the default 120×72 arena is 120×36 cells: whole on a
// 200×50 terminal, followed by the camera at 80×24. A region too small for
// the whole arena shows it scaled down, every display pixel showing a head
// if its block of arena cells holds one, so no rider disappears from an
// overview.
//
// A frame costs what changed: the view keeps the grid it last drew and,
// when the snapshot's grid is a new one (after a move; snapshots share it
// otherwise), compares it row by row (bytes.Equal, vectorised) and redraws
// only the cells of arena cells that differ and of heads that moved. Only a
// camera or layout change redraws the whole region. Painting allocates
// nothing once the layout is set. Measured with 8 riders (BENCHMARKS.md):
// about 1 µs and 123 B a frame for the whole arena at 200×50, 4 µs and
// 194 B for a following camera at 80×24 (it scrolls), within 2 % of the
// ideal cell diff.
//
// The styles are a block of NumStyles in the session's one palette, from
// a base the caller chooses, rather than a palette of their own: a screen
// has a single palette, shared with the HUD, chat and menus around the
// board. The block (145 styles: a style per colour and per pair of colours
// a half-block cell can show) leaves room for the caller's own.
package view

import (
	"bytes"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game/tron"
	"github.com/termarena/termarena/screen"
)

// Viewer is who the frame is drawn for.
type Viewer struct {
	// Slot is the viewer's seat, -1 for a watcher.
	Slot int
	// Pending is the viewer's turns the room has not acknowledged yet,
	// oldest first: they are drawn at once, before the room applies them.
	Pending []int8
}

// head is a head as drawn: its arena cell and pixel kind (pxNone: none).
type head struct {
	x, y int16
	px   uint8
}

// View paints one viewer's picture of a match. Like the screen it paints
// on, it belongs to the session's frame loop: not safe for concurrent use.
type View struct {
	base   screen.Style
	colour bool
	cam    Camera

	// As last painted: the layout and where on which screen, the grid and
	// the heads. valid is false when the next Paint must redraw it all.
	valid  bool
	scr    *screen.Screen
	sw, sh int // scr's size: a resize clears its cells
	reg    Rect
	lay    layout
	shown  []byte
	last   *byte // the snapshot grid shown was copied from (they share it)
	heads  [tron.MaxPlayers]head
	cx, cy int  // camera centre, arena cells (Center)
	placed bool // cx, cy were set by a Paint

	// For the pixel lookups of the frame being painted.
	snap *tron.Snapshot
	me   int
	// ghost is the viewer's predicted head when it is not yet on the grid.
	ghost head
}

// New returns a view whose styles start at base in the session's palette
// (which must hold Specs(p) from there: base+NumStyles ≤ 256) and that
// draws for colour profile p. The camera starts on the whole arena.
func New(base screen.Style, p colorprofile.Profile) *View {
	return &View{base: base, colour: Colour(p), cam: Whole(), me: -1}
}

// SetProfile switches colour profile (the caller switches the palette);
// the next Paint redraws everything.
func (v *View) SetProfile(p colorprofile.Profile) {
	if c := Colour(p); c != v.colour {
		v.colour, v.valid = c, false
	}
}

// SetCamera changes what the view shows from the next Paint.
func (v *View) SetCamera(c Camera) { v.cam = c }

// Camera is the camera in use.
func (v *View) Camera() Camera { return v.cam }

// Center is the arena cell at the centre of the last frame: where a free
// camera starts from when the viewer switches to it.
func (v *View) Center() (x, y int) { return v.cx, v.cy }

// Invalidate makes the next Paint redraw its whole region: call it when
// something else drew over the region, or after screen.Clear. (A new
// region, screen or screen size does it by itself.)
func (v *View) Invalidate() { v.valid = false }

// Paint draws snap into region r of scr for viewer me: the arena, its
// border where visible, and me's pending turns predicted with the rules'
// own NextHead. Cells outside r are left alone.
//
// Snapshots are immutable and share their grid until a move; Paint relies
// on it: a grid at the address of the last one is taken as unchanged, and
// only a new grid is compared.
func (v *View) Paint(scr *screen.Screen, r Rect, snap *tron.Snapshot, me Viewer) {
	sw, sh := scr.Size()
	r.W, r.H = min(r.W, sw-r.X), min(r.H, sh-r.Y)
	if r.W <= 0 || r.H <= 0 || r.X < 0 || r.Y < 0 || snap == nil {
		return
	}
	v.snap, v.me = snap, me.Slot
	defer func() { v.snap = nil }()

	if v.lay.scale(snap.Width, snap.Height, r.W, r.H, v.cam.Mode) || scr != v.scr || r != v.reg ||
		sw != v.sw || sh != v.sh || len(v.shown) != len(snap.Grid) {
		v.valid = false
	}
	v.scr, v.sw, v.sh, v.reg = scr, sw, sh, r

	var heads [tron.MaxPlayers]head
	v.ghost = head{}
	for i := range snap.Slots {
		c := &snap.Cycles[i]
		switch {
		case c.Rider && c.Alive:
			heads[i] = head{c.X, c.Y, pxHead0 + uint8(i)}
		case c.Rider:
			heads[i] = head{c.X, c.Y, pxCrash0 + uint8(i)}
		}
	}
	if me.Slot >= 0 && me.Slot < snap.Slots && snap.PauseIn == 0 && !snap.Over {
		// A turn shows before the room confirms it: the head is drawn one
		// cell on, where its next move takes it, as soon as that move
		// turns (a straight move is left to the room, which is about to
		// make it).
		c := &snap.Cycles[me.Slot]
		if x, y, h, ok := snap.NextHead(me.Slot, me.Pending...); ok && h != c.Heading &&
			x >= 0 && y >= 0 && x < snap.Width && y < snap.Height {
			heads[me.Slot] = head{int16(x), int16(y), pxHead0 + uint8(me.Slot)}
			v.ghost = heads[me.Slot]
		}
	}

	v.cx, v.cy = v.centre(snap)
	ox, oy := v.lay.origin(int(v.lay.xmap[v.cx]), int(v.lay.ymap[v.cy]), r.W, r.H)
	if ox != v.lay.ox || oy != v.lay.oy {
		v.lay.ox, v.lay.oy, v.valid = ox, oy, false
	}

	old := v.heads
	v.heads = heads
	if len(snap.Grid) == 0 {
		return
	}
	if !v.valid {
		v.shown = append(v.shown[:0], snap.Grid...)
		v.last = &snap.Grid[0]
		for row := range r.H {
			for col := range r.W {
				v.paintCell(col, row)
			}
		}
		v.valid = true
		return
	}
	if &snap.Grid[0] != v.last {
		v.last = &snap.Grid[0]
		w := snap.Width
		for y := 0; y < snap.Height; y++ {
			a, b := v.shown[y*w:(y+1)*w], snap.Grid[y*w:(y+1)*w]
			if bytes.Equal(a, b) {
				continue
			}
			for x := range w {
				if a[x] != b[x] {
					a[x] = b[x]
					v.paintArena(x, y)
				}
			}
		}
	}
	for i := range heads {
		if heads[i] != old[i] {
			if old[i].px != pxNone {
				v.paintArena(int(old[i].x), int(old[i].y))
			}
			if heads[i].px != pxNone {
				v.paintArena(int(heads[i].x), int(heads[i].y))
			}
		}
	}
}

// centre is the arena cell the camera centres on.
func (v *View) centre(snap *tron.Snapshot) (x, y int) {
	switch v.cam.Mode {
	case ModeWhole:
		x, y = snap.Width/2, snap.Height/2
	case ModeFree:
		x, y = v.cam.X, v.cam.Y
	default:
		x, y = v.cx, v.cy
		if s := v.cam.Slot; s >= 0 && s < snap.Slots && snap.Cycles[s].Rider {
			x, y = int(snap.Cycles[s].X), int(snap.Cycles[s].Y)
		} else if !v.placed {
			x, y = snap.Width/2, snap.Height/2
		}
	}
	v.placed = true
	x, y = min(max(x, 0), snap.Width-1), min(max(y, 0), snap.Height-1)
	if v.cam.Mode == ModeFree {
		// Report the clamped centre, so panning resumes from the edge.
		ox := clampAxis(int(v.lay.xmap[x])-v.reg.W/2, v.lay.dw, v.reg.W)
		oy := clampAxis(int(v.lay.ymap[y])/2-v.reg.H/2, v.lay.rows(), v.reg.H)
		x = min(max(ox+v.reg.W/2, 0), snap.Width-1)
		y = min(max(2*(oy+v.reg.H/2), 0), snap.Height-1)
		v.cam.X, v.cam.Y = x, y
	}
	return x, y
}

// paintArena redraws the screen cell showing arena cell x, y, if visible.
func (v *View) paintArena(x, y int) {
	col := int(v.lay.xmap[x]) - v.lay.ox
	row := int(v.lay.ymap[y])/2 - v.lay.oy
	if col >= 0 && row >= 0 && col < v.reg.W && row < v.reg.H {
		v.paintCell(col, row)
	}
}

// paintCell draws region cell col, row: arena pixels, border or margin.
func (v *View) paintCell(col, row int) {
	x, y := col+v.lay.ox, row+v.lay.oy
	sx, sy := v.reg.X+col, v.reg.Y+row
	w, h := v.lay.dw, v.lay.rows()
	if x < -1 || y < -1 || x > w || y > h {
		v.scr.Set(sx, sy, ' ', 0)
		return
	}
	if x == -1 || y == -1 || x == w || y == h {
		v.scr.Set(sx, sy, border(x, y, w, h), v.base+stBorder)
		return
	}
	t, b := v.pixel(x, 2*y), v.pixel(x, 2*y+1)
	r, st := v.glyph(t, b)
	v.scr.Set(sx, sy, r, st)
}

func border(x, y, w, h int) rune {
	switch {
	case x == -1 && y == -1:
		return '┌'
	case x == w && y == -1:
		return '┐'
	case x == -1 && y == h:
		return '└'
	case x == w && y == h:
		return '┘'
	case y == -1 || y == h:
		return '─'
	}
	return '│'
}

// pixel is the kind of display pixel px, py (pxNone below the arena's
// last row when its height is odd).
func (v *View) pixel(px, py int) uint8 {
	if py >= v.lay.dh {
		return pxNone
	}
	if !v.lay.scaled {
		return v.cellKind(px, py)
	}
	// Scaled down: a head anywhere in the block wins (the viewer's own
	// first, then the lowest slot), then a crash, then the trail owning
	// the most cells of the block (the lowest slot on a tie).
	var best uint8
	for i, hd := range v.heads {
		if hd.px == pxNone || int(v.lay.xmap[hd.x]) != px || int(v.lay.ymap[hd.y]) != py {
			continue
		}
		switch {
		case i == v.me && hd.px < pxCrash0:
			return hd.px
		case best == pxNone, hd.px < pxCrash0 && best >= pxCrash0:
			best = hd.px
		}
	}
	if best != pxNone {
		return best
	}
	var count [tron.MaxPlayers + 1]uint16
	g, w := v.snap.Grid, v.snap.Width
	for y := v.lay.y0[py]; y < v.lay.y0[py+1]; y++ {
		row := g[int(y)*w:]
		for x := v.lay.x0[px]; x < v.lay.x0[px+1]; x++ {
			count[row[x]]++
		}
	}
	top := 0
	for s := 1; s <= tron.MaxPlayers; s++ {
		if count[s] > count[top] || top == 0 && count[s] > 0 {
			top = s
		}
	}
	if top == 0 {
		return pxNone
	}
	return pxTrail0 + uint8(top-1)
}

// cellKind is the kind of arena cell x, y.
func (v *View) cellKind(x, y int) uint8 {
	if g := v.ghost; g.px != pxNone && int(g.x) == x && int(g.y) == y {
		return g.px
	}
	o := v.snap.Grid[y*v.snap.Width+x]
	if o == 0 {
		return pxNone
	}
	if h := v.heads[o-1]; h.px != pxNone && int(h.x) == x && int(h.y) == y {
		return h.px
	}
	return pxTrail0 + o - 1
}

// glyph turns a display cell's two pixels into a rune and style.
func (v *View) glyph(t, b uint8) (rune, screen.Style) {
	if !v.colour {
		return v.mono(t, b)
	}
	t, b = colourKind(t), colourKind(b)
	switch {
	case t == pxNone && b == pxNone:
		return ' ', 0
	case t == b:
		return '█', v.base + screen.Style(t-1)
	case b == pxNone:
		return '▀', v.base + screen.Style(t-1)
	case t == pxNone:
		return '▄', v.base + screen.Style(b-1)
	case t < b:
		return '▀', v.base + screen.Style(pairStyle(t, b))
	}
	return '▄', v.base + screen.Style(pairStyle(b, t))
}

// colourKind: with colour a crashed head is drawn as trail.
func colourKind(k uint8) uint8 {
	if k >= pxCrash0 {
		return k - pxCrash0 + pxTrail0
	}
	return k
}

// mono draws a cell without colour: a riding head as its letter (the
// viewer's own in bold), a crashed head in lower case, else the trail's
// pattern; the top pixel wins a tie.
func (v *View) mono(t, b uint8) (rune, screen.Style) {
	pick := func(lo, hi uint8) (uint8, bool) {
		switch {
		case t >= lo && t < hi && b >= lo && b < hi && int(b-lo) == v.me:
			return b - lo, true
		case t >= lo && t < hi:
			return t - lo, true
		case b >= lo && b < hi:
			return b - lo, true
		}
		return 0, false
	}
	if s, ok := pick(pxHead0, pxCrash0); ok {
		st := v.base + screen.Style(pxHead0-1+s)
		if int(s) == v.me {
			st = v.base + stName0 + screen.Style(s)
		}
		return rune(headLetters[s]), st
	}
	if s, ok := pick(pxCrash0, pxCrash0+tron.MaxPlayers); ok {
		return rune(crashLetters[s]), v.base + screen.Style(pxHead0-1+s)
	}
	if s, ok := pick(pxTrail0, pxHead0); ok {
		return trailGlyphs[s], v.base + screen.Style(s)
	}
	return ' ', 0
}
