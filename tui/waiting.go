package tui

import (
	"fmt"
	"strings"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/screen"
)

// waitScreen is the room screen before a match: who sits where and who is
// ready, the keys, and a question or the key help (there is no board to
// show them over yet). It is drawn again only when a line changed.
type waitScreen struct {
	cfg *RoomViewConfig
	cv  *canvas
	// key is what the screen shows ("": draw it again): its lines, the
	// terminal's size and the chat pane's place.
	key string
}

// forget has the next frame draw the waiting screen whole.
func (ws *waitScreen) forget() { ws.key = "" }

// waitLine is one line of the pre-game screen.
type waitLine struct {
	text string
	st   screen.Style
}

// lines are the pre-game screen's for fr: who sits where (by team when
// the mode has teams) and who is ready, the keys, warning (the terminal
// cannot show the board, "" when it can) and the prompt.
func (ws *waitScreen) lines(fr *game.Frame, teams [][]int, warning string, prompt []string) []waitLine {
	cfg, w, h := ws.cfg, ws.cv.w, ws.cv.h
	lines := []waitLine{{cfg.title(fr), stAccent}, {"", stDefault}}
	if fr != nil {
		for slot, s := range fr.Seats {
			label, st := fmt.Sprintf("seat %d", slot+1), stText
			if gv := cfg.Game; gv != nil {
				// The game names its seats, in their colours.
				_, st, _, _ = gv.Seat(fr.State, slot)
				label = gv.SeatLabel(fr.State, slot)
			}
			if teams != nil {
				label += teamName(teams, slot)
			}
			if !s.Taken {
				lines = append(lines, waitLine{label + "  (free)", stDim})
				continue
			}
			state := "not ready"
			if s.Ready {
				state = "ready ✓"
			}
			if !s.Connected {
				state = "disconnected"
			}
			if l := cfg.label(fr, slot); l != "" {
				state = fmt.Sprintf("%-6s %s", l, state)
			}
			me := ""
			if slot == cfg.Slot {
				me = " (you)"
			}
			lines = append(lines, waitLine{fmt.Sprintf("%s  %-16s %s%s", label, s.Player.Name, state, me), st})
		}
	}
	keys := "needs 2 players, all ready · r ready · q leave"
	if cfg.WarmUp && fr != nil && seatedIn(fr) == 1 {
		// Alone: r starts the game at once; a second player sitting
		// ends the warm-up and the two play from a countdown.
		keys = "alone: r warm up (nothing counts until someone sits) · q leave"
	}
	if cfg.Bots && fr != nil && seatedIn(fr) < len(fr.Seats) {
		keys = strings.Replace(keys, " · q leave", " · b bots · q leave", 1)
	}
	if cfg.Slot < 0 {
		keys = cfg.WaitText
	}
	if warning != "" {
		// Said before the countdown, while there is still time to
		// enlarge the window: the match will not wait for it.
		lines = append(lines, waitLine{"", stDefault})
		for _, l := range fitLines([]string{warning}, w, h) {
			lines = append(lines, waitLine{l, stWarn}) // whole, on the very terminal it is about
		}
	}
	lines = append(lines, waitLine{"", stDefault}, waitLine{keys, stDim})
	if len(prompt) > 0 {
		// A question or the key help (?) is shown here too: before the
		// match there is no board to show it over.
		lines = append(lines, waitLine{"", stDefault})
		for _, l := range fitLines(prompt, w, h) {
			lines = append(lines, waitLine{l, stBold})
		}
	}
	return lines
}

// changed reports whether lines, with the chat pane at pane, differ from
// what the screen shows, and takes them as shown.
func (ws *waitScreen) changed(lines []waitLine, pane chatRect) bool {
	key := fmt.Sprint(lines, ws.cv.w, ws.cv.h, pane)
	if key == ws.key {
		return false
	}
	ws.key = key
	return true
}

// draw draws lines, centred in the top rows of the screen (cleared).
func (ws *waitScreen) draw(lines []waitLine, rows int) {
	w, scr := ws.cv.w, ws.cv.scr
	wid := 0
	for _, l := range lines {
		wid = max(wid, len([]rune(l.text)))
	}
	left := max((w-wid)/2, 0)
	top := max((rows-len(lines))/2, 0)
	for i, l := range lines {
		x := left
		if i == 0 { // the title is centred over the block
			x = max((w-len([]rune(l.text)))/2, 0)
		}
		scr.Text(x, top+i, l.text, l.st)
	}
}

// seatedIn counts the taken seats of a frame.
func seatedIn(fr *game.Frame) int {
	n := 0
	for _, s := range fr.Seats {
		if s.Taken {
			n++
		}
	}
	return n
}
