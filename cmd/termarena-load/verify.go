package main

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// verifier feeds one session's entire output into a real terminal emulator
// so that the frame counts of the run can be trusted: a server (or a bug)
// that sent cheap bytes wrapped in ESC 7/8 would count frames but fail
// these checks. It belongs to the bot's reader goroutine.
type verifier struct {
	vt      vt10x.Terminal
	pending []byte // a UTF-8 rune split across reads, held back
	own     string // the bot's player name, marked ▸ in its HUD
}

func newVerifier(cols, rows int, own string) *verifier {
	return &verifier{vt: vt10x.New(vt10x.WithSize(cols, rows)), pending: make([]byte, 0, utf8.UTFMax), own: own}
}

// Write hands p to the emulator. vt10x drops the first bytes of a rune cut
// at the end of a Write, so only whole runes are passed on and a cut one
// waits for the next read.
func (v *verifier) Write(p []byte) {
	for len(v.pending) > 0 && len(p) > 0 {
		v.pending = append(v.pending, p[0])
		p = p[1:]
		if utf8.FullRune(v.pending) || len(v.pending) == utf8.UTFMax {
			_, _ = v.vt.Write(v.pending)
			v.pending = v.pending[:0]
		}
	}
	end := len(p)
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				end = i
			}
			break
		}
	}
	if end > 0 {
		_, _ = v.vt.Write(p[:end])
	}
	v.pending = append(v.pending, p[end:]...)
}

// hudEntryRE is one player in the HUD: "▸name 3" for the viewer, "name 3"
// for the others (tui.RoomView.paintHUD).
var hudEntryRE = regexp.MustCompile(`(▸?)([A-Za-z0-9][A-Za-z0-9_-]*) ([0-9]+)`)

// check reports whether the emulated screen is a valid 1v1 game frame: a
// HUD naming two players with scores, one of them this bot; two paddles of
// block glyphs in the outer columns of the board, in colours other than the
// wall's; and the footer's key help. The reason says what was missing.
func (v *verifier) check() (bool, string) {
	v.vt.Lock()
	defer v.vt.Unlock()
	cols, rows := v.vt.Size()
	line := func(y int) string {
		var b strings.Builder
		for x := range cols {
			b.WriteRune(v.vt.Cell(x, y).Char)
		}
		return b.String()
	}
	hud, foot := line(0), line(rows-1)
	names := map[string]bool{}
	me := false
	for _, m := range hudEntryRE.FindAllStringSubmatch(hud, -1) {
		names[m[2]] = true
		if m[1] == "▸" && m[2] == v.own {
			me = true
		}
	}
	switch {
	case len(names) < 2:
		return false, fmt.Sprintf("HUD does not name two players with scores: %q", strings.TrimSpace(hud))
	case !me:
		return false, fmt.Sprintf("HUD does not mark this player (▸%s): %q", v.own, strings.TrimSpace(hud))
	case !strings.Contains(foot, footerMoveV) && !strings.Contains(foot, footerMoveH):
		return false, fmt.Sprintf("footer has no key help: %q", strings.TrimSpace(foot))
	case !strings.Contains(foot, "q leave"):
		return false, fmt.Sprintf("footer does not say how to leave: %q", strings.TrimSpace(foot))
	}
	// The board is centred: its outer columns are the outermost ones
	// holding block glyphs between the HUD and the footer.
	outer := func(from, step int) int {
		for x := from; x >= 0 && x < cols; x += step {
			for y := 1; y < rows-1; y++ {
				if isBlock(v.vt.Cell(x, y).Char) {
					return x
				}
			}
		}
		return -1
	}
	paddle := func(x int) (run int, why string) {
		if x < 0 {
			return 0, "no board"
		}
		// Corners are walls; the first block glyph in the column is one.
		var wall vt10x.Color
		found := false
		best, cur, last := 0, 0, -2
		for y := 1; y < rows-1; y++ {
			g := v.vt.Cell(x, y)
			if !isBlock(g.Char) {
				continue
			}
			if !found {
				wall, found = g.FG, true
				continue
			}
			if g.FG == wall {
				continue
			}
			if y == last+1 {
				cur++
			} else {
				cur = 1
			}
			last = y
			best = max(best, cur)
		}
		return best, ""
	}
	lx, rx := outer(0, 1), outer(cols-1, -1)
	if lx < 0 || rx-lx < 10 {
		return false, fmt.Sprintf("no board: outer block columns %d and %d", lx, rx)
	}
	for _, x := range []int{lx, rx} {
		// A paddle is 8 units: 4 or 5 cells of half blocks at 1:1, more on
		// bigger terminals; 2 allows for a ball passing over one.
		n, why := paddle(x)
		if why != "" || n < 2 || n > rows/2 {
			return false, fmt.Sprintf("column %d has no paddle (longest coloured run %d cells)", x, n)
		}
	}
	return true, ""
}

// Screen returns what the emulator shows, for failure reports. (String
// takes the emulator's lock itself.)
func (v *verifier) Screen() string { return v.vt.String() }
