package tui

import (
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/gameview"
)

// boardLayout is where a room screen puts the game's board and the chat
// pane on the terminal. The board comes first: the pane takes only room
// the board does not need at its smallest (1:1) scale.
type boardLayout struct {
	game   gameview.View
	scaled gameview.Scaled // the game's view when its board scales (nil: not)
	// The game view's region (x, y, w, h) and the cells its board takes
	// in it.
	region [4]int
	board  [4]int
	// w, h: the terminal size they were laid out for (0×0: none yet).
	w, h int
}

// laidOutFor: the layout is the one for a w×h terminal.
func (l *boardLayout) laidOutFor(w, h int) bool { return l.w == w && l.h == h }

// size is the board's whole and least regions for fr.
func (l *boardLayout) size(fr *game.Frame) (ww, wh, mw, mh int) {
	return l.game.Size(fr.State)
}

// place lays out fr's board on a w×h terminal, and the chat pane when
// chat: a board that scales fills what the pane leaves; a camera's board
// is shown whole where it fits (placeWhole). False when not even the
// least region fits.
func (l *boardLayout) place(fr *game.Frame, w, h int, chat bool) (pane chatRect, ok bool) {
	if sv := l.scaled; sv != nil {
		ww, wh, _, _ := l.size(fr)
		pane, ok = l.placeScaled(sv, fr.State, w, h, ww, wh, chat)
	} else if pane, ok = l.placeWhole(fr, w, h, chat); ok {
		l.board = l.region
	}
	if ok {
		l.w, l.h = w, h
	}
	return pane, ok
}

// placeWhole places the board region and the chat pane: the pane beside
// the board when the terminal is wide enough; else under a board shown
// whole if it still fits; no pane rather than cut a board that fits whole
// (typing then takes the footer); under a following camera's smaller
// board otherwise. False when not even the least region fits.
func (l *boardLayout) placeWhole(fr *game.Frame, w, h int, chat bool) (pane chatRect, ok bool) {
	ww, wh, mw, mh := l.size(fr)
	rows := h - 2 // the header and the footer
	if w < mw || rows < mh {
		return pane, false
	}
	bw, bh := min(ww, w), min(wh, rows)
	whole := w >= ww && rows >= wh
	if chat {
		switch {
		case w-ww-1 >= chatSideMin:
			pw := min(chatSideMax, w-ww-1)
			pane = chatRect{w - pw, 1, pw, rows}
		case whole && rows-wh >= chatBottomMin:
			k := min(chatBottomMax, rows-wh)
			pane = chatRect{0, 1 + rows - k, w, k}
		case whole:
		case rows-chatBottomMin >= mh:
			k := min(chatBottomMax, rows-mh)
			pane = chatRect{0, 1 + rows - k, w, k}
			bh = rows - k
		}
	}
	// Centred in the columns the pane leaves.
	free := w
	if pane.h == rows && pane.w > 0 {
		free = w - pane.w - 1
	}
	bw = min(bw, free)
	l.region = [4]int{(free - bw) / 2, 1, bw, bh}
	return pane, true
}

// placeScaled lays out a board that scales (gameview.Scaled) and the
// chat pane: beside the board when the board at 1:1 (wholeW × wholeH
// cells) leaves chatSideMin columns, else below it when it leaves
// chatBottomMin rows, else no pane. The board's region is what the pane
// leaves; its cells within it are l.board. False when even the board
// alone does not fit.
func (l *boardLayout) placeScaled(sv gameview.Scaled, snap any, w, h, wholeW, wholeH int, chat bool) (pane chatRect, ok bool) {
	rows := h - 2 // the HUD and the footer
	fit := func(cols, rows int) bool {
		x, y, w, h, ok := sv.Fit(snap, cols, rows)
		if ok {
			l.region = [4]int{0, 1, cols, rows}
			l.board = [4]int{x, 1 + y, w, h}
		}
		return ok
	}
	if chat {
		if pw := min(chatSideMax, w-wholeW-1); pw >= chatSideMin {
			cols := w - pw - 1
			if fit(cols, rows) {
				return chatRect{cols + 1, 1, pw, rows}, true
			}
		}
		if k := min(chatBottomMax, rows-wholeH); k >= chatBottomMin {
			if fit(w, rows-k) {
				return chatRect{l.board[0], 1 + rows - k, l.board[2], k}, true
			}
		}
	}
	return pane, fit(w, rows)
}
