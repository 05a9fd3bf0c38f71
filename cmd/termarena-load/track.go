package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// phase is what a bot's session shows, as far as its game frames tell.
type phase int32

const (
	phaseNone     phase = iota // no game screen yet: menus, the queue
	phaseWaiting               // a room's pre-game screen
	phasePlay                  // the board: countdown, play, serve pauses
	phaseFinished              // the results screen after a match
)

func (p phase) String() string {
	return [...]string{"none", "waiting", "play", "finished"}[p]
}

// Parser states of tracker.
const (
	sGround    = iota // outside a game frame
	sGroundEsc        // ESC seen outside a frame
	sFrame            // inside ESC 7 … ESC 8
	sFrameEsc         // ESC seen inside a frame
	sFrameCSI         // inside a CSI sequence inside a frame
)

const esc = 0x1b

// tracker follows one session's output stream without a terminal emulator.
//
// Every game frame the server writes is wrapped in ESC 7 … ESC 8 (save and
// restore cursor, screen.Render), and inside that wrapper the room view uses
// only absolute cursor moves, cursor-forward, SGR and a full clear. So a
// small state machine can count frames exactly and keep a rune grid of what
// the game frames drew, which tells the bot which screen it is on (the
// footer help differs between board, results and waiting room) at a cost of
// a few nanoseconds per byte. termarena's menus paint in ESC 7 … ESC 8 too
// (screen.Render): with menusFramed those paints are not counted.
// All state survives chunk boundaries: a sequence or rune split across two
// reads is handled like a whole one.
type tracker struct {
	cols, rows int
	// menusFramed: the server's menus paint in ESC 7 … ESC 8 as its game
	// screens do (termarena since 54289a5, not the baseline), so frames
	// count only on a game screen.
	menusFramed bool
	grid        []rune
	st          int
	x, y        int // cursor inside a frame; off-grid values draw nothing

	params [16]int
	np     int // parameters seen so far, capped
	utf    [utf8.UTFMax]byte
	un     int // bytes of a partial UTF-8 rune in utf

	dirty       bool // the grid changed since the last frame end
	footerDirty bool

	// Counted over the whole stream; the owner publishes them.
	frames     uint64
	frameBytes uint64

	// The board's interior (inside the walls, exclusive bounds) and how
	// many letters or digits it holds: the board itself is only half
	// blocks, so any text there is an overlay (countdown, "point:",
	// results, a pause notice) and the ball is not in play.
	board     [4]int // x0, y0, x1, y1
	boardOK   bool
	textCells int
	digits    int  // of textCells
	countdown bool // the last overlay had a row of digits only: the countdown

	// Where the ball and the paddles are, for a bot that chases the ball:
	// inside the walls the only block glyph is the ball, and between the
	// corners of each outer column the only ones are that side's paddle.
	ballY  int
	padN   [2]int // block cells in the left and right outer columns
	padSum [2]int // sum of their rows
	mySide int    // 0 left, 1 right: whose name the HUD marks ▸

	// anyFrameIsPlay is for the baseline server, whose frames are not a
	// board: every frame counts as live play.
	anyFrameIsPlay bool
	// watcher: the session spectates; its board is the game screen
	// whenever the footer has the watcher's keys, and live while no
	// overlay (waiting, a point, match over) covers it.
	watcher bool

	// Derived from the grid at frame ends.
	phase      phase
	live       bool   // on the board with no overlay
	horizontal bool   // the footer says a/d: a top or bottom seat
	roomID     string // "rN" from a waiting room's title
	roomMode   string // the mode in that title ("1v1", "tron")
	ready      int    // waiting room: -1 not ready, +1 ready, 0 unknown
	seated     int    // waiting room: seats taken
	seat       int    // waiting room: this player's seat, 0-based; -1 unknown

	// Light cycles (--game tron): the cells' colours and what the bot
	// reads from them; nil unless enabled with withTron.
	cyc *cycles
}

func newTracker(cols, rows int) *tracker {
	t := &tracker{cols: cols, rows: rows, grid: make([]rune, cols*rows), seat: -1}
	t.clear()
	return t
}

func (t *tracker) clear() {
	for i := range t.grid {
		t.grid[i] = ' '
	}
	if t.cyc != nil {
		t.cyc.clear()
	}
	t.dirty, t.footerDirty = true, true
	t.boardOK, t.textCells = false, 0
}

// countFrame counts the frame just ended, unless it is a menu's paint:
// termarena's menus draw through screen.Render too (54289a5), in the
// same ESC 7 … ESC 8, and leave no game screen's footer.
func (t *tracker) countFrame() {
	if !t.menusFramed || t.phase != phaseNone {
		t.frames++
	}
}

// inFrame reports whether the stream stopped in the middle of a frame.
func (t *tracker) inFrame() bool { return t.st >= sFrame }

// Write consumes one chunk of output and reports whether the screen phase
// (or what the bot reads from the screen) may have changed.
func (t *tracker) Write(p []byte) (changed bool) {
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch t.st {
		case sGround:
			j := bytes.IndexByte(p[i:], esc)
			if j < 0 {
				return changed
			}
			i += j
			t.st = sGroundEsc
		case sGroundEsc:
			switch b {
			case '7':
				t.st = sFrame
				t.frameBytes += 2
				t.x, t.y, t.un = -1, -1, 0
			case '8':
				// A restore-cursor outside a frame still ends one: the
				// count must not depend on having seen the frame's start.
				t.countFrame()
				t.frameBytes += 2
				t.st = sGround
			case esc:
			default:
				t.st = sGround
			}
		case sFrame:
			t.frameBytes++
			switch {
			case b == esc:
				t.st, t.un = sFrameEsc, 0
			case b < 0x20 || b == 0x7f:
				t.un = 0
			case b < utf8.RuneSelf:
				t.put(rune(b))
			default:
				if t.un == len(t.utf) || (t.un > 0 && utf8.RuneStart(b)) {
					t.un = 0 // a broken rune draws nothing
				}
				t.utf[t.un] = b
				t.un++
				if utf8.FullRune(t.utf[:t.un]) {
					r, _ := utf8.DecodeRune(t.utf[:t.un])
					t.un = 0
					t.put(r)
				}
			}
		case sFrameEsc:
			t.frameBytes++
			switch b {
			case '[':
				t.st, t.np, t.params = sFrameCSI, 0, [16]int{}
			case '8':
				t.st = sGround
				if t.endFrame() {
					changed = true
				}
				t.countFrame()
			case '7':
				t.st = sFrame
			case esc:
			default:
				t.st = sFrame
			}
		case sFrameCSI:
			t.frameBytes++
			switch {
			case b >= '0' && b <= '9':
				if t.np < len(t.params) && t.params[t.np] < 100000 {
					t.params[t.np] = t.params[t.np]*10 + int(b-'0')
				}
			case b == ';':
				t.np = min(t.np+1, len(t.params))
			case b == esc:
				t.st = sFrameEsc
			case b >= 0x40 && b <= 0x7e:
				t.csi(b)
				t.st = sFrame
			}
		}
	}
	return changed
}

func (t *tracker) put(r rune) {
	if t.x >= 0 && t.x < t.cols && t.y >= 0 && t.y < t.rows {
		i := t.y*t.cols + t.x
		if c := t.cyc; c != nil && (c.fg[i] != c.penFG || c.bg[i] != c.penBG) {
			c.fg[i], c.bg[i] = c.penFG, c.penBG
			t.dirty = true
			if t.y == 0 {
				c.hudDirty = true
			}
		}
		if t.grid[i] != r {
			if t.boardOK {
				t.track(t.grid[i], r)
			}
			t.grid[i] = r
			t.dirty = true
			if t.y == t.rows-1 {
				t.footerDirty = true
			}
			if t.y == 0 && t.cyc != nil {
				t.cyc.hudDirty = true
			}
		}
	}
	if t.x >= 0 {
		t.x++
	}
}

func (t *tracker) csi(final byte) {
	p0, p1 := t.params[0], t.params[1]
	switch final {
	case 'H', 'f':
		t.y, t.x = max(p0, 1)-1, max(p1, 1)-1
	case 'C':
		if t.x >= 0 {
			t.x += max(p0, 1)
		}
	case 'J':
		if p0 == 2 {
			t.clear()
		}
	case 'm':
		if t.cyc != nil {
			t.cyc.sgr(t.params[:min(t.np+1, len(t.params))])
		}
	}
}

// Screen texts of the room view (tui/roomview.go) that tell screens apart.
const (
	footerMoveV   = "w/s ↑/↓ move"
	footerMoveH   = "a/d ←/→ move"
	footerRematch = "r rematch"
	// A finished ranked match whose other player has gone back to the
	// queue offers only "n queue · q leave"; a finished casual room left
	// alone says "waiting for players · q leave". Both are the results
	// screen: a bot that missed them sat there for the rest of a run.
	footerQueue = "n queue · q leave"
	footerAlone = "waiting for players · q leave"
	// A finished casual room of a game that warms up offers a lone
	// player the warm-up instead (a bot does not take it: it waits, as
	// it waits on a waiting screen alone, which says "alone: r warm up").
	footerWarmUp = "alone: r warm up · q leave"
	footerWatch  = "n/p next room"    // a watcher's (tui/watch.go)
	footerTurn   = "arrows/WASD turn" // light cycles (game/tron/view.KeyHelp)
	waitingHelp  = "needs 2 players"
)

var (
	// roomTitleRE is a room screen's title; in a cluster the id carries
	// its node (r3@n2).
	roomTitleRE = regexp.MustCompile(`\b(r[0-9]+(?:@[a-z0-9._-]+)?) · ([a-z0-9-]+) · casual`)
	// seatRE is a plug-in game's waiting-room seat ("A seat 3  ann …").
	seatRE = regexp.MustCompile(`\bseat ([0-9]+)\b`)
)

// track keeps the board counts current as the cell at the cursor changes
// from old to r.
func (t *tracker) track(old, r rune) {
	x, y, b := t.x, t.y, &t.board
	if y < b[1] || y >= b[3] {
		return
	}
	switch {
	case x >= b[0] && x < b[2]:
		t.textCells += isText(r) - isText(old)
		t.digits += isDigit(r) - isDigit(old)
		if isBlock(r) {
			t.ballY = y
		}
	case x == b[0]-1 || x == b[2]:
		side := 0
		if x == b[2] {
			side = 1
		}
		d := isBlockN(r) - isBlockN(old)
		t.padN[side] += d
		t.padSum[side] += d * y
	}
}

func isText(r rune) int {
	if (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
		return 1
	}
	return 0
}

func isDigit(r rune) int {
	if r >= '0' && r <= '9' {
		return 1
	}
	return 0
}

func isBlock(r rune) bool { return r == '█' || r == '▀' || r == '▄' }

func isBlockN(r rune) int {
	if isBlock(r) {
		return 1
	}
	return 0
}

// chase is the direction (-1 up, +1 down, 0 stay) that brings this
// player's paddle to the ball's row, and false when that is unknown.
func (t *tracker) chase() (int, bool) {
	n := t.padN[t.mySide]
	if !t.boardOK || n == 0 {
		return 0, false
	}
	// Rows are compared times n to stay in integers.
	d := t.ballY*n - t.padSum[t.mySide]
	switch {
	case d > n:
		return 1, true
	case d < -n:
		return -1, true
	}
	return 0, true
}

// endFrame re-reads the screen after a frame that changed it.
func (t *tracker) endFrame() bool {
	if t.anyFrameIsPlay {
		changed := !t.live
		t.phase, t.live = phasePlay, true
		return changed
	}
	if !t.dirty {
		return false
	}
	t.dirty = false
	old, oldLive := t.phase, t.live
	oldID, oldReady, oldSeated := t.roomID, t.ready, t.seated
	if t.footerDirty || t.phase != phasePlay {
		t.footerDirty = false
		foot := t.row(t.rows - 1)
		switch {
		case t.watcher && strings.Contains(foot, footerWatch):
			t.phase, t.horizontal = phasePlay, false
		case t.watcher:
			t.phase = phaseNone
		case t.cyc != nil && strings.Contains(foot, footerTurn):
			t.phase, t.horizontal = phasePlay, false
		case strings.Contains(foot, footerMoveV):
			t.phase, t.horizontal = phasePlay, false
		case strings.Contains(foot, footerMoveH):
			t.phase, t.horizontal = phasePlay, true
		case strings.Contains(foot, footerRematch), strings.Contains(foot, footerQueue), strings.Contains(foot, footerAlone), strings.Contains(foot, footerWarmUp):
			t.phase = phaseFinished
		default:
			t.phase = phaseNone
			t.readWaiting()
		}
	}
	if t.cyc != nil {
		// Light cycles: no Pong board; live is riding, read from the
		// HUD and the bot's own head.
		t.live = t.cyc.endFrame(t)
		return t.phase != old || t.live != oldLive || t.roomID != oldID || t.ready != oldReady || t.seated != oldSeated || t.cyc.steerNew
	}
	if t.phase != phasePlay {
		t.boardOK = false
	} else if !t.boardOK {
		t.findBoard()
	}
	if t.textCells > 0 {
		t.countdown = t.digits == t.textCells || t.digitRow()
	}
	t.live = t.phase == phasePlay && t.boardOK && t.textCells == 0
	return t.phase != old || t.live != oldLive || t.roomID != oldID || t.ready != oldReady || t.seated != oldSeated
}

// findBoard locates the board once it is drawn: its outer columns are the
// outermost ones holding block glyphs between HUD and footer, and in the
// left one the first and last block glyphs are the corners. Then it counts
// the text inside; put keeps the count from there on.
func (t *tracker) findBoard() {
	colHas := func(x int) bool {
		for y := 1; y < t.rows-1; y++ {
			if isBlock(t.grid[y*t.cols+x]) {
				return true
			}
		}
		return false
	}
	x0, x1 := -1, -1
	for x := 0; x < t.cols && x0 < 0; x++ {
		if colHas(x) {
			x0 = x
		}
	}
	for x := t.cols - 1; x > x0 && x1 < 0; x-- {
		if colHas(x) {
			x1 = x
		}
	}
	if x0 < 0 || x1 < 0 {
		return
	}
	y0, y1 := -1, -1
	for y := 1; y < t.rows-1; y++ {
		if isBlock(t.grid[y*t.cols+x0]) {
			if y0 < 0 {
				y0 = y
			}
			y1 = y
		}
	}
	if y1-y0 < 2 || x1-x0 < 2 {
		return
	}
	t.board = [4]int{x0 + 1, y0 + 1, x1, y1}
	t.boardOK, t.textCells, t.digits = true, 0, 0
	t.padN, t.padSum, t.ballY = [2]int{}, [2]int{}, (y0+y1)/2
	for y := y0 + 1; y < y1; y++ {
		for x := x0; x <= x1; x++ {
			r := t.grid[y*t.cols+x]
			switch {
			case x == x0 || x == x1:
				if isBlock(r) {
					side := min(x-x0, 1)
					t.padN[side]++
					t.padSum[side] += y
				}
			case isBlock(r):
				t.ballY = y
			default:
				t.textCells += isText(r)
				t.digits += isDigit(r)
			}
		}
	}
	// The HUD lists seats in order, the left player first, from column 1.
	t.mySide = 1
	if t.grid[1] == '▸' {
		t.mySide = 0
	}
}

// readWaiting reads the waiting room: its title (the room id) and whether
// the line marked "(you)" says ready. The whole grid is read, which is fine
// because waiting screens change a few times per room, not per frame.
func (t *tracker) readWaiting() {
	var help, you bool
	t.ready, t.seated = 0, 0
	for y := range t.rows {
		line := t.row(y)
		if strings.Contains(line, waitingHelp) {
			help = true
		}
		if m := roomTitleRE.FindStringSubmatch(line); m != nil {
			t.roomID, t.roomMode = m[1], m[2]
		}
		if strings.Contains(line, "not ready") || strings.Contains(line, "ready ✓") || strings.Contains(line, "disconnected") {
			t.seated++
		}
		if strings.Contains(line, "(you)") {
			you = true
			t.ready = -1
			if strings.Contains(line, "ready ✓") {
				t.ready = 1
			}
			if m := seatRE.FindStringSubmatch(line); m != nil {
				if n, err := strconv.Atoi(m[1]); err == nil {
					t.seat = n - 1
				}
			}
		}
	}
	if help && you {
		t.phase = phaseWaiting
	}
}

// digitRow: a row of the board holds nothing but a number, as the
// countdown's does under who plays whom ("ann 1500? vs bob 1480?"). Only
// read while an overlay shows, which is a few seconds a match.
func (t *tracker) digitRow() bool {
	b := &t.board
	for y := b[1]; y < b[3]; y++ {
		digits, other := 0, 0
		for x := b[0]; x < b[2]; x++ {
			switch r := t.grid[y*t.cols+x]; {
			case r >= '0' && r <= '9':
				digits++
			case isText(r) == 1:
				other++
			}
		}
		if digits > 0 && other == 0 {
			return true
		}
	}
	return false
}

func (t *tracker) row(y int) string {
	return string(t.grid[y*t.cols : (y+1)*t.cols])
}
