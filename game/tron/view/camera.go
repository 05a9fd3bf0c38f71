package view

// Mode is how the camera chooses what the region shows.
type Mode uint8

const (
	// ModeFollow centres on one cycle's head.
	ModeFollow Mode = iota
	// ModeWhole shows the whole arena, scaled down when it does not fit.
	ModeWhole
	// ModeFree centres where the caller pans it.
	ModeFree
)

// Camera is what a view shows: build one with Follow, Whole or Free.
type Camera struct {
	Mode Mode
	Slot int // ModeFollow
	X, Y int // ModeFree: the arena cell at the centre
}

// Follow centres the camera on slot's head at full resolution (half
// blocks: one column and half a row per arena cell), clamped so it does
// not look past the arena's border. A cycle that is not riding keeps the
// camera where it last was.
func Follow(slot int) Camera { return Camera{Mode: ModeFollow, Slot: slot} }

// Whole shows the whole arena: at full resolution and centred when it
// fits, else scaled down to fit the region with its border.
func Whole() Camera { return Camera{Mode: ModeWhole} }

// Free centres the camera on arena cell x, y at full resolution, clamped
// like Follow. View.Center reports where the camera ended up, so panning
// continues from a clamped position rather than from beyond the edge.
func Free(x, y int) Camera { return Camera{Mode: ModeFree, X: x, Y: y} }

// Rect is a region of the screen in cells.
type Rect struct{ X, Y, W, H int }

// layout maps the arena onto the region: dw×dh is the arena in display
// pixels (one column by half a row; smaller than the arena when scaled
// down) and ox, oy the display cell at the region's top left (negative
// while a margin or the border shows). xmap and ymap give the display
// pixel of every arena column and row, x0 and y0 the first arena column
// and row of each display pixel (with one more entry for the end).
type layout struct {
	aw, ah int
	dw, dh int
	scaled bool
	ox, oy int
	xmap   []int16
	ymap   []int16
	x0, y0 []int16
}

// rows is the arena's height in display cells.
func (l *layout) rows() int { return (l.dh + 1) / 2 }

// scale sets the display size for a w×h region and camera mode m; it
// reports whether anything changed.
func (l *layout) scale(aw, ah, w, h int, m Mode) bool {
	dw, dh := aw, ah
	if m == ModeWhole && (w < aw || 2*h < ah) {
		// Leave a cell each side for the border; keep the arena's shape.
		pw, ph := max(w-2, 1), max(2*(h-2), 2)
		if pw*ah <= ph*aw {
			dw, dh = pw, ah*pw/aw
		} else {
			dw, dh = aw*ph/ah, ph
		}
		dw, dh = min(max(dw, 1), aw), min(max(dh, 1), ah)
	}
	if l.aw == aw && l.ah == ah && l.dw == dw && l.dh == dh && l.xmap != nil {
		return false
	}
	l.aw, l.ah, l.dw, l.dh = aw, ah, dw, dh
	l.scaled = dw != aw || dh != ah
	l.xmap, l.x0 = mapping(l.xmap, l.x0, aw, dw)
	l.ymap, l.y0 = mapping(l.ymap, l.y0, ah, dh)
	return true
}

// mapping splits n arena cells into d display pixels of n/d cells (±1), so
// every arena cell lands in exactly one pixel.
func mapping(m, start []int16, n, d int) ([]int16, []int16) {
	m, start = grow(m, n), grow(start, d+1)
	for p := 0; p <= d; p++ {
		start[p] = int16(p * n / d)
	}
	for p := range d {
		for c := start[p]; c < start[p+1]; c++ {
			m[c] = int16(p)
		}
	}
	return m, start
}

func grow(s []int16, n int) []int16 {
	if cap(s) < n {
		return make([]int16, n)
	}
	return s[:n]
}

// origin places the camera so display pixel cx, cy (column, pixel row) is
// at the centre of a w×h region, clamped to the arena and its border; an
// arena narrower (shorter) than the region is centred instead.
func (l *layout) origin(cx, cy, w, h int) (ox, oy int) {
	return clampAxis(cx-w/2, l.dw, w), clampAxis(cy/2-h/2, l.rows(), h)
}

func clampAxis(o, size, view int) int {
	if size+2 <= view {
		return -(view - size) / 2
	}
	return min(max(o, -1), size+1-view)
}

// WholeSize is the region that shows an arena whole at full resolution
// with its border: a screen that has it defaults to Whole, a smaller one
// to following the player (watchers: Whole, scaled down).
func WholeSize(width, height int) (w, h int) { return width + 2, (height+1)/2 + 2 }
