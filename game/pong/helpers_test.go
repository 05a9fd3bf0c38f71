package pong

import (
	"math/rand/v2"
	"testing"

	"github.com/termarena/termarena/game"
)

// newGame seats the given slots before the first tick.
func newGame(t testing.TB, cfg Config, seats ...int) *Game {
	t.Helper()
	g := New(cfg, 1)
	for _, s := range seats {
		if err := g.Join(s); err != nil {
			t.Fatalf("Join(%d): %v", s, err)
		}
	}
	return g
}

func allSeats(m Mode) []int {
	if m == OneVOne {
		return []int{0, 1}
	}
	return []int{0, 1, 2, 3}
}

// start steps once so the match counts as started (Leave is a forfeit,
// Join mid-rally is deferred).
func start(g *Game) { g.Step(nil) }

// setBall puts a live ball at (x, y) moving at (vx, vy); speed is taken as
// the larger component, which is exact for the axis-aligned shots the
// physics tests use.
func setBall(g *Game, x, y, vx, vy int32) {
	g.ball = ball{x: x, y: y, vx: vx, vy: vy, speed: max(abs32(vx), abs32(vy)), live: true}
}

// snap is Snapshot with the type assertion tests would otherwise repeat.
func snap(g *Game) *Snapshot { return g.Snapshot().(*Snapshot) }

// centre is the middle of side's paddle range.
func centre(c Config, side int) int32 {
	lo, hi := c.PaddleRange(side)
	return lo + (hi-lo)/2
}

// shootAt puts the ball just short of side's contact line, moving straight
// at it, at offset off (sub-units, along the side) from the paddle's centre.
func shootAt(g *Game, side int, off, speed int32) {
	loX, hiX, loY, hiY := g.cfg.bounds()
	along := g.seats[side].pos + off
	if !g.seats[side].player {
		along = centre(g.cfg, side) + off
	}
	switch side {
	case Left:
		setBall(g, loX+speed/2, along, -speed, 0)
	case Right:
		setBall(g, hiX-speed/2, along, speed, 0)
	case Top:
		setBall(g, along, loY+speed/2, 0, -speed)
	case Bottom:
		setBall(g, along, hiY-speed/2, 0, speed)
	}
}

// missAt makes the ball get past side's paddle on the next tick.
func missAt(t testing.TB, g *Game, side int) {
	t.Helper()
	off := g.cfg.PaddleLen*Sub/2 + BallRadius + Sub
	if g.seats[side].pos > centre(g.cfg, side) {
		off = -off
	}
	shootAt(g, side, off, 200)
	g.Step(nil)
	if g.ball.live {
		t.Fatalf("ball still live after shooting past side %d", side)
	}
}

// bot plays every seat by chasing the ball with a wandering aim point and
// random lapses, so hits come at all angles and points are scored. Its
// randomness is its own fixed-seed source, so the inputs it produces are
// part of the script, not of the game.
type bot struct {
	r    *rand.Rand
	dirs [4]int8
	aim  [4]int32 // where on its paddle each seat tries to take the ball
	seq  uint32
	buf  []game.Input
}

func newBot(seed uint64) *bot {
	return &bot{r: rand.New(rand.NewPCG(seed, 0x70f6)), buf: make([]game.Input, 0, 4)}
}

func (b *bot) inputs(g *Game) []game.Input {
	b.buf = b.buf[:0]
	for i := range g.nslots {
		if !g.in(i) {
			continue
		}
		target := g.ball.y
		if i == Top || i == Bottom {
			target = g.ball.x
		}
		if b.r.IntN(90) == 0 {
			// Mostly on the paddle (varied angles), sometimes just off it.
			reach := g.cfg.PaddleLen*Sub/2 + BallRadius
			b.aim[i] = b.r.Int32N(2*reach+3*Sub) - reach - 3*Sub/2
		}
		pos := g.seats[i].pos + b.aim[i]
		var d int8
		switch {
		case target < pos-Sub:
			d = -1
		case target > pos+Sub:
			d = 1
		}
		if b.r.IntN(6) == 0 {
			d = int8(b.r.IntN(3) - 1)
		}
		if d != b.dirs[i] {
			b.seq++
			b.buf = append(b.buf, game.Input{Slot: i, Seq: b.seq, Action: d})
			b.dirs[i] = d
		}
	}
	return b.buf
}
