// Package screen owns one session's picture of its terminal: a packed grid
// of cells for what the terminal shows now (front) and what the next frame
// should show (back), and the bytes that turn one into the other.
//
// It exists because re-rendering and re-diffing a whole styled string every
// frame (what a Bubble Tea View does) costs milliseconds per frame, while a
// game frame usually changes a few dozen cells. Work here is proportional to
// the cells touched since the last Render, not to the screen size.
package screen

import (
	"image/color"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// Style indexes a Palette.
type Style uint8

// Cell is one terminal cell: a rune and its style. A rune two cells wide
// (CJK, most emoji) sits in its left cell and the cell to its right holds
// Cont in the same style.
type Cell struct {
	R rune
	S Style
}

// Cont is the rune of the right half of a wide rune's two cells.
const Cont rune = -1

var blank = Cell{R: ' '}

// cell is a Cell as the grids store it, in 32 bits: the rune in the low
// 21 (contRune for Cont), the style in the top 8. Half a Cell's 8 bytes:
// the two grids are most of what a session's screen holds (15 KB at
// 80×24 instead of 30).
type cell uint32

const (
	runeMask = 1<<21 - 1
	contRune = runeMask // above unicode.MaxRune, so no rune's
)

// blankCell is blank packed.
const blankCell = cell(' ')

// pack stores r and st; a rune no terminal has (negative, past
// unicode.MaxRune) is stored as the U+FFFD it would be written as.
func pack(r rune, st Style) cell {
	switch {
	case r == Cont:
		r = contRune
	case r < 0 || r > unicode.MaxRune:
		r = utf8.RuneError
	}
	return cell(uint32(r) | uint32(st)<<24)
}

func (c cell) cont() bool   { return c&runeMask == contRune }
func (c cell) style() Style { return Style(c >> 24) }

func (c cell) char() rune {
	if c.cont() {
		return Cont
	}
	return rune(c & runeMask)
}

func (c cell) unpack() Cell { return Cell{c.char(), c.style()} }

// Width is how many cells r takes on a terminal: 1, 2 for East Asian wide
// and emoji-presentation runes, 0 for what draws nothing by itself
// (controls, combining marks, zero-width characters). It is the per-rune
// width of ansi.StringWidthWc, which is what a terminal without grapheme
// clustering advances its cursor by (a fixed table, whatever the server's
// locale). The fast paths cover ASCII, Latin and the board's block and
// box-drawing glyphs, so drawing the board costs no table lookup.
func Width(r rune) int {
	switch {
	case r < 0x20 || r >= 0x7f && r < 0xa0:
		return 0
	case r < 0x300, r >= 0x2500 && r < 0x25a0:
		return 1
	}
	var buf [utf8.UTFMax]byte
	return ansi.StringWidthWc(string(utf8.AppendRune(buf[:0], r)))
}

// Spec describes a style in full colour; a Palette downsamples it for the
// session's colour profile.
type Spec struct {
	FG, BG color.Color // nil = terminal default
	Bold   bool
	// Attrs are the other attributes a styled string may ask for (the
	// menus' italic chat lines); the game views use none.
	Attrs Attr
}

// Attr is a text attribute besides bold, as SGR sets it.
type Attr uint8

// The attributes a Spec may carry.
const (
	Faint Attr = 1 << iota
	Italic
	Underline
	Blink
	Reverse
	Strikethrough
)

// attrParams are the SGR parameters of each Attr bit, in bit order.
var attrParams = [...]string{";2", ";3", ";4", ";5", ";7", ";9"}

// MaxStyles is how many styles a Palette holds (a Style is a byte).
const MaxStyles = 256

// Palette holds the SGR sequence of every style for one colour profile.
type Palette struct {
	profile colorprofile.Profile
	sgr     []string
	canon   []uint8 // styles with identical SGR share a canonical id
	// A style's parts, for switching from one style to another with only
	// the parameters that differ (often half the bytes of a full SGR):
	// fg and bg are ";38;5;N"-style parameters, "" for the default.
	fg, bg []string
	bold   []bool
	attrs  []Attr
	// index maps an SGR sequence to its canonical id, first a canonical
	// id to the first style with it: for Intern.
	index map[string]uint8
	first []Style
}

// NewPalette renders specs for profile p. Style i is specs[i]; style 0
// should be the plain default (it is what cleared cells use).
func NewPalette(p colorprofile.Profile, specs []Spec) *Palette {
	n := len(specs)
	pal := &Palette{profile: p, sgr: make([]string, 0, n), canon: make([]uint8, 0, n), fg: make([]string, 0, n),
		bg: make([]string, 0, n), bold: make([]bool, 0, n), attrs: make([]Attr, 0, n), index: map[string]uint8{}}
	for _, sp := range specs {
		pal.add(sp)
	}
	return pal
}

// render is sp's whole SGR sequence in the palette's profile, and its
// colour parameters.
func (p *Palette) render(sp Spec) (seq, fg, bg string) {
	fg, bg = colorParam(p.profile, sp.FG, false), colorParam(p.profile, sp.BG, true)
	seq = "\x1b[0"
	if sp.Bold {
		seq += ";1"
	}
	for i, param := range attrParams {
		if sp.Attrs&(1<<i) != 0 {
			seq += param
		}
	}
	return seq + fg + bg + "m", fg, bg
}

// add renders sp as the palette's next style.
func (p *Palette) add(sp Spec) {
	seq, fg, bg := p.render(sp)
	id, ok := p.index[seq]
	if !ok {
		id = uint8(len(p.first))
		p.index[seq] = id
		p.first = append(p.first, Style(len(p.sgr)))
	}
	p.sgr, p.canon = append(p.sgr, seq), append(p.canon, id)
	p.fg, p.bg, p.bold, p.attrs = append(p.fg, fg), append(p.bg, bg), append(p.bold, sp.Bold), append(p.attrs, sp.Attrs)
}

// Intern returns a style that draws as sp does in the palette's profile:
// the first one there with the same SGR, else a new one. ok is false when
// the palette is full (MaxStyles) and sp draws as none of its styles. It
// is for a palette built while a styled string is read (the menus'),
// owned by one goroutine: a palette shared between sessions must not
// change.
func (p *Palette) Intern(sp Spec) (st Style, ok bool) {
	seq, _, _ := p.render(sp)
	if id, ok := p.index[seq]; ok {
		return p.first[id], true
	}
	if len(p.sgr) >= MaxStyles {
		return 0, false
	}
	p.add(sp)
	return Style(len(p.sgr) - 1), true
}

// Len is how many styles the palette holds.
func (p *Palette) Len() int { return len(p.sgr) }

// appendSGR switches the terminal's pen from style `from` (-1: unknown) to
// `to` with the shorter of the full sequence and the parameters that
// differ.
func (p *Palette) appendSGR(out []byte, from int, to Style) []byte {
	full := p.sgr[to]
	if from < 0 || p.attrs[from] != p.attrs[to] ||
		p.attrs[to]&Faint != 0 && p.bold[from] != p.bold[to] {
		// The other attributes go with a full SGR: they are rare, and
		// SGR 22 turns faint off with bold.
		return append(out, full...)
	}
	boldP, fgP, bgP := "", "", ""
	if p.bold[from] != p.bold[to] {
		boldP = ";22"
		if p.bold[to] {
			boldP = ";1"
		}
	}
	if p.fg[from] != p.fg[to] {
		if fgP = p.fg[to]; fgP == "" {
			fgP = ";39"
		}
	}
	if p.bg[from] != p.bg[to] {
		if bgP = p.bg[to]; bgP == "" {
			bgP = ";49"
		}
	}
	// ESC [ params m: each part carries a leading ';', the first drops it.
	if n := 2 + len(boldP) + len(fgP) + len(bgP); n >= len(full) {
		return append(out, full...)
	}
	out = append(out, "\x1b["...)
	first := true
	for _, part := range [3]string{boldP, fgP, bgP} {
		if part == "" {
			continue
		}
		if first {
			part, first = part[1:], false
		}
		out = append(out, part...)
	}
	return append(out, 'm')
}

func colorParam(p colorprofile.Profile, c color.Color, bg bool) string {
	if c == nil {
		return ""
	}
	switch cc := p.Convert(c).(type) {
	case nil:
		return ""
	case ansi.BasicColor:
		n := int(cc)
		base := 30
		if n >= 8 {
			base, n = 90, n-8
		}
		if bg {
			base += 10
		}
		return ";" + strconv.Itoa(base+n)
	case ansi.IndexedColor:
		if bg {
			return ";48;5;" + strconv.Itoa(int(cc))
		}
		return ";38;5;" + strconv.Itoa(int(cc))
	default:
		r, g, b, _ := cc.RGBA()
		pre := ";38;2;"
		if bg {
			pre = ";48;2;"
		}
		return pre + strconv.Itoa(int(r>>8)) + ";" + strconv.Itoa(int(g>>8)) + ";" + strconv.Itoa(int(b>>8))
	}
}

// Screen is a session's cell grid. It is not safe for concurrent use: one
// goroutine (the session's frame loop) owns it.
type Screen struct {
	w, h  int
	front []cell
	back  []cell
	// queued has a bit a cell, set while the cell is in dirty: 1 bit a
	// cell where a generation number took 32.
	queued []uint64
	dirty  []int32 // cells written since the last Render (not while full)
	full   bool
	pal    *Palette
	out    []byte
	// changes counts the cell writes that changed the back buffer, so a
	// caller can tell whether anything was drawn over its cells since.
	changes uint64
}

// New returns a w×h screen whose first Render repaints everything.
func New(w, h int, pal *Palette) *Screen {
	s := &Screen{pal: pal}
	s.Resize(w, h)
	return s
}

// Size reports the grid size.
func (s *Screen) Size() (w, h int) { return s.w, s.h }

// SetPalette switches colour profile; everything is repainted.
func (s *Screen) SetPalette(p *Palette) { s.pal = p; s.full = true }

// Resize changes the grid; the back buffer is cleared and the next Render
// repaints the whole terminal.
func (s *Screen) Resize(w, h int) {
	w, h = max(w, 0), max(h, 0)
	n := w * h
	s.w, s.h = w, h
	if cap(s.back) >= n {
		s.back, s.front = s.back[:n], s.front[:n]
	} else {
		s.back, s.front = make([]cell, n), make([]cell, n)
	}
	if words := (n + 63) / 64; cap(s.queued) >= words {
		s.queued = s.queued[:words]
	} else {
		s.queued = make([]uint64, words)
	}
	clear(s.queued)
	for i := range s.back {
		s.back[i] = blankCell
	}
	s.changes++
	s.dirty = s.dirty[:0]
	s.full = true
}

// Invalidate says the terminal's content is unknown (someone else drew on
// it): the next Render repaints everything.
func (s *Screen) Invalidate() { s.full = true }

// Get returns the back-buffer cell at x, y (blank outside the grid).
func (s *Screen) Get(x, y int) Cell {
	if x < 0 || y < 0 || x >= s.w || y >= s.h {
		return blank
	}
	return s.back[y*s.w+x].unpack()
}

// Set puts r in style st at x, y of the next frame and returns the cells
// it takes (1, or 2 for a wide rune). Out-of-grid writes are ignored so
// callers can draw without clipping. A rune that draws nothing by itself
// becomes '?', and a wide rune that would stick out of the last column a
// blank: the grid and the terminal must agree on every cell. Writing over
// either half of a wide rune blanks its other half, as terminals do.
func (s *Screen) Set(x, y int, r rune, st Style) int {
	n := Width(r)
	if n == 0 {
		r, n = '?', 1
	}
	if x < 0 || y < 0 || x >= s.w || y >= s.h {
		return n
	}
	if n == 2 && x == s.w-1 {
		r = ' '
	}
	i := y*s.w + x
	if s.back[i].cont() && x > 0 && !s.back[i-1].cont() {
		s.put(i-1, pack(' ', s.back[i-1].style())) // the wide rune lost its right half
	}
	if n == 1 || r == ' ' {
		if !s.back[i].cont() && x+1 < s.w && s.back[i+1].cont() {
			s.put(i+1, pack(' ', s.back[i+1].style())) // ... or its left half
		}
		s.put(i, pack(r, st))
		return n
	}
	if x+2 < s.w && s.back[i+2].cont() {
		s.put(i+2, pack(' ', s.back[i+2].style())) // the right neighbour loses its left half
	}
	s.put(i, pack(r, st))
	s.put(i+1, pack(Cont, st))
	return n
}

// put stores c at index i and queues the cell if it changed.
func (s *Screen) put(i int, c cell) {
	if s.back[i] == c {
		return
	}
	s.back[i] = c
	s.changes++
	s.queue(i)
}

// queue adds cell i to the cells the next Render looks at, once. Not
// while the next Render repaints everything: it looks at every cell then,
// and the list would grow to the whole grid for nothing.
func (s *Screen) queue(i int) {
	if s.full {
		return
	}
	w, bit := i>>6, uint64(1)<<(i&63)
	if s.queued[w]&bit == 0 {
		s.queued[w] |= bit
		s.dirty = append(s.dirty, int32(i))
	}
}

// Text writes str from x, y in style st, clipped to the row; it returns how
// many cells it used.
func (s *Screen) Text(x, y int, str string, st Style) int {
	n := 0
	for _, r := range str {
		n += s.Set(x+n, y, r, st)
	}
	return n
}

// Fill sets every cell of the rectangle.
func (s *Screen) Fill(x, y, w, h int, r rune, st Style) {
	for yy := y; yy < y+h; yy++ {
		for xx := x; xx < x+w; xx++ {
			s.Set(xx, yy, r, st)
		}
	}
}

// Changes counts the changes to the back buffer so far: equal counts mean
// no cell was drawn differently in between.
func (s *Screen) Changes() uint64 { return s.changes }

// Clear blanks the back buffer (changed cells only are sent).
func (s *Screen) Clear() {
	for i := range s.back {
		if s.back[i] != blankCell {
			s.back[i] = blankCell
			s.changes++
			s.queue(i)
		}
	}
}

// Render returns the bytes that make the terminal show the back buffer, or
// nil when nothing changed. The slice is reused by the next Render.
//
// The frame is wrapped in save/restore cursor (DECSC/DECRC) so that another
// renderer sharing the terminal (Bubble Tea's, for menus) keeps a correct
// idea of where its cursor and attributes are.
func (s *Screen) Render() []byte {
	out := s.out[:0]
	opened := false
	cx, cy := -1, -1
	pen := -1 // the style whose SGR the terminal has now (-1: unknown)
	if s.full {
		s.full = false
		opened = true
		out = append(out, "\x1b7\x1b[0m\x1b[H\x1b[2J"...)
		cx, cy = 0, 0
		clear(s.queued)
		s.dirty = s.dirty[:0]
		for i, c := range s.back {
			s.front[i] = c
			if c != blankCell && !c.cont() { // a right half is drawn with its left
				out, cx, cy, pen = s.appendCell(out, s.back, i, cx, cy, pen)
			}
		}
	} else {
		slices.Sort(s.dirty)
	}
	for _, di := range s.dirty {
		i := int(di)
		s.queued[i>>6] &^= 1 << (i & 63)
		c := s.back[i]
		if c == s.front[i] {
			continue
		}
		s.front[i] = c
		if c.cont() {
			continue // drawn with its left half, which is dirty too whenever this one is
		}
		if !opened {
			out = append(out, "\x1b7"...)
			opened = true
		}
		out, cx, cy, pen = s.appendCell(out, s.back, i, cx, cy, pen)
		if i%s.w+1 < s.w && s.back[i+1].cont() {
			s.front[i+1] = s.back[i+1] // drawn with its left half
		}
	}
	s.dirty = s.dirty[:0]
	s.out = out
	if !opened {
		return nil
	}
	s.out = append(out, "\x1b8"...)
	return s.out
}

// appendCell appends the bytes that draw cell i of grid (its left half, for
// a wide rune) with the terminal's cursor at cx, cy and its pen at pen
// (each -1: unknown), and returns where they are then.
func (s *Screen) appendCell(out []byte, grid []cell, i, cx, cy, pen int) ([]byte, int, int, int) {
	c := grid[i]
	y, x := i/s.w, i%s.w
	switch {
	case cy == y && cx == x:
	case cy == y && x > cx && cx >= 0:
		out = append(out, "\x1b["...)
		if d := x - cx; d > 1 {
			out = strconv.AppendInt(out, int64(d), 10)
		}
		out = append(out, 'C')
	default:
		out = append(out, "\x1b["...)
		out = strconv.AppendInt(out, int64(y+1), 10)
		if x > 0 {
			out = append(out, ';')
			out = strconv.AppendInt(out, int64(x+1), 10)
		}
		out = append(out, 'H')
	}
	if st := c.style(); pen < 0 || s.pal.canon[pen] != s.pal.canon[st] {
		out = s.pal.appendSGR(out, pen, st)
		pen = int(st)
	}
	out = utf8.AppendRune(out, c.char())
	cx, cy = x+1, y
	switch {
	case x+1 < s.w && grid[i+1].cont():
		// Terminals that do not know the rune is wide advance one
		// cell: the next cell is addressed absolutely so that no
		// terminal's idea of the cursor matters.
		cx, cy = -1, -1
	case cx >= s.w:
		cx, cy = -1, -1 // pending wrap: position unknown
	}
	return out, cx, cy, pen
}

// AppendRepaint appends the bytes that paint what the terminal was last
// sent (the grid as of the last Render) over whatever it shows now, and
// changes nothing: a painter whose frames several terminals share gives it
// to one that joins, or fell behind, while the others keep getting diffs.
func (s *Screen) AppendRepaint(out []byte) []byte {
	out = append(out, "\x1b7\x1b[0m\x1b[H\x1b[2J"...)
	cx, cy, pen := 0, 0, -1
	for i, c := range s.front {
		if c == blankCell || c.cont() {
			continue
		}
		out, cx, cy, pen = s.appendCell(out, s.front, i, cx, cy, pen)
	}
	return append(out, "\x1b8"...)
}
