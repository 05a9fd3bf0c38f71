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
	tron    bool   // light cycles rather than Pong
	watcher bool   // spectating: no seat of its own, the watcher's footer
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
// for the others (tui.RoomView.paintHUD); a header too narrow for every
// name shortens them ("▸ltto1… 0").
var hudEntryRE = regexp.MustCompile(`(▸?)([A-Za-z0-9][A-Za-z0-9_-]*…?) ([0-9]+)`)

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
	if v.tron {
		return v.checkTron(hud, foot, line)
	}
	names := map[string]bool{}
	me := false
	for _, m := range hudEntryRE.FindAllStringSubmatch(hud, -1) {
		names[m[2]] = true
		if short, cut := strings.CutSuffix(m[2], "…"); m[1] == "▸" && (m[2] == v.own || cut && strings.HasPrefix(v.own, short)) {
			me = true
		}
	}
	switch {
	case len(names) < 2:
		return false, fmt.Sprintf("HUD does not name two players with scores: %q", strings.TrimSpace(hud))
	case v.watcher && !strings.Contains(foot, footerWatch):
		return false, fmt.Sprintf("footer has no watcher's keys: %q", strings.TrimSpace(foot))
	case v.watcher:
		// A watcher has no seat, so no ▸ and no move keys.
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

// tronStatusRE is the light-cycle HUD's match line ("round 2 · first to 3").
var tronStatusRE = regexp.MustCompile(`round [0-9]+ · first to [0-9]+`)

// checkTron reports whether the emulated screen is a valid light-cycle
// frame: a HUD naming two riders with scores and the match line (which
// gives way to the names when they fill the header: 80 columns hold four);
// the footer's turn keys and "q leave"; and a board between them whose
// block glyphs (riders' trails and heads) are all in the riders' colours,
// and something on it: a head, a trail or the arena's border (┌┐└┘─│; a
// following camera shows it only near it; a rider that crashed sees
// trails only). Called with the emulator locked.
func (v *verifier) checkTron(hud, foot string, line func(int) string) (bool, string) {
	cols, rows := v.vt.Size()
	switch {
	case len(hudEntryRE.FindAllString(hud, -1)) < 2:
		return false, fmt.Sprintf("HUD does not name two riders with scores: %q", strings.TrimSpace(hud))
	case !tronStatusRE.MatchString(hud) && len([]rune(strings.TrimRight(hud, " "))) < cols*3/4:
		// The match line gives way to the names only when they fill
		// the header.
		return false, fmt.Sprintf("HUD has no match line (round N · first to M) and room for it: %q", strings.TrimSpace(hud))
	case !strings.Contains(foot, footerTurn):
		return false, fmt.Sprintf("footer has no turn keys: %q", strings.TrimSpace(foot))
	case !strings.Contains(foot, "q leave"):
		return false, fmt.Sprintf("footer does not say how to leave: %q", strings.TrimSpace(foot))
	}
	rider := func(c vt10x.Color) bool {
		return slotOf(&headColour256, int16(c)) >= 0 || slotOf(&trailColour256, int16(c)) >= 0
	}
	heads, border, blocks := 0, 0, 0
	for y := 1; y < rows-1; y++ {
		if strings.HasPrefix(line(y), "─ chat") {
			break // the chat pane under the board
		}
		for x := range cols {
			g := v.vt.Cell(x, y)
			switch g.Char {
			case '┌', '┐', '└', '┘', '│', '─':
				border++
			case '█', '▀', '▄':
				blocks++
				if g.FG > 255 || !rider(g.FG) {
					return false, fmt.Sprintf("block at %d,%d in colour %d, not a rider's", x, y, g.FG)
				}
				if slotOf(&headColour256, int16(g.FG)) >= 0 || (g.BG < 256 && slotOf(&headColour256, int16(g.BG)) >= 0) {
					heads++
				}
			}
		}
	}
	if heads+border+blocks == 0 {
		return false, "board shows no rider, trail or border"
	}
	return true, ""
}
