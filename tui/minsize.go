package tui

import (
	"fmt"

	"github.com/charmbracelet/colorprofile"
)

// chromeRows are the room screen's rows around the board: the header and
// the footer.
const chromeRows = 2

// MinTerminal is the least terminal (columns, rows) a room screen of mode
// (game.Mode.Name) of the game named game can be played on: the view's
// least board region (gameview.View.MinSize) and the header and footer.
// ok false: the server has no view for it, or the view does not know the
// mode.
func (vs Views) MinTerminal(game, mode string) (w, h int, ok bool) {
	gv := vs.newGameView(game, colorprofile.Ascii)
	if gv == nil {
		return 0, 0, false
	}
	if w, h, ok = gv.MinSize(mode); !ok {
		return 0, 0, false
	}
	return w, h + chromeRows, true
}

// TooSmall says why a w×h terminal cannot play mode of game, naming the
// size it needs and the size it has ("" when it can): what names the
// match ("pong-2v2", "r3's 1v1"). A player seated there would see only
// "Terminal too small" while the match went on without them.
func (vs Views) TooSmall(what, game, mode string, w, h int) string {
	nw, nh, ok := vs.MinTerminal(game, mode)
	if !ok || (w >= nw && h >= nh) {
		return ""
	}
	return fmt.Sprintf("%s needs a terminal of at least %d×%d; yours is %d×%d", what, nw, nh, w, h)
}
