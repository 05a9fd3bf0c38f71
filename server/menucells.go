package server

import (
	"fmt"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/termarena/termarena/screen"
)

// gridTakes reports whether v is a view the packed cells draw: on the
// alternate screen (the menus' always are), with no cursor and no
// terminal colours, asked now or left by the last view (ultraviolet's
// path writes and resets those).
func (s *menuScreen) gridTakes(v *tea.View) bool {
	if !v.AltScreen || v.Cursor != nil || v.ForegroundColor != nil || v.BackgroundColor != nil {
		return false
	}
	lv := s.last
	return lv == nil || lv.Cursor == nil && lv.ForegroundColor == nil && lv.BackgroundColor == nil
}

// drawGrid draws v through the packed cells; ok is false, with nothing
// written, when they cannot hold it.
func (s *menuScreen) drawGrid(v tea.View) (ok bool, err error) {
	if s.grid != nil {
		if w, h := s.grid.Size(); w != s.width || h != s.height {
			s.grid = nil
		}
	}
	if s.pal == nil {
		s.pal, s.pens = screen.NewPalette(s.profile, []screen.Spec{{}}), map[uv.Style]screen.Style{}
		s.grid = nil
	}
	if s.grid == nil {
		s.grid = screen.New(s.width, s.height, s.pal) // its first Render repaints whole
	} else if s.repaint || !s.onGrid {
		s.grid.Invalidate()
	}
	res := s.paint(v.Content)
	if res == paintFull {
		// More pens than the palette holds: start one with this view's
		// alone, repainted whole.
		s.pal, s.pens = screen.NewPalette(s.profile, []screen.Spec{{}}), map[uv.Style]screen.Style{}
		s.grid.SetPalette(s.pal)
		res = s.paint(v.Content)
	}
	if res != painted {
		s.grid, s.onGrid = nil, false
		return false, nil
	}
	s.dropUV() // a view after one ultraviolet drew

	// The same set-up, in the same order, as ultraviolet's path writes.
	out := &s.buf
	out.Reset()
	last := s.last
	switchScreen := !s.alt
	if switchScreen {
		out.WriteString(ansi.SetModeAltScreenSaveCursor)
		s.alt = true
	}
	if last == nil || last.Cursor != nil || switchScreen {
		out.WriteString(ansi.ResetModeTextCursorEnable)
	}
	if last == nil || v.DisableBracketedPasteMode != last.DisableBracketedPasteMode {
		if !v.DisableBracketedPasteMode {
			out.WriteString(ansi.SetModeBracketedPaste)
		} else if last != nil {
			out.WriteString(ansi.ResetModeBracketedPaste)
		}
	}
	if (last == nil && v.WindowTitle != "") || (last != nil && v.WindowTitle != last.WindowTitle) {
		out.WriteString(ansi.SetWindowTitle(v.WindowTitle))
	}
	diff := s.grid.Render()
	if len(diff) > 512 {
		// A new page changes most cells, and the diff writes each (a
		// blank as a space): a repaint skips the blanks, often in fewer
		// bytes, as ultraviolet's erasing to the end of a line did.
		s.repaintBuf = s.grid.AppendRepaint(s.repaintBuf[:0])
		if len(s.repaintBuf) < len(diff) {
			diff = s.repaintBuf
		}
	}
	out.Write(diff)
	s.repaint, s.onGrid = false, true
	s.last = &v
	if out.Len() == 0 {
		return true, nil
	}
	defer out.Reset()
	if _, err := s.w.Write(out.Bytes()); err != nil {
		return true, fmt.Errorf("menus: write: %w", err)
	}
	return true, nil
}

// What paint made of a view.
const (
	painted    = iota
	paintFull  // a pen more than the palette holds
	paintNever // something the packed cells cannot hold
)

// paint reads a styled string into the grid's back buffer as
// ultraviolet's StyledString.Draw reads it into its cells (lines cut at
// the right edge, SGR pens, \n and \r, other sequences dropped), and
// reports false when the cells cannot hold it: a grapheme of several
// runes or a lone zero-width one (ultraviolet keeps either in one cell),
// a hyperlink, a pass-through sequence, a pen the palette cannot hold.
func (s *menuScreen) paint(str string) int {
	g := s.grid
	g.Clear()
	w, h := g.Size()
	if strings.Contains(str, "\r\n") {
		str = strings.ReplaceAll(str, "\r\n", "\n")
	}
	p := ansi.GetParser()
	defer ansi.PutParser(p)
	var pen uv.Style
	var st screen.Style // pen's, once looked up
	looked := true
	x, y := 0, 0
	var state byte
	for len(str) > 0 && y < h {
		seq, width, n, newState := ansi.DecodeSequenceWc(str, state, p)
		if n == 1 && seq[0] > 0x1f && seq[0] < 0x7f && len(str) > 1 && str[1] >= 0xc0 {
			// A letter with marks after it is one grapheme of several runes.
			if cluster, _ := ansi.FirstGraphemeCluster(str, ansi.WcWidth); len(cluster) > 1 {
				return paintNever
			}
		}
		switch {
		case width > 0:
			r, size := utf8.DecodeRuneInString(seq)
			if size != len(seq) || screen.Width(r) != width {
				return paintNever
			}
			if x < w {
				if !looked {
					var res int
					if st, res = s.style(pen); res != painted {
						return res
					}
					looked = true
				}
				g.Set(x, y, r, st)
			}
			x += width
		case ansi.HasCsiPrefix(seq) && p.Command() == 'm':
			uv.ReadStyle(p.Params(), &pen)
			looked = false
		case seq == "\n":
			y++
			x = 0
		case seq == "\r":
			x = 0
		case ansi.HasOscPrefix(seq) && p.Command() == 8,
			len(seq) > 0 && seq[0] >= 0xc0,
			ansi.HasApcPrefix(seq), ansi.HasDcsPrefix(seq), ansi.HasSosPrefix(seq), ansi.HasPmPrefix(seq):
			return paintNever
		}
		state = newState
		str = str[n:]
	}
	return painted
}

// style is the palette's style for pen in the session's profile, or
// paintNever for a pen the packed cells do not draw (an underline colour
// or style, rapid blink, conceal), paintFull for one more than the
// palette holds.
func (s *menuScreen) style(pen uv.Style) (screen.Style, int) {
	if st, ok := s.pens[pen]; ok {
		return st, painted
	}
	const unsupported = uv.AttrRapidBlink | uv.AttrConceal
	if pen.UnderlineColor != nil || pen.Underline > uv.UnderlineSingle || pen.Attrs&unsupported != 0 {
		return 0, paintNever
	}
	var sp screen.Spec
	if s.profile != colorprofile.NoTTY { // which ultraviolet draws without any
		sp = screen.Spec{FG: pen.Fg, BG: pen.Bg, Bold: pen.Attrs&uv.AttrBold != 0}
		for _, a := range [...]struct {
			uv uint8
			at screen.Attr
		}{{uv.AttrFaint, screen.Faint}, {uv.AttrItalic, screen.Italic}, {uv.AttrBlink, screen.Blink},
			{uv.AttrReverse, screen.Reverse}, {uv.AttrStrikethrough, screen.Strikethrough}} {
			if pen.Attrs&a.uv != 0 {
				sp.Attrs |= a.at
			}
		}
		if pen.Underline == uv.UnderlineSingle {
			sp.Attrs |= screen.Underline
		}
	}
	st, ok := s.pal.Intern(sp)
	if !ok {
		return 0, paintFull
	}
	if len(s.pens) >= 4*screen.MaxStyles {
		// Pens that draw alike (every colour, without colours) are
		// looked up again rather than kept without end.
		clear(s.pens)
	}
	s.pens[pen] = st
	return st, painted
}
