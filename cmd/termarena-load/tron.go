package main

import (
	"math/rand/v2"
	"strings"
)

// Light cycles (--game tron). The board is drawn in half blocks: a cell
// shows two arena cells, the upper in ▀'s foreground (or ▄'s background),
// the lower in ▄'s foreground (or ▀'s background), both in █, none in a
// space. Riders differ by colour only, so the tracker keeps each cell's
// colours as well as its rune, and the bot reads its own head (its rider's
// light head colour), where it is going (its own trail behind the head)
// and what lies ahead, and turns away from trails and walls.

// Colours of the riders at 256 colours, by slot: heads light, trails deep
// (game/tron/view/palette.go head256 and trail256; the bots request
// xterm-256color). TestTronColoursMatchTheView keeps them in step.
var (
	headColour256  = [8]int16{203, 75, 84, 227, 213, 87, 215, 255}
	trailColour256 = [8]int16{124, 25, 28, 136, 127, 30, 166, 243}
)

const (
	colourNone = -1 // the terminal's default colour
	colourRGB  = -2 // a truecolor value: not a rider at 256 colours
	pixWall    = -3 // border, text or off the board: never ride into it
)

// Directions, as the bot presses them.
const (
	dirNone = iota
	dirUp
	dirDown
	dirLeft
	dirRight
)

var (
	dirDX  = [5]int{0, 0, 0, -1, 1}
	dirDY  = [5]int{0, -1, 1, 0, 0}
	dirKey = [5]string{"", "w", "s", "a", "d"}
	// perpendicular turns of a heading.
	dirSides = [5][2]int{{}, {dirLeft, dirRight}, {dirLeft, dirRight}, {dirUp, dirDown}, {dirUp, dirDown}}
)

// lookAhead is how far the bot looks along a direction, in arena cells.
const lookAhead = 10

// cycles is the tracker's light-cycle state. It belongs to the reader.
type cycles struct {
	cols, rows   int
	fg, bg       []int16
	penFG, penBG int16
	hudDirty     bool

	rng      *rand.Rand
	turnRate float64 // chance of a random turn per frame the head shows

	prev   phase
	slot   int // this bot's rider, -1 until known
	votes  [8]int
	riding bool // the HUD's match line says "N riding": a round is on
	top    int  // the board region's rows: [top, bottom)
	bottom int

	head     bool // this bot's head is on the board (riding)
	hx, hy   int  // its display pixel: column, half row
	heading  int
	pending  int // a turn pressed that the screen does not show yet
	waited   int // frames since it was pressed
	steer    int // the turn to press
	steerNew bool
}

func newCycles(cols, rows int, rng *rand.Rand, turnRate float64) *cycles {
	c := &cycles{cols: cols, rows: rows, fg: make([]int16, cols*rows), bg: make([]int16, cols*rows),
		rng: rng, turnRate: turnRate, slot: -1}
	c.penFG, c.penBG = colourNone, colourNone
	c.clear()
	return c
}

// withTron makes t read light cycles and steer.
func (t *tracker) withTron(rng *rand.Rand, turnRate float64) *tracker {
	t.cyc = newCycles(t.cols, t.rows, rng, turnRate)
	return t
}

func (c *cycles) clear() {
	for i := range c.fg {
		c.fg[i], c.bg[i] = colourNone, colourNone
	}
	c.hudDirty = true
}

// sgr applies one SGR sequence's parameters to the pen.
func (c *cycles) sgr(p []int) {
	for i := 0; i < len(p); i++ {
		switch n := p[i]; {
		case n == 0:
			c.penFG, c.penBG = colourNone, colourNone
		case n == 38 || n == 48:
			col := int16(colourRGB)
			switch {
			case i+2 < len(p) && p[i+1] == 5:
				col = int16(p[i+2])
				i += 2
			case i+4 < len(p) && p[i+1] == 2:
				i += 4
			default:
				i = len(p)
			}
			if n == 38 {
				c.penFG = col
			} else {
				c.penBG = col
			}
		case n == 39:
			c.penFG = colourNone
		case n == 49:
			c.penBG = colourNone
		case n >= 30 && n <= 37:
			c.penFG = int16(n - 30)
		case n >= 90 && n <= 97:
			c.penFG = int16(n - 90 + 8)
		case n >= 40 && n <= 47:
			c.penBG = int16(n - 40)
		case n >= 100 && n <= 107:
			c.penBG = int16(n - 100 + 8)
		}
	}
}

// pixel is what display pixel x, py (a column, a half row) shows: a
// colour, colourNone for empty, or pixWall.
func (c *cycles) pixel(t *tracker, x, py int) int16 {
	y := py >> 1
	if py < 0 || x < 0 || x >= c.cols || y < c.top || y >= c.bottom {
		return pixWall
	}
	i := y*c.cols + x
	lower := py&1 == 1
	switch t.grid[i] {
	case ' ':
		return colourNone
	case '█':
		return c.fg[i]
	case '▀':
		if lower {
			return c.bg[i]
		}
		return c.fg[i]
	case '▄':
		if lower {
			return c.fg[i]
		}
		return c.bg[i]
	}
	return pixWall
}

func slotOf(table *[8]int16, col int16) int {
	if col < 0 {
		return -1
	}
	for s, v := range table {
		if v == col {
			return s
		}
	}
	return -1
}

// endFrame reads the screen after a frame that changed it and reports
// whether the bot is riding (live).
func (c *cycles) endFrame(t *tracker) bool {
	if t.phase != c.prev {
		switch {
		case t.phase == phaseWaiting:
			c.slot = -1
		case t.phase == phasePlay && c.prev == phaseWaiting && t.seat >= 0:
			c.slot = t.seat
		case t.phase == phasePlay && c.prev != phaseFinished:
			c.slot = -1 // a new match from the queue
		}
		c.prev = t.phase
		c.votes = [8]int{}
		c.head, c.heading, c.pending, c.riding = false, dirNone, dirNone, false
		c.hudDirty = true
	}
	if t.phase != phasePlay {
		return false
	}
	if c.hudDirty {
		c.hudDirty = false
		c.readHUD(t)
	}
	c.top, c.bottom = 1, t.rows-1
	for y := 2; y < t.rows-1; y++ {
		if t.grid[y*t.cols] == '─' && t.grid[y*t.cols+2] == 'c' && t.grid[y*t.cols+3] == 'h' {
			c.bottom = y // the chat pane under the board
			break
		}
	}
	if c.slot < 0 {
		c.vote(t)
	}
	c.findHead(t)
	if c.head && c.riding {
		c.decide(t)
	}
	live := c.riding && c.head
	if live && !t.live {
		// A round's riders hold still for a second before it starts
		// (and the countdown is a whole serve delay): frames are due
		// from 1.05 s on, as after Pong's countdown.
		t.countdown = true
	}
	return live
}

// readHUD reads the header: whether a round is being ridden, and this
// bot's rider from the colour of the name the header marks ▸ (when the
// header has room for it).
func (c *cycles) readHUD(t *tracker) {
	hud := t.row(0)
	// The match line gives way to the riders' names on a narrow screen
	// (at 80 columns with more than three riders): then the bot's own
	// head on the board is all it goes by.
	c.riding = !tronStatusRE.MatchString(hud) || strings.Contains(hud, " riding")
	for x := 0; x+1 < t.cols; x++ {
		if t.grid[x] == '▸' {
			if s := slotOf(&headColour256, c.fg[x+1]); s >= 0 {
				c.slot = s
			}
			return
		}
	}
}

// vote guesses the bot's rider when the header does not show it: a
// following camera keeps its rider's head at the centre of the board
// region unless the arena's border is near. The head found exactly there
// three times is this bot's.
func (c *cycles) vote(t *tracker) {
	y := c.top + (c.bottom-c.top)/2
	x := c.cols / 2
	for _, py := range [2]int{2 * y, 2*y + 1} {
		if s := slotOf(&headColour256, c.pixel(t, x, py)); s >= 0 {
			if c.votes[s]++; c.votes[s] >= 3 {
				c.slot = s
			}
			return
		}
	}
}

// findHead finds the bot's head on the board and the way it is going:
// away from the trail cell behind it.
func (c *cycles) findHead(t *tracker) {
	c.head = false
	if c.slot < 0 {
		return
	}
	want, trail := headColour256[c.slot], trailColour256[c.slot]
	for y := c.top; y < c.bottom && !c.head; y++ {
		for x := range c.cols {
			i := y*t.cols + x
			if c.fg[i] != want && c.bg[i] != want {
				continue
			}
			for _, py := range [2]int{2 * y, 2*y + 1} {
				if c.pixel(t, x, py) == want {
					c.hx, c.hy, c.head = x, py, true
					break
				}
			}
			if c.head {
				break
			}
		}
	}
	if !c.head {
		return
	}
	behind := func(d int) bool { return c.pixel(t, c.hx-dirDX[d], c.hy-dirDY[d]) == trail }
	if c.heading != dirNone && behind(c.heading) {
		return
	}
	found := dirNone
	for d := dirUp; d <= dirRight; d++ {
		if behind(d) {
			if found != dirNone {
				return // a coil: keep the last heading
			}
			found = d
		}
	}
	if found != dirNone {
		c.heading = found
	}
}

// run is how many free cells lie from the head along d, up to lookAhead.
func (c *cycles) run(t *tracker, d int) int {
	for n := 1; n <= lookAhead; n++ {
		if c.pixel(t, c.hx+n*dirDX[d], c.hy+n*dirDY[d]) != colourNone {
			return n - 1
		}
	}
	return lookAhead
}

// decide turns away from a trail or wall two cells ahead, toward the
// side with more room, and otherwise now and then turns at random to a
// side with room. A turn pressed is not followed by another until the
// screen shows it (or it is given up on after a few frames).
func (c *cycles) decide(t *tracker) {
	if c.heading == dirNone {
		return
	}
	if c.pending != dirNone {
		if c.heading != c.pending && c.waited < 6 {
			c.waited++
			return
		}
		c.pending = dirNone
	}
	sides := dirSides[c.heading]
	a, b := c.run(t, sides[0]), c.run(t, sides[1])
	turn := dirNone
	switch {
	case c.run(t, c.heading) < 2:
		turn = sides[0]
		if b > a || (a == b && c.rng.IntN(2) == 1) {
			turn = sides[1]
		}
	case c.rng.Float64() < c.turnRate:
		i := c.rng.IntN(2)
		if [2]int{a, b}[i] >= 4 {
			turn = sides[i]
		}
	}
	if turn != dirNone {
		c.steer, c.steerNew, c.pending, c.waited = turn, true, turn, 0
	}
}
