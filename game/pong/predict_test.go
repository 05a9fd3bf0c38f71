package pong

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
)

var modes = []Mode{OneVOne, FFA4, TwoVTwo}

// TestMovePaddleMatchesStep drives random direction changes through Step
// and checks every paddle, every tick, against Config.MovePaddle: both one
// tick at a time and in one call from where the direction was set, which is
// how a client re-applies in-flight input.
func TestMovePaddleMatchesStep(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for _, mode := range modes {
		for variant := range 4 {
			cfg := DefaultConfig(mode)
			cfg.PointsToWin, cfg.Lives = maxCount, maxCount
			if variant > 0 {
				// Odd speeds and lengths so clamping lands off any grid.
				cfg.PaddleSpeed = 1 + r.Int32N(3*Sub)
				cfg.PaddleLen = 1 + r.Int32N(20)
			}
			t.Run(mode.String(), func(t *testing.T) {
				g := newGame(t, cfg, allSeats(mode)...)
				for range 300 {
					side := r.IntN(g.nslots)
					dir := int8(r.IntN(3) - 1)
					from := g.seats[side].pos
					n := 1 + r.Int32N(120)
					inputs := []game.Input{{Slot: side, Action: dir}}
					for k := int32(1); k <= n; k++ {
						var prev [4]int32
						for i := range g.nslots {
							prev[i] = g.seats[i].pos
						}
						g.Step(inputs)
						inputs = nil
						for i := range g.nslots {
							if got, want := g.seats[i].pos, cfg.MovePaddle(prev[i], g.seats[i].dir, 1, i); got != want {
								t.Fatalf("tick %d side %d: Step put the paddle at %d, MovePaddle(1 tick) says %d", g.tick, i, got, want)
							}
						}
						if got, want := g.seats[side].pos, cfg.MovePaddle(from, dir, k, side); got != want {
							t.Fatalf("tick %d side %d: after %d ticks of dir %d from %d Step gives %d, MovePaddle %d",
								g.tick, side, k, dir, from, got, want)
						}
					}
				}
			})
		}
	}
}

// TestBallAtMatchesStep checks that extrapolating a snapshot k ticks ahead
// lands exactly where k Steps put the ball, for as long as no paddle face is
// reached.
func TestBallAtMatchesStep(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))

	t.Run("walls on every side, random shots", func(t *testing.T) {
		cfg := DefaultConfig(FFA4)
		loX, hiX, loY, hiY := cfg.bounds()
		for trial := range 200 {
			g := New(cfg, 1) // nobody seated: four walls
			vmax := cfg.MaxBallSpeed
			setBall(g, loX+r.Int32N(hiX-loX+1), loY+r.Int32N(hiY-loY+1), r.Int32N(2*vmax+1)-vmax, r.Int32N(2*vmax+1)-vmax)
			s0 := snap(g)
			for k := int32(1); k <= 600; k++ {
				g.Step(nil)
				x, y := s0.BallAt(k * TickFrac)
				if x != g.ball.x || y != g.ball.y {
					t.Fatalf("trial %d: from %+v after %d ticks BallAt = (%d,%d), Step = (%d,%d)",
						trial, s0.Ball, k, x, y, g.ball.x, g.ball.y)
				}
			}
		}
	})

	t.Run("1v1 top and bottom walls, paddles untouched", func(t *testing.T) {
		cfg := DefaultConfig(OneVOne)
		loX, hiX, _, _ := cfg.bounds()
		for trial := range 100 {
			g := newGame(t, cfg, 0, 1)
			start(g)
			vx := r.Int32N(81) - 40
			vy := r.Int32N(2*cfg.MaxBallSpeed+1) - cfg.MaxBallSpeed
			setBall(g, cfg.Width*Sub/2, cfg.Height*Sub/2, vx, vy)
			s0 := snap(g)
			for k := int32(1); k <= 2000; k++ {
				// Stop a tick before the ball could reach a paddle face.
				if nx := g.ball.x + g.ball.vx; nx < loX || nx > hiX {
					break
				}
				g.Step(nil)
				x, y := s0.BallAt(k * TickFrac)
				if x != g.ball.x || y != g.ball.y {
					t.Fatalf("trial %d tick %d: BallAt (%d,%d), Step (%d,%d)", trial, k, x, y, g.ball.x, g.ball.y)
				}
			}
		}
	})

	t.Run("FFA with one paddle, three walls", func(t *testing.T) {
		cfg := DefaultConfig(FFA4)
		loX, _, _, _ := cfg.bounds()
		g := newGame(t, cfg, Left)
		start(g)
		setBall(g, cfg.Width*Sub/2, cfg.Height*Sub/2, 97, -311)
		s0 := snap(g)
		checked := 0
		for k := int32(1); g.ball.x+g.ball.vx >= loX; k++ {
			g.Step(nil)
			x, y := s0.BallAt(k * TickFrac)
			if x != g.ball.x || y != g.ball.y {
				t.Fatalf("tick %d: BallAt (%d,%d), Step (%d,%d)", k, x, y, g.ball.x, g.ball.y)
			}
			checked++
		}
		if checked < 100 {
			t.Fatalf("only %d ticks compared", checked)
		}
	})

	t.Run("fractions, waiting ball, paddle faces", func(t *testing.T) {
		cfg := DefaultConfig(OneVOne)
		g := newGame(t, cfg, 0, 1)
		start(g)
		cx, cy := cfg.Width*Sub/2, cfg.Height*Sub/2
		setBall(g, cx, cy, -201, 51)
		s := snap(g)
		if x, y := s.BallAt(TickFrac / 2); x != cx-100 || y != cy+25 {
			t.Errorf("half a tick: (%d,%d), want (%d,%d)", x, y, cx-100, cy+25)
		}
		if x, y := s.BallAt(-5); x != cx || y != cy {
			t.Errorf("negative time moved the ball to (%d,%d)", x, y)
		}
		loX, _, _, _ := cfg.bounds()
		if x, _ := s.BallAt(10_000 * TickFrac); x != loX {
			t.Errorf("far ahead x = %d, want to stop at the left paddle's face %d", x, loX)
		}
		g.ball.live = false
		if x, y := snap(g).BallAt(50 * TickFrac); x != cx || y != cy {
			t.Errorf("a ball waiting to serve moved to (%d,%d)", x, y)
		}
	})
}

func TestFracTicks(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		rate int
		want int32
	}{
		{0, 60, 0},
		{-time.Second, 60, 0},
		{25 * time.Millisecond, 60, 3 * TickFrac / 2},
		{time.Second / 60, 60, TickFrac - 1}, // 16.666666ms: truncated, never ahead
		{50 * time.Millisecond, 60, 3 * TickFrac},
		{time.Hour, 60, 60 * TickFrac},
		{time.Second, 0, 0},
	} {
		if got := FracTicks(tt.d, tt.rate); got != tt.want {
			t.Errorf("FracTicks(%v, %d) = %d, want %d", tt.d, tt.rate, got, tt.want)
		}
	}
}
