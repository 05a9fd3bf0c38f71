package view

import (
	"image/color"
	"slices"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/screen"
)

// Board pixels: one board unit is one column across and one half-row down,
// drawn with half-block glyphs so a cell shows two pixels stacked.
const (
	pxNone uint8 = iota
	pxWall
	pxSide0 // pxSide0+slot for the four sides
	pxSide1
	pxSide2
	pxSide3
	pxBall
	numPx
)

// The view's styles, from its base in the session's palette: a style per
// pair of pixel colours a half-block cell shows, then each side's name.
const (
	stSeat0 = screen.Style(numPx) * screen.Style(numPx) // stSeat0+slot: a side's name
	// NumStyles is how many styles the view takes in the palette.
	NumStyles = stSeat0 + 4
)

// sideColors are the four sides' colours, used for paddles and names alike.
var sideColors = [4]color.Color{
	lipgloss.Color("#EF4444"), // left: red
	lipgloss.Color("#3B82F6"), // right: blue
	lipgloss.Color("#22C55E"), // top: green
	lipgloss.Color("#EAB308"), // bottom: yellow
}

func pxColor(p uint8) color.Color {
	switch {
	case p == pxWall:
		return lipgloss.Color("#6B7280")
	case p >= pxSide0 && p <= pxSide3:
		return sideColors[p-pxSide0]
	case p == pxBall:
		return lipgloss.Color("#F9FAFB")
	}
	return nil
}

// Specs are the view's NumStyles style specs (the profile is the
// palette's to apply; every profile gets the same specs).
func Specs(colorprofile.Profile) []screen.Spec {
	specs := make([]screen.Spec, NumStyles)
	for t := range numPx {
		for b := range numPx {
			specs[pairStyle(t, b)] = screen.Spec{FG: pxColor(t), BG: pxColor(b)}
		}
	}
	for i, c := range sideColors {
		specs[stSeat0+screen.Style(i)] = screen.Spec{FG: c, Bold: true}
	}
	return specs
}

func pairStyle(top, bottom uint8) screen.Style {
	return screen.Style(top)*screen.Style(numPx) + screen.Style(bottom)
}

// halfCell turns a cell's two pixels into a glyph and style (relative to
// the view's base; a blank cell has the screen's default style).
func halfCell(top, bottom uint8) (r rune, st screen.Style, blank bool) {
	switch {
	case top == pxNone && bottom == pxNone:
		return ' ', 0, true
	case top == bottom:
		return '█', pairStyle(top, pxNone), false
	case bottom == pxNone:
		return '▀', pairStyle(top, pxNone), false
	case top == pxNone:
		return '▄', pairStyle(bottom, pxNone), false
	}
	return '▀', pairStyle(top, bottom), false
}

// prect is a rectangle of board pixels [x0,x1)×[y0,y1) in one colour.
type prect struct {
	x0, y0, x1, y1 int32
	c              uint8
}

func (r prect) contains(x, y int32) bool { return x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1 }

// board maps a Pong board onto the screen and repaints only the cells that
// moving objects leave or enter.
type board struct {
	base screen.Style // the view's first style in the palette

	// layout
	w, h   int32 // board in units
	num    int32 // pixels per unit = num/den (integer maths keeps frames stable)
	den    int32
	pw, ph int32 // board in pixels
	col0   int   // screen column of pixel x=0
	py0    int   // global half-row of pixel y=0

	// mark, when set for a pixel colour, is the glyph its cells are drawn
	// with: without colour the four paddles would look alike, so the own
	// paddle and a teammate's get their own shading.
	mark [numPx]rune

	walls []prect // static: walls and corners; nil: not laid yet
	sides [4]bool // the sides that had paddles when walls were laid
	dyn   []prect // moving: paddles and the ball, as last drawn
	next  []prect

	// recomposed counts the cells paintCell has recomposed: what a
	// frame's board costs, for the tests that keep it to the cells that
	// changed.
	recomposed int
}

// layout fits a w×h-unit board in the screen area of cols × rows cells
// starting at row top. It keeps proportions, never scales below 1:1 (a
// smaller board would make the ball skip cells), and centres the board.
func (b *board) layout(cols, rows, top int, w, h int32) bool {
	b.w, b.h = w, h
	// Largest num/den (den fixed at 4: quarter steps) with w·s ≤ cols and
	// h·s ≤ 2·rows.
	b.den = 4
	b.num = min(int32(cols)*b.den/w, int32(2*rows)*b.den/h)
	if b.num < b.den {
		return false
	}
	b.pw, b.ph = b.units(w), b.units(h)
	b.col0 = (cols - int(b.pw)) / 2
	b.py0 = 2*top + (2*rows-int(b.ph))/2
	b.dyn = b.dyn[:0]
	return true
}

// units converts board units to pixels.
func (b *board) units(u int32) int32 { return u * b.num / b.den }

// sub converts sub-units to pixels.
func (b *board) sub(v int32) int32 {
	return int32(int64(v) * int64(b.num) / (int64(b.den) * int64(pong.Sub)))
}

// setWalls computes the static layer from which sides are walls.
func (b *board) setWalls(s *pong.Snapshot) bool {
	var sides [4]bool
	for side := range 4 {
		sides[side] = s.Paddles[side].Present
	}
	if b.walls != nil && sides == b.sides {
		return false // the same sides are walls: most frames
	}
	b.sides = sides
	var walls [8]prect
	n := 0
	one := max(b.units(1), 1)
	// Corners always belong to the walls.
	walls[n] = prect{0, 0, one, one, pxWall}
	walls[n+1] = prect{b.pw - one, 0, b.pw, one, pxWall}
	walls[n+2] = prect{0, b.ph - one, one, b.ph, pxWall}
	walls[n+3] = prect{b.pw - one, b.ph - one, b.pw, b.ph, pxWall}
	n += 4
	for side := range 4 {
		if s.Paddles[side].Present {
			continue
		}
		switch side {
		case pong.Left:
			walls[n] = prect{0, 0, one, b.ph, pxWall}
		case pong.Right:
			walls[n] = prect{b.pw - one, 0, b.pw, b.ph, pxWall}
		case pong.Top:
			walls[n] = prect{0, 0, b.pw, one, pxWall}
		case pong.Bottom:
			walls[n] = prect{0, b.ph - one, b.pw, b.ph, pxWall}
		}
		n++
	}
	if slices.Equal(b.walls, walls[:n]) {
		return false
	}
	b.walls = append(b.walls[:0], walls[:n]...)
	return true
}

// setMarks shades the own paddle (slot) and a teammate's when there is
// no colour to tell the paddles apart; with colour it clears the marks.
// It reports whether they changed (the board must then be repainted).
func (b *board) setMarks(colour bool, slot int, mode pong.Mode) bool {
	var m [numPx]rune
	if !colour && slot >= 0 && slot < 4 {
		m[pxSide0+uint8(slot)] = '▓'
		if mode == pong.TwoVTwo {
			m[pxSide0+uint8(slot^1)] = '▒' // left+right, top+bottom
		}
	}
	if m == b.mark {
		return false
	}
	b.mark = m
	return true
}

// paddleRect is a paddle's pixels given its centre along its side.
func (b *board) paddleRect(side int, pos, length int32) prect {
	one := max(b.units(1), 1)
	a, z := b.sub(pos-length/2), b.sub(pos+length/2)
	c := pxSide0 + uint8(side)
	switch side {
	case pong.Left:
		return prect{0, a, one, z, c}
	case pong.Right:
		return prect{b.pw - one, a, b.pw, z, c}
	case pong.Top:
		return prect{a, 0, z, one, c}
	}
	return prect{a, b.ph - one, z, b.ph, c}
}

// ballRect is the ball's pixels given its centre.
func (b *board) ballRect(x, y int32) prect {
	x0, y0 := b.sub(x-pong.Sub/2), b.sub(y-pong.Sub/2)
	one := max(b.units(1), 1)
	return prect{x0, y0, x0 + one, y0 + one, pxBall}
}

// pixels are the colours of board pixels x, y and x, y+1 (a cell's two):
// ball over paddles over walls. One pass over the objects serves both, and
// the walls are looked at only on the board's edge, where they all lie.
func (b *board) pixels(x, y int32) (top, bottom uint8) {
	if x < 0 || x >= b.pw {
		return pxNone, pxNone
	}
	inTop, inBottom := y >= 0 && y < b.ph, y+1 >= 0 && y+1 < b.ph
	for i := len(b.dyn) - 1; i >= 0 && (inTop || inBottom); i-- { // the ball is last: it wins
		r := &b.dyn[i]
		if x < r.x0 || x >= r.x1 {
			continue
		}
		if inTop && y >= r.y0 && y < r.y1 {
			top, inTop = r.c, false
		}
		if inBottom && y+1 >= r.y0 && y+1 < r.y1 {
			bottom, inBottom = r.c, false
		}
	}
	if one := max(b.units(1), 1); (inTop || inBottom) && (x < one || x >= b.pw-one || y < one || y+1 >= b.ph-one) {
		for i := range b.walls {
			r := &b.walls[i]
			if inTop && r.contains(x, y) {
				top, inTop = r.c, false
			}
			if inBottom && r.contains(x, y+1) {
				bottom, inBottom = r.c, false
			}
		}
	}
	return top, bottom
}

// paintCell recomposes the screen cell holding global half-row gy at
// column col.
func (b *board) paintCell(s *screen.Screen, col, row int) {
	b.recomposed++
	x := int32(col - b.col0)
	top := int32(2*row - b.py0)
	pt, pb := b.pixels(x, top)
	r, st, blank := halfCell(pt, pb)
	if m := b.mark[pt]; m != 0 {
		r = m
	} else if m := b.mark[pb]; m != 0 {
		r = m
	}
	if !blank {
		st += b.base
	}
	s.Set(col, row, r, st)
}

// paintRect repaints every cell a pixel rectangle touches.
func (b *board) paintRect(s *screen.Screen, r prect) {
	b.paintRectBut(s, r, cellSpan{})
}

// cellSpan is a rectangle of screen cells: board columns [x0,x1) (a
// pixel a column) and screen rows [r0,r1).
type cellSpan struct {
	x0, x1 int32
	r0, r1 int
}

// touched is the cells a pixel rectangle touches.
func (b *board) touched(r prect) cellSpan {
	if r.x1 <= r.x0 || r.y1 <= r.y0 {
		return cellSpan{}
	}
	return cellSpan{r.x0, r.x1, (b.py0 + int(r.y0)) / 2, (b.py0+int(r.y1)-1)/2 + 1}
}

// within is the cells whose two pixels both lie in a pixel rectangle.
func (b *board) within(r prect) cellSpan {
	if r.x1 <= r.x0 || r.y1 <= r.y0 {
		return cellSpan{}
	}
	// Row k holds pixels 2k-py0 and 2k-py0+1.
	r0 := (b.py0 + int(r.y0) + 1) / 2
	r1 := (b.py0 + int(r.y1)) / 2 // exclusive: its second pixel is at y1 or past
	if r1 <= r0 {
		return cellSpan{}
	}
	return cellSpan{r.x0, r.x1, r0, r1}
}

// paintRectBut repaints the cells r touches except those in skip.
func (b *board) paintRectBut(s *screen.Screen, r prect, skip cellSpan) {
	span := b.touched(r)
	for row := span.r0; row < span.r1; row++ {
		x0, x1 := span.x0, span.x1
		if row >= skip.r0 && row < skip.r1 {
			if k0, k1 := max(skip.x0, x0), min(skip.x1, x1); k0 < k1 {
				for x := x0; x < k0; x++ {
					b.paintCell(s, b.col0+int(x), row)
				}
				x0 = k1
			}
		}
		for x := x0; x < x1; x++ {
			b.paintCell(s, b.col0+int(x), row)
		}
	}
}

// moved repaints what an object that went from old to now changed: the
// cells either covers, once, but for those it covers in its colour both
// before and after (they show it still: paintCell recomposes a cell from
// every object, and each object that left or entered one repaints it). A
// paddle moving a pixel then costs the cells at its two ends, not all of
// its cells twice.
func (b *board) moved(s *screen.Screen, old, now prect) {
	var keep cellSpan
	if old.c == now.c {
		keep = b.within(prect{max(old.x0, now.x0), max(old.y0, now.y0), min(old.x1, now.x1), min(old.y1, now.y1), now.c})
	}
	b.paintRectBut(s, old, keep)
	// The new cells but those kept and those just repainted.
	done := b.touched(old)
	span := b.touched(now)
	for row := span.r0; row < span.r1; row++ {
		for x := span.x0; x < span.x1; x++ {
			if in(keep, x, row) || in(done, x, row) {
				continue
			}
			b.paintCell(s, b.col0+int(x), row)
		}
	}
}

// in: cell x, row lies in c.
func in(c cellSpan, x int32, row int) bool {
	return x >= c.x0 && x < c.x1 && row >= c.r0 && row < c.r1
}

// restore repaints the board's cells within the screen rectangle x, y,
// w, h: what paintAll does for those cells only.
func (b *board) restore(s *screen.Screen, x, y, w, h int) {
	bc, br, bw, bh := b.cellRect()
	c0, c1 := max(x, bc), min(x+w, bc+bw)
	r0, r1 := max(y, br), min(y+h, br+bh)
	for row := r0; row < r1; row++ {
		for col := c0; col < c1; col++ {
			b.paintCell(s, col, row)
		}
	}
}

// paintAll repaints the whole board area.
func (b *board) paintAll(s *screen.Screen) {
	b.paintRect(s, prect{0, 0, b.pw, b.ph, 0})
}

// move replaces the dynamic objects with next and repaints only the cells
// that an object left or entered.
func (b *board) move(s *screen.Screen, next []prect) {
	old := b.dyn
	b.dyn = append(b.next[:0], next...)
	b.next = old
	for i, r := range b.dyn {
		if i < len(old) && old[i] == r {
			continue
		}
		if i < len(old) {
			b.moved(s, old[i], r)
			continue
		}
		b.paintRect(s, r)
	}
	for i := len(b.dyn); i < len(old); i++ {
		b.paintRect(s, old[i])
	}
}

// cellRect is the screen cell rectangle the board occupies.
func (b *board) cellRect() (col, row, cols, rows int) {
	return b.col0, b.py0 / 2, int(b.pw), (b.py0+int(b.ph)+1)/2 - b.py0/2
}
