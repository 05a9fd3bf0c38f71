package tui

import (
	"time"
	"unicode"

	"github.com/termarena/termarena/screen"
)

// Where the room view puts chat. The board comes first: the pane takes
// only room the board does not need at its smallest (1:1) scale, and when
// there is none the pane gives way to a marker in the footer; the "too
// small" screen only shows when the board alone does not fit.
const (
	// chatSideMin and chatSideMax bound a pane beside the board: narrower
	// is too cramped to read, wider takes scale from the board for nothing.
	chatSideMin = 30
	chatSideMax = 48
	// chatBottomMin and chatBottomMax bound a pane below the board, in
	// rows: a header and a line or two at least, a glance at most.
	chatBottomMin = 3
	chatBottomMax = 6
	// chatWaitRows and chatWaitWidth size the pane under the waiting
	// screen, where there is no board to share with.
	chatWaitRows  = 10
	chatWaitWidth = 80
)

// chatRect is where the pane is drawn; h == 0 means it is not.
type chatRect struct{ x, y, w, h int }

// chatPane is the room screen's chat: the pane beside or under the board
// (or under the waiting screen), and a server notice's banner across the
// top row. It draws the chat's snapshot (ChatLines), which the session's
// model publishes; the screen's layout says where the pane goes (pane).
type chatPane struct {
	cv *canvas
	// feed is the snapshot of the moment (RoomViewConfig.Chat); nil: no
	// chat, and the screen draws exactly what it drew before chat existed.
	feed func() *ChatLines
	now  func() time.Time

	snap      *ChatLines // this frame's snapshot
	shown     *ChatLines // the snapshot the pane shows
	pane      chatRect   // where the pane goes in the current layout
	paneShown chatRect
	cells     []gridCell // scratch for drawing chat text
	wrap      chatWrapper
	// bannerShown: the top row shows the chat snapshot's banner.
	bannerShown bool
}

// on: the screen has chat, so its layout leaves room for a pane.
func (c *chatPane) on() bool { return c.feed != nil }

// forget has the next frame draw the pane whole: the screen was cleared
// or resized under it.
func (c *chatPane) forget() { c.shown, c.paneShown = nil, chatRect{} }

// take reads this frame's snapshot. ended: a banner whose time is up gave
// its row back, so what it covered must be drawn again in this frame.
func (c *chatPane) take() (ended bool) {
	if c.feed != nil {
		c.snap = c.feed()
	}
	if c.bannerShown && !c.bannerLive() {
		return c.paintBanner()
	}
	return false
}

// footer is what the footer shows of chat: the marker, and the input
// line when the player types with no pane on screen (typing).
func (c *chatPane) footer() (marker, prompt string, typing bool) {
	cl := c.snap
	if cl == nil || c.pane.h > 0 {
		// The pane on screen says it all (its header counts what is new
		// and names the key); the footer repeating it was noise.
		return "", "", false
	}
	if cl.typing {
		return cl.marker, cl.prompt, true
	}
	return cl.marker, "", false
}

// waitingPane places the pane under the waiting screen's n lines: a full
// pane when there is room, else one line at the bottom, else none. It
// returns the rows left above it.
func (c *chatPane) waitingPane(n int) int {
	w, h := c.cv.w, c.cv.h
	c.pane = chatRect{}
	if c.feed == nil {
		return h
	}
	if k := min(chatWaitRows, h-n-2); k >= chatBottomMin {
		pw := min(w, chatWaitWidth)
		c.pane = chatRect{(w - pw) / 2, h - k, pw, k}
		return h - k - 1
	}
	if h > n+1 {
		c.pane = chatRect{0, h - 1, w, 1}
		return h - 1
	}
	return h
}

// paint draws the chat pane and the banner. ended: a banner whose time is
// up gave its row back, so what it covered must be drawn again.
func (c *chatPane) paint() (ended bool) {
	c.paintPane()
	if c.snap != nil && c.snap.banner != "" || c.bannerShown {
		return c.paintBanner()
	}
	return false
}

// paintPane repaints the pane when the snapshot or the pane moved. The
// steady state is two comparisons: no allocation, no cell touched.
func (c *chatPane) paintPane() {
	cl, p := c.snap, c.pane
	if cl == c.shown && p == c.paneShown {
		return
	}
	c.shown, c.paneShown = cl, p
	if cl == nil {
		return
	}
	if p.h < chatBottomMin || p.w <= 0 {
		setGeometry(cl.geo, 0, 0, true) // no rows to page through
	}
	if p.h <= 0 || p.w <= 0 {
		return
	}
	c.cv.scr.Fill(p.x, p.y, p.w, p.h, ' ', stDefault)
	if p.h < chatBottomMin {
		switch {
		case cl.typing:
			c.tail(p.x, p.y, p.w, cl.prompt, stBold)
		case cl.status != "":
			c.text(p.x, p.y, p.w, cl.status, stWarn)
		default:
			c.text(p.x, p.y, p.w, cl.marker, stDim)
		}
		return
	}
	c.rule(p.x, p.y, p.w, cl.header)
	bottom := p.y + p.h
	if cl.typing {
		bottom--
		c.tail(p.x, bottom, p.w, cl.prompt, stBold)
	}
	if cl.status != "" && bottom-1 > p.y {
		bottom--
		c.text(p.x, bottom, p.w, cl.status, stWarn)
	}
	n := bottom - p.y - 1
	setGeometry(cl.geo, p.w, n, true)
	c.wrap.grid = true
	rows, _ := c.wrap.rows(cl.lines, p.w, n, cl.scroll)
	y := bottom - len(rows)
	for _, l := range rows {
		x, room := p.x, p.w
		for i, sg := range l {
			used, cut := c.cellsAt(x, y, room, sg.text, gridStyle(sg.st), i < len(l)-1)
			x, room = x+used, room-used
			if cut {
				break
			}
		}
		y++
	}
}

// bannerLive: the chat snapshot has a banner whose time is not up.
func (c *chatPane) bannerLive() bool {
	cl := c.snap
	return cl != nil && cl.banner != "" && c.now().Before(cl.bannerUntil)
}

// paintBanner shows the snapshot's banner across the top row until it
// expires, then gives the row back (ended) to the HUD (or the waiting
// screen), which the caller has draw it again.
func (c *chatPane) paintBanner() (ended bool) {
	cl := c.snap
	if !c.bannerLive() {
		if c.bannerShown {
			c.bannerShown = false
			return true
		}
		return false
	}
	c.bannerShown = true
	text := " " + cl.banner + " "
	c.cells = gridRunes(c.cells[:0], text)
	n := 0
	for _, gc := range c.cells {
		n += int(gc.w)
	}
	w, scr := c.cv.w, c.cv.scr
	x := max((w-n)/2, 0)
	scr.Fill(0, 0, x, 1, ' ', stDefault)
	used, _ := c.cellsAt(x, 0, w-x, text, stWarn, false)
	scr.Fill(x+used, 0, w-x-used, 1, ' ', stDefault)
	return false
}

// cellsAt draws s from x in at most room cells and reports the cells
// used and whether it ran out of room; more says more text follows s on
// the line, so filling the room exactly still needs an ellipsis. A wide
// rune that would be cut in half by the edge goes with the cut.
func (c *chatPane) cellsAt(x, y, room int, s string, st screen.Style, more bool) (int, bool) {
	scr := c.cv.scr
	c.cells = gridRunes(c.cells[:0], s)
	n := 0
	for _, gc := range c.cells {
		n += int(gc.w)
	}
	if n < room || (n == room && !more) {
		for _, gc := range c.cells {
			x += scr.Set(x, y, gc.r, st)
		}
		return n, false
	}
	if room <= 0 {
		return 0, true
	}
	used := 0
	for _, gc := range c.cells {
		if used+int(gc.w) > room-1 {
			break
		}
		used += scr.Set(x+used, y, gc.r, st)
	}
	scr.Set(x+used, y, '…', st)
	return used + 1, true
}

func (c *chatPane) text(x, y, w int, s string, st screen.Style) {
	c.cellsAt(x, y, w, s, st, false)
}

// tail draws the end of s (the input line and its cursor) in w cells.
func (c *chatPane) tail(x, y, w int, s string, st screen.Style) {
	scr := c.cv.scr
	c.cells = gridRunes(c.cells[:0], s)
	n := 0
	for _, gc := range c.cells {
		n += int(gc.w)
	}
	cells := c.cells
	if n > w && w > 0 {
		// Keep what fits after the ellipsis, counting from the end.
		i, kept := len(cells), 0
		for i > 0 && kept+int(cells[i-1].w) <= w-1 {
			i--
			kept += int(cells[i].w)
		}
		x += scr.Set(x, y, '…', st)
		cells = cells[i:]
	}
	for _, gc := range cells {
		x += scr.Set(x, y, gc.r, st)
	}
}

// rule draws "─ header ───…" across w cells.
func (c *chatPane) rule(x, y, w int, header string) {
	c.cv.scr.Fill(x, y, w, 1, '─', stDim)
	if w > 2 {
		c.cellsAt(x+1, y, w-1, " "+header+" ", stDim, false)
	}
}

// gridCell is a rune as the grid draws it and the cells it takes.
type gridCell struct {
	r rune
	w int8
}

// gridRunes appends s as the grid draws it: one or two cells per rune
// (screen.Width, the same measure the grid and so the terminal go by), and
// nothing for runes that draw nothing by themselves: a combining mark would
// join the cell before it on the terminal but not in the grid. The text is
// sanitised already; this is about keeping the grid and the terminal in
// step.
func gridRunes(dst []gridCell, s string) []gridCell {
	for _, r := range s {
		if r < 0x80 {
			dst = append(dst, gridCell{r, 1})
			continue
		}
		if unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) {
			continue
		}
		if w := screen.Width(r); w > 0 {
			dst = append(dst, gridCell{r, int8(w)})
		}
	}
	return dst
}

// gridStyle maps a chat style to the game palette (which has no italics:
// system lines are told apart by colour and their leading dash).
func gridStyle(st chatStyle) screen.Style {
	switch {
	case st == csDim, st == csSystem:
		return stDim
	case st == csModeration:
		return stWarn
	case st == csWhisper:
		return stWhisper
	case st == csSelf:
		return stGood
	case st == csTeam:
		return stAccent
	case st >= csName0 && st < csName0+chatNameColors:
		return stChatName0 + screen.Style(st-csName0)
	}
	return stText
}
