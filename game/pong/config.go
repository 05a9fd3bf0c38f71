package pong

import (
	"errors"
	"fmt"
)

// Sub is the number of fixed-point sub-units per board unit. Positions and
// velocities are int32 sub-units so that Step is exact integer arithmetic on
// every platform; 256 keeps slow velocities expressible while leaving int32
// headroom for boards far larger than any terminal.
const Sub int32 = 256

// BallRadius is the ball's radius in sub-units: the ball is drawn as one
// board cell, so a half-unit radius makes a touch on screen a touch in play.
const BallRadius = Sub / 2

// Sides, in slot order: slot i plays side i. Left and right paddles move
// vertically, top and bottom paddles horizontally.
const (
	Left   = 0
	Right  = 1
	Top    = 2
	Bottom = 3
)

// SideNames are the first n sides' names, in slot order ("left", "right",
// "top", "bottom"): the names players ask for seats by.
func SideNames(n int) []string {
	return []string{"left", "right", "top", "bottom"}[:min(max(n, 0), 4)]
}

// Mode is the match format.
type Mode uint8

const (
	// OneVOne is two players on the left and right sides, first to
	// PointsToWin; top and bottom are walls.
	OneVOne Mode = iota
	// FFA4 is up to four players, one per side, each with Lives; the last
	// one standing wins.
	FFA4
	// TwoVTwo is left+right (team A) against top+bottom (team B), first team
	// to PointsToWin.
	TwoVTwo
)

func (m Mode) String() string {
	switch m {
	case OneVOne:
		return "1v1"
	case FFA4:
		return "ffa"
	case TwoVTwo:
		return "2v2"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// ParseMode accepts the names String produces, as players type them after
// `play`.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "1v1":
		return OneVOne, nil
	case "ffa", "ffa4":
		return FFA4, nil
	case "2v2":
		return TwoVTwo, nil
	}
	return 0, fmt.Errorf("pong: unknown mode %q (want 1v1, ffa or 2v2)", s)
}

// Config is everything that shapes a match. It is part of what a replay
// records: the same Config, seed and inputs give the same match.
type Config struct {
	Mode Mode
	// Width and Height of the board in units. One unit is one terminal
	// column across and one half-row (a ▀/▄ half block) down, so units are
	// roughly square on screen. The outermost row/column on each side is
	// where that side's paddle (or wall) lives.
	Width, Height int32
	// PaddleLen is in units; PaddleSpeed in sub-units per tick.
	PaddleLen   int32
	PaddleSpeed int32
	// Ball speeds are the length of the velocity vector in sub-units per
	// tick: the serve speed, the gain on each paddle hit, and the cap.
	BallSpeed     int32
	SpeedUpPerHit int32
	MaxBallSpeed  int32
	// PointsToWin ends 1v1 and 2v2; Lives is each player's stock in FFA.
	PointsToWin int
	Lives       int
	// ServeDelayTicks is the pause before every serve, including the first.
	ServeDelayTicks int
	// TickRate is the room's ticks per second. The simulation never reads
	// it (it counts ticks); clients use it to turn elapsed time into ticks.
	TickRate int
	// Rules is the version of the rules the match is played by. Replays
	// keep the config, so a match recorded under older rules replays
	// under them; every new room plays by CurrentRules (Kind.Setup).
	Rules Rules
}

// Rules versions Pong's rules beyond what the numbers in Config say.
type Rules uint8

const (
	// RulesOriginal: a dead-centre return is flat, and a rally lasts as
	// long as the paddles keep meeting the ball, so two still paddles can
	// return a flat ball forever. Only replays recorded before
	// RulesProgress play by it.
	RulesOriginal Rules = 0
	// RulesProgress guarantees every rally ends, whatever the players do
	// (or fail to do): no return is flatter than minBounceDeg, and after
	// shrinkAfterHits hits in one rally every further hit shrinks the
	// paddles by a unit until there is nothing left to meet the ball.
	RulesProgress Rules = 1
	// CurrentRules are what new rooms play by.
	CurrentRules = RulesProgress
)

// Limits enforced by Validate. They keep every intermediate product inside
// int32 and stop a hand-written config from producing an unplayable board.
const (
	minBoard = 16
	maxBoard = 1024
	maxSpeed = 4 * Sub // 4 units per tick is already unplayably fast
	// Below this the fixed-point split of a steep bounce could round a
	// velocity component to zero and leave the ball moving parallel to a paddle.
	minBallSpeed = 8
	maxCount     = 1 << 20
	maxTickRate  = 1000
)

// Angles, in degrees from a side's normal. They are fixed rather than in
// Config so that every room plays the same geometry.
const (
	maxBounceDeg = 60 // steepest paddle return: never parallel to the paddle
	minServeDeg  = 10 // serves are never dead straight...
	maxServeDeg  = 45 // ...nor so shallow they crawl across the board
	// RulesProgress: a return off the paddle's dead centre leaves at
	// least this far off the normal, so two still paddles do not trade a
	// flat ball for ever.
	minBounceDeg = 5
)

// ShrinkAfterHits is how many paddle hits a rally has (RulesProgress)
// before every further hit takes a unit off each paddle. The ball has
// reached its top speed by then; with the default 8-unit paddles no rally
// gets past 28 hits.
const ShrinkAfterHits = 20

// DefaultConfig is tuned for 60 ticks per second. The 1v1 board (76×40
// units = 76 columns × 20 rows) fits an 80×24 terminal with a border and a
// two-line HUD; the four-player boards are square (44×44 = 44 columns × 22
// rows). At serve speed the ball crosses the 1v1 board in about 1.4 s
// straight and 1.6 s at a typical serve angle (about 1 s and 1.2 s on the
// 4-player board); a paddle crosses the 1v1 height in about 0.7 s. A
// paddle is 8 units; the ball tops out a little over twice its serve speed
// after about 20 hits.
func DefaultConfig(m Mode) Config {
	c := Config{
		Mode:            m,
		Width:           76,
		Height:          40,
		PaddleLen:       8,
		PaddleSpeed:     240,
		BallSpeed:       224,
		SpeedUpPerHit:   12,
		MaxBallSpeed:    480,
		PointsToWin:     11,
		Lives:           5,
		ServeDelayTicks: 60,
		TickRate:        60,
		Rules:           CurrentRules,
	}
	if m != OneVOne {
		c.Width, c.Height = 44, 44
		c.BallSpeed = 176
		c.SpeedUpPerHit = 10
		c.MaxBallSpeed = 400
	}
	return c
}

// Slots is the number of seats the mode has.
func (c Config) Slots() int {
	if c.Mode == OneVOne {
		return 2
	}
	return 4
}

// Validate reports every reason the config cannot run. New panics on a
// config that fails it, so callers building configs from user input should
// call it first.
func (c Config) Validate() error {
	var errs []error
	if c.Mode > TwoVTwo {
		errs = append(errs, fmt.Errorf("unknown mode %d", c.Mode))
	}
	if c.Width < minBoard || c.Width > maxBoard || c.Height < minBoard || c.Height > maxBoard {
		errs = append(errs, fmt.Errorf("board %dx%d outside %d..%d units", c.Width, c.Height, minBoard, maxBoard))
	}
	// The paddle must fit between the corner cells with room to move.
	span := c.Height
	if c.Mode != OneVOne && c.Width < span {
		span = c.Width
	}
	if c.PaddleLen < 1 || c.PaddleLen > span-4 {
		errs = append(errs, fmt.Errorf("paddle length %d outside 1..%d", c.PaddleLen, span-4))
	}
	if c.PaddleSpeed < 1 || c.PaddleSpeed > maxSpeed {
		errs = append(errs, fmt.Errorf("paddle speed %d outside 1..%d", c.PaddleSpeed, maxSpeed))
	}
	if c.BallSpeed < minBallSpeed || c.MaxBallSpeed < c.BallSpeed || c.MaxBallSpeed > maxSpeed {
		errs = append(errs, fmt.Errorf("ball speeds %d..%d must satisfy %d <= speed <= max <= %d",
			c.BallSpeed, c.MaxBallSpeed, minBallSpeed, maxSpeed))
	}
	if c.SpeedUpPerHit < 0 || c.SpeedUpPerHit > maxSpeed {
		errs = append(errs, fmt.Errorf("speed-up per hit %d outside 0..%d", c.SpeedUpPerHit, maxSpeed))
	}
	if c.PointsToWin < 1 || c.PointsToWin > maxCount {
		errs = append(errs, fmt.Errorf("points to win %d outside 1..%d", c.PointsToWin, maxCount))
	}
	if c.Lives < 1 || c.Lives > maxCount {
		errs = append(errs, fmt.Errorf("lives %d outside 1..%d", c.Lives, maxCount))
	}
	if c.ServeDelayTicks < 0 || c.ServeDelayTicks > maxCount {
		errs = append(errs, fmt.Errorf("serve delay %d outside 0..%d ticks", c.ServeDelayTicks, maxCount))
	}
	if c.TickRate < 1 || c.TickRate > maxTickRate {
		errs = append(errs, fmt.Errorf("tick rate %d outside 1..%d", c.TickRate, maxTickRate))
	}
	if c.Rules > CurrentRules {
		errs = append(errs, fmt.Errorf("rules version %d is newer than this server's %d", c.Rules, CurrentRules))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("pong: invalid config: %w", errors.Join(errs...))
}

// sideLen is the length of a side in sub-units: left and right run along
// the height, top and bottom along the width.
func (c Config) sideLen(side int) int32 {
	if side == Left || side == Right {
		return c.Height * Sub
	}
	return c.Width * Sub
}

// PaddleRange is the interval a paddle's centre may occupy on side, in
// sub-units. The one-unit corner cells at both ends belong to no paddle, so
// adjacent paddles can never overlap in a corner, yet every point of the
// face the ball can touch stays within reach of the paddle.
func (c Config) PaddleRange(side int) (lo, hi int32) {
	half := c.PaddleLen * Sub / 2
	return Sub + half, c.sideLen(side) - Sub - half
}

// MovePaddle is the paddle motion Step applies: pos moved by dir (its sign:
// -1 up/left, 0 stop, +1 down/right) for ticks ticks, clamped to
// PaddleRange(side). Because the direction is constant, clamping once at the
// end equals clamping every tick, so clients can predict any number of
// ticks in one call and land exactly where the server will.
func (c Config) MovePaddle(pos int32, dir int8, ticks int32, side int) int32 {
	lo, hi := c.PaddleRange(side)
	p := int64(pos) + int64(sign8(dir))*int64(c.PaddleSpeed)*int64(max(ticks, 0))
	return int32(min(max(p, int64(lo)), int64(hi)))
}

// TapAction is the input action of a tap: move the paddle in direction
// dir for ticks ticks (1 to 63), then stop, whatever comes late. A
// session measures a tap's length on its own screen (one cell) and the
// room carries it out tick for tick, so a tap moves exactly that far
// however late the session's goroutine runs. Any other action holds a
// direction (its sign) until the next input.
func TapAction(dir int8, ticks int32) int8 {
	n := int8(tapBase + min(max(ticks, 1), 63))
	if dir < 0 {
		return -n
	}
	return n
}

// tapBase: actions beyond ±tapBase are taps; those up to it hold their
// sign, as every action did before taps (and every recorded one still
// reads so).
const tapBase = 64

// TapTicks is how many ticks action a taps for; 0 for a held direction.
func TapTicks(a int8) int32 {
	n := int32(a)
	if n < 0 {
		n = -n
	}
	if n > tapBase {
		return n - tapBase
	}
	return 0
}

func sign8(d int8) int32 {
	switch {
	case d > 0:
		return 1
	case d < 0:
		return -1
	}
	return 0
}
