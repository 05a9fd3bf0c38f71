// Package bot is Pong's computer player at five levels, for the server's
// bot driver (package bot at the root) to seat in practice rooms. It reads
// only what a seat's screen shows: the snapshot the driver hands it, late
// by the level's reaction time, and its own paddle as it is now.
//
// Levels differ in what a person gets better at: how soon they react to a
// hit (Reflex.Delay), whether they read the bounce off the walls or just
// chase the ball, how far off their aim is, how often they can change
// keys (Reflex.Gap), and, at the top, going back to the middle between
// returns and aiming off the paddle's end for a steep return.
package bot

import (
	"fmt"

	drive "github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/game/sim"
)

// Level is one level's skills.
type Level struct {
	Reflex drive.Reflex
	// Predict: the brain folds the ball's path off the walls to where it
	// meets the paddle's line; without it, it chases the ball's position.
	Predict bool
	// Error is the aim error, in percent of half a paddle, drawn afresh
	// for every ball that comes its way.
	Error int32
	// Centre: between returns the paddle goes back to the middle.
	Centre bool
	// Aim: the brain takes the ball off its paddle's end, for a steep
	// return, rather than the middle.
	Aim bool
}

// Levels are the five levels, weakest first. Level 1 reacts in half a
// second or more, changes keys four times a second and misses by more than a
// paddle's half as often as not: a newcomer who follows the ball beats it
// (TestNewcomerBeatsLevel1).
var Levels = [drive.Levels]Level{
	{Reflex: drive.Reflex{Delay: 30, Jitter: 10, Gap: 18}, Error: 160},
	{Reflex: drive.Reflex{Delay: 22, Jitter: 6, Gap: 8}, Predict: true, Error: 110},
	{Reflex: drive.Reflex{Delay: 16, Jitter: 5, Gap: 6}, Predict: true, Error: 70},
	{Reflex: drive.Reflex{Delay: 12, Jitter: 4, Gap: 4}, Predict: true, Error: 40, Centre: true},
	{Reflex: drive.Reflex{Delay: 8, Jitter: 3, Gap: 2}, Predict: true, Error: 15, Centre: true, Aim: true},
}

// New is the catalogue's bot.Maker for Pong: every mode, every side.
func New(mode string, level, slot int, seed uint64) (drive.Brain, drive.Reflex, error) {
	if _, err := pong.ParseMode(mode); err != nil {
		return nil, drive.Reflex{}, err
	}
	if level < 1 || level > drive.Levels {
		return nil, drive.Reflex{}, fmt.Errorf("pong bot: no level %d (1 to %d)", level, drive.Levels)
	}
	if slot < 0 || slot > pong.Bottom {
		return nil, drive.Reflex{}, fmt.Errorf("pong bot: no side %d", slot)
	}
	lv := Levels[level-1]
	r := lv.Reflex
	r.Seed = seed ^ 0x5eed
	return &Brain{lv: lv, rng: sim.NewRNG(seed)}, r, nil
}

// Brain is one paddle's player.
type Brain struct {
	lv  Level
	rng sim.RNG
	// dir is the direction last sent (held until the next).
	dir int8
	// coming is whether the ball was last seen coming this way, and off
	// the aim drawn for it.
	coming bool
	off    int32
	tick   uint64
}

// Act implements drive.Brain.
func (b *Brain) Act(v drive.View) []int8 {
	seen, ok1 := v.Seen.(*pong.Snapshot)
	now, ok2 := v.Now.(*pong.Snapshot)
	side := v.Slot
	if !ok1 || !ok2 || side < 0 || side > pong.Bottom {
		return nil
	}
	if now.Tick < b.tick {
		// A new match: its paddles start still.
		b.dir, b.coming = 0, false
	}
	b.tick = now.Tick
	pad := now.Paddles[side]
	if !pad.Present {
		b.dir = 0
		return nil
	}
	target, move := b.target(seen, side, pad)
	var dir int8
	if move {
		dead := max(now.Config.PaddleSpeed*int32(b.lv.Reflex.Gap)/2, pong.Sub/2)
		switch d := target - pad.Pos; {
		case d > dead:
			dir = 1
		case d < -dead:
			dir = -1
		}
	}
	if dir == b.dir {
		return nil
	}
	b.dir = dir
	return []int8{dir}
}

// target is where the paddle's centre should go, and whether to move at
// all.
func (b *Brain) target(s *pong.Snapshot, side int, pad pong.Paddle) (int32, bool) {
	lo, hi := s.Config.PaddleRange(side)
	mid := (lo + hi) / 2
	ball := s.Ball
	if !ball.Live {
		b.coming = false
		return mid, b.lv.Centre
	}
	t, coming := arrival(s, side)
	if coming && !b.coming {
		half := pad.Len/2 + pong.BallRadius
		spread := half * b.lv.Error / 100
		b.off = 0
		if spread > 0 {
			b.off = int32(b.rng.Intn(uint64(2*spread+1))) - spread
		}
		if b.lv.Aim {
			// Off the end, but inside it: the return leaves steeply.
			aim := half * 3 / 5
			if b.rng.Intn(2) == 0 {
				aim = -aim
			}
			b.off += aim
		}
	}
	b.coming = coming
	along := ball.Y
	if side == pong.Top || side == pong.Bottom {
		along = ball.X
	}
	if !coming {
		if b.lv.Centre {
			return mid, true
		}
		// A beginner chases the ball wherever it goes.
		return along, !b.lv.Predict
	}
	if b.lv.Predict {
		x, y := s.BallAt(min(t, 1<<20) * pong.TickFrac)
		along = y
		if side == pong.Top || side == pong.Bottom {
			along = x
		}
	}
	// The ball meets the paddle at along - pos; aiming off by off puts
	// the paddle's centre there.
	return min(max(along-b.off, lo), hi), true
}

// arrival is how many ticks the ball needs to reach side's line, and
// whether it is heading there at all.
func arrival(s *pong.Snapshot, side int) (int32, bool) {
	ball := s.Ball
	lo := pong.Sub + pong.BallRadius
	hiX := s.Width*pong.Sub - pong.Sub - pong.BallRadius
	hiY := s.Height*pong.Sub - pong.Sub - pong.BallRadius
	switch side {
	case pong.Left:
		if ball.VX < 0 {
			return (ball.X - lo) / -ball.VX, true
		}
	case pong.Right:
		if ball.VX > 0 {
			return (hiX - ball.X) / ball.VX, true
		}
	case pong.Top:
		if ball.VY < 0 {
			return (ball.Y - lo) / -ball.VY, true
		}
	case pong.Bottom:
		if ball.VY > 0 {
			return (hiY - ball.Y) / ball.VY, true
		}
	}
	return 0, false
}
