package tui

import (
	"unicode"

	"github.com/termarena/termarena/gameview"
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

// clearScreen blanks the grid; the pane is repainted on the next frame.
func (v *RoomView) clearScreen() {
	v.scr.Clear()
	v.chatShown, v.paneShown = nil, chatRect{}
}

// layoutScaled lays out a board that scales (gameview.Scaled) and the
// chat pane: beside the board when the board at 1:1 (wholeW × wholeH
// cells) leaves chatSideMin columns, else below it when it leaves
// chatBottomMin rows, else no pane. The board's region is what the pane
// leaves; its cells within it are v.board. It reports false when even the
// board alone does not fit.
func (v *RoomView) layoutScaled(sv gameview.Scaled, snap any, wholeW, wholeH int) bool {
	v.pane = chatRect{}
	rows := v.h - 2 // the HUD and the footer
	fit := func(cols, rows int) bool {
		x, y, w, h, ok := sv.Fit(snap, cols, rows)
		if ok {
			v.region = [4]int{0, 1, cols, rows}
			v.board = [4]int{x, 1 + y, w, h}
		}
		return ok
	}
	if v.cfg.Chat != nil {
		if pw := min(chatSideMax, v.w-wholeW-1); pw >= chatSideMin {
			cols := v.w - pw - 1
			if fit(cols, rows) {
				v.pane = chatRect{cols + 1, 1, pw, rows}
				return true
			}
		}
		if k := min(chatBottomMax, rows-wholeH); k >= chatBottomMin {
			if fit(v.w, rows-k) {
				v.pane = chatRect{v.board[0], 1 + rows - k, v.board[2], k}
				return true
			}
		}
	}
	return fit(v.w, rows)
}

// waitingPane places the pane under the waiting screen's n lines: a full
// pane when there is room, else one line at the bottom, else none. It
// returns the rows left above it.
func (v *RoomView) waitingPane(n int) int {
	v.pane = chatRect{}
	if v.cfg.Chat == nil {
		return v.h
	}
	if k := min(chatWaitRows, v.h-n-2); k >= chatBottomMin {
		pw := min(v.w, chatWaitWidth)
		v.pane = chatRect{(v.w - pw) / 2, v.h - k, pw, k}
		return v.h - k - 1
	}
	if v.h > n+1 {
		v.pane = chatRect{0, v.h - 1, v.w, 1}
		return v.h - 1
	}
	return v.h
}

// paintChat draws the chat pane and the banner.
func (v *RoomView) paintChat() {
	v.paintPane()
	if v.chatNow != nil && v.chatNow.banner != "" || v.bannerShown {
		v.paintBanner()
	}
}

// paintPane repaints the pane when the snapshot or the pane moved. The
// steady state is two comparisons: no allocation, no cell touched.
func (v *RoomView) paintPane() {
	cl, p := v.chatNow, v.pane
	if cl == v.chatShown && p == v.paneShown {
		return
	}
	v.chatShown, v.paneShown = cl, p
	if cl == nil {
		return
	}
	if p.h < chatBottomMin || p.w <= 0 {
		setGeometry(cl.geo, 0, 0, true) // no rows to page through
	}
	if p.h <= 0 || p.w <= 0 {
		return
	}
	v.scr.Fill(p.x, p.y, p.w, p.h, ' ', stDefault)
	if p.h < chatBottomMin {
		switch {
		case cl.typing:
			v.chatTail(p.x, p.y, p.w, cl.prompt, stBold)
		case cl.status != "":
			v.chatText(p.x, p.y, p.w, cl.status, stWarn)
		default:
			v.chatText(p.x, p.y, p.w, cl.marker, stDim)
		}
		return
	}
	v.chatRule(p.x, p.y, p.w, cl.header)
	bottom := p.y + p.h
	if cl.typing {
		bottom--
		v.chatTail(p.x, bottom, p.w, cl.prompt, stBold)
	}
	if cl.status != "" && bottom-1 > p.y {
		bottom--
		v.chatText(p.x, bottom, p.w, cl.status, stWarn)
	}
	n := bottom - p.y - 1
	setGeometry(cl.geo, p.w, n, true)
	v.wrap.grid = true
	rows, _ := v.wrap.rows(cl.lines, p.w, n, cl.scroll)
	y := bottom - len(rows)
	for _, l := range rows {
		x, room := p.x, p.w
		for i, sg := range l {
			used, cut := v.chatCells(x, y, room, sg.text, gridStyle(sg.st), i < len(l)-1)
			x, room = x+used, room-used
			if cut {
				break
			}
		}
		y++
	}
}

// bannerLive: the chat snapshot has a banner whose time is not up.
func (v *RoomView) bannerLive() bool {
	cl := v.chatNow
	return cl != nil && cl.banner != "" && v.cfg.Now().Before(cl.bannerUntil)
}

// paintBanner shows the snapshot's banner across the top row until it
// expires, then gives the row back to the HUD (or the waiting screen).
func (v *RoomView) paintBanner() {
	cl := v.chatNow
	if !v.bannerLive() {
		if v.bannerShown {
			v.bannerShown = false
			v.hud, v.hudKey = "", hudKey{} // repaint what the banner covered
		}
		return
	}
	v.bannerShown = true
	text := " " + cl.banner + " "
	v.cells = gridRunes(v.cells[:0], text)
	n := 0
	for _, c := range v.cells {
		n += int(c.w)
	}
	x := max((v.w-n)/2, 0)
	v.scr.Fill(0, 0, x, 1, ' ', stDefault)
	used, _ := v.chatCells(x, 0, v.w-x, text, stWarn, false)
	v.scr.Fill(x+used, 0, v.w-x-used, 1, ' ', stDefault)
}

// chatCells draws s from x in at most room cells and reports the cells
// used and whether it ran out of room; more says more text follows s on
// the line, so filling the room exactly still needs an ellipsis. A wide
// rune that would be cut in half by the edge goes with the cut.
func (v *RoomView) chatCells(x, y, room int, s string, st screen.Style, more bool) (int, bool) {
	v.cells = gridRunes(v.cells[:0], s)
	n := 0
	for _, c := range v.cells {
		n += int(c.w)
	}
	if n < room || (n == room && !more) {
		for _, c := range v.cells {
			x += v.scr.Set(x, y, c.r, st)
		}
		return n, false
	}
	if room <= 0 {
		return 0, true
	}
	used := 0
	for _, c := range v.cells {
		if used+int(c.w) > room-1 {
			break
		}
		used += v.scr.Set(x+used, y, c.r, st)
	}
	v.scr.Set(x+used, y, '…', st)
	return used + 1, true
}

func (v *RoomView) chatText(x, y, w int, s string, st screen.Style) {
	v.chatCells(x, y, w, s, st, false)
}

// chatTail draws the end of s (the input line and its cursor) in w cells.
func (v *RoomView) chatTail(x, y, w int, s string, st screen.Style) {
	v.cells = gridRunes(v.cells[:0], s)
	n := 0
	for _, c := range v.cells {
		n += int(c.w)
	}
	cells := v.cells
	if n > w && w > 0 {
		// Keep what fits after the ellipsis, counting from the end.
		i, kept := len(cells), 0
		for i > 0 && kept+int(cells[i-1].w) <= w-1 {
			i--
			kept += int(cells[i].w)
		}
		x += v.scr.Set(x, y, '…', st)
		cells = cells[i:]
	}
	for _, c := range cells {
		x += v.scr.Set(x, y, c.r, st)
	}
}

// chatRule draws "─ header ───…" across w cells.
func (v *RoomView) chatRule(x, y, w int, header string) {
	v.scr.Fill(x, y, w, 1, '─', stDim)
	if w > 2 {
		v.chatCells(x+1, y, w-1, " "+header+" ", stDim, false)
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
