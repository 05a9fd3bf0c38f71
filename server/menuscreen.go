package server

import (
	"bytes"
	"fmt"
	"image/color"
	"io"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/termarena/termarena/screen"
)

// menuScreen draws the menus' views on a session's terminal, only when the
// driver asks (after a batch of messages) and only what changed: no frame
// ticker, so an idle lobby costs nothing between events.
//
// A view is read into the screen package's packed cells (4 bytes a cell,
// each distinct SGR pen interned as a Style of the session's palette) and
// screen.Render writes the difference: ultraviolet's renderer, which
// Bubble Tea uses, keeps two grids of 112-byte cells (≈430 KB at 80×24,
// most of an idle lobby session's memory). A view the cells cannot hold
// (a grapheme of several runes, a hyperlink, a pen with an underline
// colour or style, an inline view, a cursor or terminal colours, more
// pens than a palette has styles) is drawn by ultraviolet's renderer as
// before (drawUV), which then repaints whole.
//
// It honours what the menus' tea.View asks of the terminal (alternate
// screen, cursor, bracketed paste, window title, colours) and writes the
// same set-up and tear-down Bubble Tea v2 does. Keyboard enhancements,
// mouse and focus reports are not asked for: the menus take plain keys,
// and the play loop sets up the kitty keyboard for the game screen.
//
// It is owned by the session's driver goroutine: no lock.
type menuScreen struct {
	w       io.Writer // the session's writer
	env     []string
	profile colorprofile.Profile
	buf     bytes.Buffer // what one draw writes, flushed to w at once
	// ultraviolet's renderer and cells, for the views the packed cells
	// cannot hold: nil and empty until one comes.
	scr   *uv.TerminalRenderer
	cells uv.ScreenBuffer
	// The packed cells: grid is nil until drawn (and after lent or rest),
	// pal and pens the session's styles (pens: the pens read so far).
	grid *screen.Screen
	pal  *screen.Palette
	pens map[uv.Style]screen.Style
	// repaintBuf: a whole repaint, when it is shorter than the diff.
	repaintBuf []byte
	// onGrid: the last draw went through grid, so the terminal shows it
	// (as far as grid.Render knows: repaint says otherwise).
	onGrid bool
	width  int
	height int
	last   *tea.View // the view the terminal shows (nil: none of ours yet)
	// repaint: the terminal was drawn on by someone else (the game
	// screen) or cleared: the next draw repaints it whole.
	repaint bool
	// alt: the terminal is on its alternate screen (entered by us or by
	// the play loop for a session that went to a game at once).
	alt bool
}

func newMenuScreen(w io.Writer, env []string, p colorprofile.Profile, width, height int) *menuScreen {
	return &menuScreen{w: w, env: env, profile: p, width: width, height: height, cells: uv.NewScreenBuffer(0, 0)}
}

// renderer is ultraviolet's renderer, started if there is none.
func (s *menuScreen) renderer() *uv.TerminalRenderer {
	if s.scr == nil {
		s.reset()
	}
	return s.scr
}

// reset starts a new cell renderer, as Bubble Tea does at its start: the
// session's PTY is emulated, so the client's terminal turns \n into
// \r\n only through our writer (lockedWriter's translation).
func (s *menuScreen) reset() {
	s.buf.Reset()
	scr := uv.NewTerminalRenderer(&s.buf, s.env)
	scr.SetColorProfile(s.profile)
	scr.SetRelativeCursor(true)
	scr.SetFullscreen(false)
	scr.SetTabStops(-1)
	scr.SetMapNewline(true)
	scr.SetScrollOptim(true)
	s.scr = scr
	if s.alt {
		s.scr.SetFullscreen(true)
		s.scr.SetRelativeCursor(false)
		s.scr.Erase()
	}
}

// setProfile changes the colour profile the next draws use.
func (s *menuScreen) setProfile(p colorprofile.Profile) {
	if p == s.profile {
		return
	}
	s.profile = p
	if s.scr != nil {
		s.scr.SetColorProfile(p)
	}
	// The palette's sequences are the old profile's: read the pens
	// afresh and repaint.
	s.pal, s.pens = nil, nil
	s.repaint = true
}

// resize takes the terminal's new size; the next draw repaints whole (a
// terminal may scroll or reflow on a resize).
func (s *menuScreen) resize(w, h int) {
	s.width, s.height = w, h
	if s.scr != nil {
		s.scr.Erase()
		s.scr.Resize(w, h)
	}
	s.repaint = true
}

// clear is tea.ClearScreen: the next draw repaints from the top left.
func (s *menuScreen) clear() {
	if s.scr != nil {
		s.scr.MoveTo(0, 0)
		s.scr.Erase()
	}
	s.repaint = true
}

// lent: the game screen drew on the terminal (on the alternate screen the
// play loop made sure of); the menus repaint whole when they draw next.
//
// Their cells are let go meanwhile, the renderer's with them: a player
// held them through every match for menus not on screen (ultraviolet's
// were ≈240 KB a session at 80×24). A repaint from nothing needs none of
// it.
func (s *menuScreen) lent() {
	s.alt = true
	if s.last != nil && !s.last.AltScreen {
		// Our inline view's place is gone with the screen switch.
		s.last = nil
	}
	s.dropCells()
}

// dropCells lets the cells and the renderer's model of the terminal go;
// on the alternate screen, erased, the next draw repaints whole.
func (s *menuScreen) dropCells() {
	s.dropUV()
	s.grid, s.onGrid, s.repaintBuf = nil, false, nil
	s.repaint = true
}

// dropUV lets ultraviolet's renderer and cells go: a packed grid draws
// now, or nothing is held.
func (s *menuScreen) dropUV() {
	s.cells = uv.NewScreenBuffer(0, 0)
	s.scr = nil
	s.buf = bytes.Buffer{}
}

// rest lets the cells go while the menus' view stands still (an idle
// lobby): held for a screen that may not change for minutes (the packed
// grids are 2×7.7 KB at 80×24, ultraviolet's ≈430 KB). The next draw
// repaints whole (≈1.7 KB at 80×24, once, instead of a diff). Only on the
// alternate screen, which a repaint may erase: an inline view keeps its
// cells.
func (s *menuScreen) rest() {
	if s.alt && (s.cells.Width() > 0 || s.grid != nil || s.scr != nil) {
		s.dropCells()
	}
}

// draw shows v if it differs from what the terminal shows.
func (s *menuScreen) draw(v tea.View) error {
	if s.gridTakes(&v) {
		if !s.repaint && s.onGrid && s.last != nil && viewEquals(s.last, &v) {
			return nil // nothing changed: nothing is written
		}
		if ok, err := s.drawGrid(v); ok {
			return err
		}
	}
	if s.onGrid {
		// ultraviolet's renderer has no idea of the screen the grid
		// drew: it starts afresh and repaints whole.
		s.dropCells()
	}
	return s.drawUV(v)
}

// drawUV draws v with ultraviolet's renderer.
func (s *menuScreen) drawUV(v tea.View) error {
	s.renderer()
	frameArea := uv.Rect(0, 0, s.width, s.height)
	if len(v.Content) == 0 {
		frameArea.Max.Y = 0
	}
	content := uv.NewStyledString(v.Content)
	if !v.AltScreen {
		// Inline, the frame is as high as its content.
		frameArea.Max.Y = content.Height()
	}
	if !s.repaint && s.last != nil && viewEquals(s.last, &v) && frameArea == s.cells.Bounds() {
		return nil // nothing changed: nothing is written
	}
	s.repaint = false
	if frameArea != s.cells.Bounds() {
		s.scr.Erase()
		s.cells.Touched = nil
		s.cells.Resize(frameArea.Dx(), frameArea.Dy())
	}
	s.cells.Clear()
	content.Draw(s.cells, s.cells.Bounds())
	if fh := frameArea.Dy(); fh > s.height {
		s.cells.Lines = s.cells.Lines[fh-s.height:]
	}

	switchScreen := v.AltScreen != s.alt
	if switchScreen {
		// The sequences go out with the rest below, the cursor's
		// visibility after them (terminals keep one a screen).
		if v.AltScreen {
			s.scr.SaveCursor()
			s.scr.SetFullscreen(true)
			s.scr.SetRelativeCursor(false)
		} else {
			s.scr.SetRelativeCursor(true)
			s.scr.SetFullscreen(false)
			s.scr.RestoreCursor()
		}
		s.scr.Erase()
	}
	last := s.last
	if last == nil || v.DisableBracketedPasteMode != last.DisableBracketedPasteMode {
		if !v.DisableBracketedPasteMode {
			_, _ = s.scr.WriteString(ansi.SetModeBracketedPaste)
		} else if last != nil {
			_, _ = s.scr.WriteString(ansi.ResetModeBracketedPaste)
		}
	}
	if (last == nil && v.WindowTitle != "") || (last != nil && v.WindowTitle != last.WindowTitle) {
		_, _ = s.scr.WriteString(ansi.SetWindowTitle(v.WindowTitle))
	}
	var lastCursor *tea.Cursor
	var lastFg, lastBg, lastCc, cc color.Color
	if last != nil {
		lastCursor, lastFg, lastBg = last.Cursor, last.ForegroundColor, last.BackgroundColor
	}
	if lastCursor != nil {
		lastCc = lastCursor.Color
	}
	if v.Cursor != nil {
		cc = v.Cursor.Color
	}
	setColour(s.scr, cc, lastCc, ansi.ResetCursorColor, ansi.SetCursorColor)
	setColour(s.scr, v.ForegroundColor, lastFg, ansi.ResetForegroundColor, ansi.SetForegroundColor)
	setColour(s.scr, v.BackgroundColor, lastBg, ansi.ResetBackgroundColor, ansi.SetBackgroundColor)
	if style, lastStyle := cursorStyle(v.Cursor), cursorStyle(lastCursor); style != lastStyle {
		_, _ = s.scr.WriteString(ansi.SetCursorStyle(style))
	}

	s.scr.Render(s.cells.RenderBuffer)
	if c := v.Cursor; c != nil {
		s.scr.MoveTo(c.X, c.Y)
	} else if !v.AltScreen {
		// A hidden cursor at the end of an inline line can wrap it.
		if x, y := s.scr.Position(); x >= s.width-1 {
			s.scr.MoveTo(0, y)
		}
	}
	if err := s.scr.Flush(); err != nil {
		return fmt.Errorf("menus: render: %w", err)
	}

	hasUpdates := s.buf.Len() > 0
	didShow, show := lastCursor != nil, v.Cursor != nil
	cursorChange := last == nil || didShow != show || switchScreen
	var out bytes.Buffer
	if switchScreen {
		if v.AltScreen {
			out.WriteString(ansi.SetModeAltScreenSaveCursor)
		} else {
			out.WriteString(ansi.ResetModeAltScreenSaveCursor)
		}
		s.alt = v.AltScreen
	}
	if (cursorChange && !show) || (hasUpdates && show && didShow) {
		out.WriteString(ansi.ResetModeTextCursorEnable)
	}
	out.Write(s.buf.Bytes())
	if (cursorChange && show) || (hasUpdates && show && didShow) {
		out.WriteString(ansi.SetModeTextCursorEnable)
	}
	s.buf.Reset()
	s.last = &v
	if out.Len() == 0 {
		return nil
	}
	if _, err := s.w.Write(out.Bytes()); err != nil {
		return fmt.Errorf("menus: write: %w", err)
	}
	return nil
}

// close gives the terminal back as Bubble Tea does when it ends: the
// cursor to the bottom, the main screen, the cursor shown, bracketed
// paste off, and what the view set reset.
func (s *menuScreen) close() error {
	lv := s.last
	if lv == nil {
		return nil
	}
	if s.onGrid {
		// The cursor to the last row, as ultraviolet's MoveTo writes it.
		_, h := s.grid.Size()
		s.buf.WriteString(ansi.CursorPosition(1, max(h, 1)))
	} else {
		scr := s.renderer()
		scr.MoveTo(0, max(s.cells.Height()-1, 0)) // no cells: lent, not drawn since
		if err := scr.Flush(); err != nil {
			return fmt.Errorf("menus: close: %w", err)
		}
	}
	if s.alt {
		s.buf.WriteString(ansi.ResetModeAltScreenSaveCursor)
		s.alt = false
	} else {
		s.buf.WriteString(ansi.EraseScreenBelow)
	}
	if lv.Cursor == nil {
		s.buf.WriteString(ansi.SetModeTextCursorEnable)
	}
	if !lv.DisableBracketedPasteMode {
		s.buf.WriteString(ansi.ResetModeBracketedPaste)
	}
	if lv.WindowTitle != "" {
		s.buf.WriteString(ansi.SetWindowTitle(""))
	}
	if c := lv.Cursor; c != nil {
		if st := cursorStyle(c); st != 0 && st != 1 {
			s.buf.WriteString(ansi.SetCursorStyle(0))
		}
		if c.Color != nil {
			s.buf.WriteString(ansi.ResetCursorColor)
		}
	}
	if lv.BackgroundColor != nil {
		s.buf.WriteString(ansi.ResetBackgroundColor)
	}
	if lv.ForegroundColor != nil {
		s.buf.WriteString(ansi.ResetForegroundColor)
	}
	s.last = nil
	defer s.buf.Reset()
	if _, err := s.w.Write(s.buf.Bytes()); err != nil {
		return fmt.Errorf("menus: close: %w", err)
	}
	return nil
}

// setColour writes the sequence that changes a terminal colour from old
// to c, if it changed.
func setColour(scr *uv.TerminalRenderer, c, old color.Color, reset string, set func(string) string) {
	if c == old {
		return
	}
	if c == nil {
		_, _ = scr.WriteString(reset)
		return
	}
	r, g, b, _ := c.RGBA()
	_, _ = scr.WriteString(set(fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)))
}

// cursorStyle is DECSCUSR's number for c (0: the terminal's default).
func cursorStyle(c *tea.Cursor) int {
	if c == nil {
		return 0
	}
	st := int(c.Shape)*2 + 1
	if !c.Blink {
		st++
	}
	return st
}

// viewEquals reports whether two views draw the same (the parts of a
// view this screen honours).
func viewEquals(a, b *tea.View) bool {
	if a.Content != b.Content || a.AltScreen != b.AltScreen ||
		a.DisableBracketedPasteMode != b.DisableBracketedPasteMode ||
		a.WindowTitle != b.WindowTitle ||
		a.ForegroundColor != b.ForegroundColor || a.BackgroundColor != b.BackgroundColor {
		return false
	}
	if (a.Cursor == nil) != (b.Cursor == nil) {
		return false
	}
	return a.Cursor == nil || *a.Cursor == *b.Cursor
}
