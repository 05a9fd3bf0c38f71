package pong

import "time"

// Ball is the ball as of a snapshot, in sub-units (VX, VY per tick).
type Ball struct {
	X, Y, VX, VY int32
	// Live is false while the ball waits at the centre for the serve.
	Live bool
}

// Paddle is one side as of a snapshot. A side that is not Present is a
// wall.
type Paddle struct {
	Present bool // a paddle is in play on this side
	Joining bool // a player took the seat mid-rally; the paddle appears at the next serve
	Out     bool // eliminated (FFA), a wall for the rest of the match
	Dir     int8 // direction in force: -1 up/left, 0 stop, +1 down/right
	// Tap is how many more ticks a tap moves the paddle before the room
	// stops it (TapAction); 0 while Dir holds.
	Tap int32
	Pos int32
	Len int32 // in sub-units: shorter late in a long rally (RulesProgress), 0 once gone
}

// Snapshot is an immutable view of a match after a tick. The room allocates
// one per tick and shares it with every session, so it is flat: fixed-size
// arrays indexed by side, no maps or slices.
type Snapshot struct {
	// Config is shared by every snapshot of the match; read it, never
	// write it. Clients need it for MovePaddle and the tick rate.
	Config *Config
	Tick   uint64
	Mode   Mode
	// Width and Height in units.
	Width, Height int32

	Ball Ball
	// ServeIn is the number of ticks before the serve while !Ball.Live.
	ServeIn int32

	Paddles [4]Paddle
	// Scores per side: points in 1v1; in 2v2 each side shows its team's
	// points (both teammates carry the same number); unused in FFA.
	Scores [4]int32
	// Lives per side in FFA.
	Lives [4]int32
	// Hits counts paddle hits per side over the match.
	Hits [4]int32

	// LastPointAgainst is the side the ball last got past (-1 before the
	// first point), at LastPointTick. LastPointBy is the side credited: the
	// opponent in 1v1, otherwise the last paddle to touch the ball in that
	// rally (possibly a teammate of the side that missed), -1 if none did.
	LastPointBy      int8
	LastPointAgainst int8
	LastPointTick    uint64

	// Contested is false while no miss has ever counted (a 2v2 of one
	// team): the match is a warm-up so far (game.Result.WarmUp).
	Contested bool

	Over    bool
	Forfeit bool
	// Winners has bit i set when slot i shares first place.
	Winners uint8
}

// WarmingUp implements game.WarmingUp.
func (s *Snapshot) WarmingUp() bool { return !s.Contested }

// Won reports whether slot shares first place (only once Over).
func (s *Snapshot) Won(slot int) bool {
	return slot >= 0 && slot < 8 && s.Winners&(1<<slot) != 0
}

// Snapshot implements game.Game; the value is a *Snapshot.
func (g *Game) Snapshot() any {
	s := &Snapshot{
		Config:           g.shared,
		Tick:             g.tick,
		Mode:             g.cfg.Mode,
		Width:            g.cfg.Width,
		Height:           g.cfg.Height,
		Ball:             Ball{X: g.ball.x, Y: g.ball.y, VX: g.ball.vx, VY: g.ball.vy, Live: g.ball.live},
		ServeIn:          g.serveIn,
		LastPointBy:      g.lastPointBy,
		LastPointAgainst: g.lastPointAgainst,
		LastPointTick:    g.lastPointTick,
		Contested:        g.contested,
		Over:             g.over,
		Forfeit:          g.forfeit,
		Winners:          g.winners,
	}
	for i := range g.nslots {
		st := &g.seats[i]
		s.Paddles[i] = Paddle{
			Present: g.live(i),
			Joining: st.player && st.pending,
			Out:     st.out,
			Dir:     st.dir,
			Tap:     st.tap,
			Pos:     st.pos,
			Len:     g.paddleLen(),
		}
		s.Lives[i] = st.lives
		s.Hits[i] = st.hits
		s.Scores[i] = st.score
		if g.cfg.Mode == TwoVTwo {
			s.Scores[i] = g.team[i/2]
		}
	}
	return s
}

// TickFrac is the number of steps per tick in the fractional tick count
// BallAt takes, so a client can render the ball between snapshots without
// floating point: frac = elapsed × TickRate × TickFrac / second.
const TickFrac = 256

// BallAt is the ball's centre frac/TickFrac ticks after the snapshot,
// extrapolated along its velocity with the same wall reflections Step
// makes. Paddles are not simulated: on a side with a paddle the ball stops
// at the paddle's face until the next snapshot says whether it bounced. At
// whole ticks and away from paddles it equals what Step computes exactly;
// a ball waiting to serve stays put, and frac <= 0 gives the snapshot's
// position.
func (s *Snapshot) BallAt(frac int32) (x, y int32) {
	b := s.Ball
	if !b.Live || frac <= 0 {
		return b.X, b.Y
	}
	loX, hiX := Sub+BallRadius, s.Width*Sub-Sub-BallRadius
	loY, hiY := Sub+BallRadius, s.Height*Sub-Sub-BallRadius
	p := &s.Paddles
	x = fold(b.X, b.VX, frac, loX, hiX, !p[Left].Present, !p[Right].Present)
	y = fold(b.Y, b.VY, frac, loY, hiY, !p[Top].Present, !p[Bottom].Present)
	return x, y
}

// fold moves p by v for frac/TickFrac ticks inside [lo, hi], mirroring at
// a wall end and stopping at a paddle end.
func fold(p, v, frac, lo, hi int32, wallLo, wallHi bool) int32 {
	u := int64(p) + int64(v)*int64(frac)/TickFrac
	l, h := int64(lo), int64(hi)
	if wallLo && wallHi {
		period := 2 * (h - l)
		w := (u - l) % period
		if w < 0 {
			w += period
		}
		if w > h-l {
			w = period - w
		}
		return int32(l + w)
	}
	// With at most one wall there is at most one reflection before the ball
	// either is inside or stops at the paddle end.
	switch {
	case u < l && wallLo:
		u = 2*l - u
	case u > h && wallHi:
		u = 2*h - u
	}
	return int32(min(max(u, l), h))
}

// FracTicks converts the time since a snapshot arrived into BallAt's
// argument for a room running at tickRate ticks per second. It saturates
// rather than overflowing: a stalled feed is capped at one second, past
// which extrapolation is guesswork, so the drawn ball stops advancing.
func FracTicks(elapsed time.Duration, tickRate int) int32 {
	if elapsed <= 0 || tickRate <= 0 {
		return 0
	}
	elapsed = min(elapsed, time.Second)
	return int32(int64(elapsed) * int64(tickRate) * TickFrac / int64(time.Second))
}
