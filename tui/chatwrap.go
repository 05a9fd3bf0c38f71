package tui

import (
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/termarena/termarena/screen"
)

// Chat lines are wrapped, not cut: a message is read once, so all of it
// must be on screen. Both panes wrap the same way, each measuring text the
// way it draws it: the lobby pane by grapheme cluster (what lipgloss lays
// out), the room pane by rune (what its cell grid writes, combining marks
// dropped).

// chatIndent starts every row of a message after its first, so that a
// wrapped message reads as one; only panes at least chatIndentMin wide
// indent.
const (
	chatIndent    = "  "
	chatIndentMin = 12
)

// wrapUnit is one cluster of a line: bytes [start,end) of segment seg, w
// cells wide.
type wrapUnit struct {
	seg, start, end int
	w               int
}

// chatWrapper wraps lines for one pane. Its scratch is reused from line to
// line; the rows it returns share the lines' text.
type chatWrapper struct {
	grid  bool // measure as the room view's grid draws
	units []wrapUnit
	row   []wrapUnit
}

// split cuts l into the clusters the pane draws, leaving out what draws
// nothing.
func (cw *chatWrapper) split(l chatLine) []wrapUnit {
	us := cw.units[:0]
	for si, sg := range l {
		s := sg.text
		for i := 0; i < len(s); {
			n, w := 1, 1
			switch {
			case s[i] < 0x80 && (cw.grid || i+1 == len(s) || s[i+1] < 0x80):
				// ASCII, and (for clusters) not followed by a mark
			case cw.grid:
				var r rune
				r, n = utf8.DecodeRuneInString(s[i:])
				w = 0
				if !unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) {
					w = screen.Width(r)
				}
			default:
				var c string
				c, w = ansi.FirstGraphemeCluster(s[i:], ansi.GraphemeWidth)
				n = max(len(c), 1)
			}
			if w > 0 {
				us = append(us, wrapUnit{seg: si, start: i, end: i + n, w: w})
			}
			i += n
		}
	}
	cw.units = us
	return us
}

func (u wrapUnit) space(l chatLine) bool { return l[u.seg].text[u.start] == ' ' }

// wrap appends l laid out in rows of at most w cells to dst. Rows break at
// the spaces between words, which are dropped there; a word longer than a
// row starts where it is and breaks wherever a row ends; a wide cluster is
// a word of its own (CJK has no spaces) and is never split between rows.
func (cw *chatWrapper) wrap(dst []chatLine, l chatLine, w int) []chatLine {
	if w <= 0 {
		return dst
	}
	us := cw.split(l)
	indent := 0
	if w >= chatIndentMin {
		indent = len(chatIndent)
	}
	row, rowW, first := cw.row[:0], 0, true
	flush := func() {
		dst = append(dst, cw.segments(l, row, !first && indent > 0))
		row, rowW, first = row[:0], indent, false
	}
	start := func() int { // cells a row has before its text
		if first {
			return 0
		}
		return indent
	}
	for i := 0; i < len(us); {
		j := i
		for j < len(us) && us[j].space(l) {
			j++
		}
		if j == len(us) {
			break // trailing spaces
		}
		spaces := us[i:j]
		k := j + 1
		if us[j].w < 2 {
			for k < len(us) && !us[k].space(l) && us[k].w < 2 {
				k++
			}
		}
		word := us[j:k]
		ww := 0
		for _, u := range word {
			ww += u.w
		}
		i = k
		empty := rowW == start()
		switch {
		case rowW+len(spaces)+ww <= w:
			if !empty || first {
				row, rowW = append(row, spaces...), rowW+len(spaces)
			}
		case ww <= w-indent && !empty:
			flush()
		case !empty && rowW+len(spaces) < w:
			// Longer than any row: it starts here and breaks below.
			row, rowW = append(row, spaces...), rowW+len(spaces)
		case !empty:
			flush()
		}
		for _, u := range word {
			if rowW+u.w > w {
				if rowW == start() {
					continue // wider than the pane: nothing can show it
				}
				flush()
				if rowW+u.w > w {
					continue
				}
			}
			row, rowW = append(row, u), rowW+u.w
		}
	}
	if len(row) > 0 || first {
		flush()
	}
	cw.row = row
	return dst
}

// segments turns a row of units back into styled text, one segment per
// unbroken run of one segment of the line.
func (cw *chatWrapper) segments(l chatLine, row []wrapUnit, indent bool) chatLine {
	out := make(chatLine, 0, 4)
	if indent {
		out = append(out, chatSeg{chatIndent, csText})
	}
	for i := 0; i < len(row); {
		j := i + 1
		for j < len(row) && row[j].seg == row[i].seg && row[j].start == row[j-1].end {
			j++
		}
		sg := l[row[i].seg]
		out = append(out, chatSeg{sg.text[row[i].start:row[j-1].end], sg.st})
		i = j
	}
	return out
}

// rows returns the rows the newest lines fill, oldest first: enough for n
// rows after skipping the newest off, wrapping from the newest line back
// only as far as that needs. It reports off as it could be honoured (at
// most the rows there are above a full pane).
func (cw *chatWrapper) rows(lines []chatLine, w, n, off int) ([]chatLine, int) {
	if n <= 0 || w <= 0 {
		return nil, 0
	}
	var rev []chatLine // newest row first
	var buf []chatLine
	for i := len(lines) - 1; i >= 0 && len(rev) < off+n; i-- {
		buf = cw.wrap(buf[:0], lines[i], w)
		for j := len(buf) - 1; j >= 0; j-- {
			rev = append(rev, buf[j])
		}
	}
	off = max(min(off, len(rev)-n), 0)
	end := min(off+n, len(rev))
	out := make([]chatLine, 0, end-off)
	for j := end - 1; j >= off; j-- {
		out = append(out, rev[j])
	}
	return out, off
}

// count is how many rows lines take at width w.
func (cw *chatWrapper) count(lines []chatLine, w int) int {
	n := 0
	var buf []chatLine
	for _, l := range lines {
		buf = cw.wrap(buf[:0], l, w)
		n += len(buf)
	}
	return n
}
