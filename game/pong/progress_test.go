package pong

import "testing"

// rallyBound is the most ticks one rally can last under RulesProgress:
// the serve's pause, then at most ShrinkAfterHits+PaddleLen hits (the
// paddles are gone after that) and the contact that ends it, each reached
// within two crossings of the board's longer side at no less than half the
// serve speed (a return leaves at most maxBounceDeg off the normal, a
// serve at most maxServeDeg).
func rallyBound(c Config) int {
	contacts := ShrinkAfterHits + int(c.PaddleLen) + 1
	crossing := 2*int(max(c.Width, c.Height)*Sub)/int(c.BallSpeed/2) + 2
	return c.ServeDelayTicks + 1 + contacts*crossing
}

// matchBound is the most ticks a match of c can take when every rally is
// a point: 1v1 and 2v2 end after at most 2·PointsToWin−1 points, FFA
// after 4·Lives.
func matchBound(c Config) int {
	points := 2*c.PointsToWin - 1
	if c.Mode == FFA4 {
		points = 4 * c.Lives
	}
	return points * rallyBound(c)
}

// Two (or four) players who never touch a key must not keep a room alive:
// the match ends within a bound fixed by the config, whatever the serves,
// including the rally that kept a ranked room going for ever under the
// original rules — a flat ball between two paddles that never move.
func TestStillPaddlesRallyEndsInEveryMode(t *testing.T) {
	for _, m := range []Mode{OneVOne, TwoVTwo, FFA4} {
		cfg := DefaultConfig(m)
		bound := matchBound(cfg)
		t.Run(m.String()+"/serves", func(t *testing.T) {
			for seed := uint64(1); seed <= 200; seed++ {
				g := New(cfg, seed)
				for _, s := range allSeats(m) {
					if err := g.Join(s); err != nil {
						t.Fatal(err)
					}
				}
				for range bound {
					if g.over {
						break
					}
					g.Step(nil)
				}
				if !g.over {
					t.Fatalf("seed %d: no input, and the match is still on after %d ticks", seed, bound)
				}
			}
		})
		t.Run(m.String()+"/flat ball between still paddles", func(t *testing.T) {
			g := newGame(t, cfg, allSeats(m)...)
			start(g)
			// Dead centre, straight at the left paddle: the original
			// rules return it straight to the right paddle's dead centre,
			// and so on for ever.
			loX, _, _, _ := cfg.bounds()
			setBall(g, loX+cfg.BallSpeed/2, centre(cfg, Left), -cfg.BallSpeed, 0)
			rally := rallyBound(cfg)
			for tick := range rally {
				g.Step(nil)
				if !g.ball.live {
					t.Logf("%v: the flat rally ended after %d ticks, %d hits", m, tick+1, g.seats[Left].hits+g.seats[Right].hits)
					return
				}
			}
			t.Fatalf("a flat ball between still paddles is still in play after %d ticks (%d hits)", rally, g.seats[Left].hits+g.seats[Right].hits)
		})
	}
}

// However well the players play — here, paddles that are always exactly
// under the ball — a rally ends: past ShrinkAfterHits hits each hit takes
// a unit off every paddle, which players see (Snapshot's Len), until there
// is no paddle to meet the ball.
func TestRulesProgressShrinksPaddlesInALongRally(t *testing.T) {
	cfg := DefaultConfig(OneVOne)
	g := newGame(t, cfg, 0, 1)
	start(g)
	loX, _, _, _ := cfg.bounds()
	setBall(g, loX+cfg.BallSpeed/2, centre(cfg, Left)+3*Sub, -cfg.BallSpeed, 40)
	hits := func() int32 { return g.seats[Left].hits + g.seats[Right].hits }
	for tick := 0; g.ball.live; tick++ {
		if tick > rallyBound(cfg) {
			t.Fatalf("the rally is still on after %d ticks, %d hits", tick, hits())
		}
		for _, side := range []int{Left, Right} {
			lo, hi := cfg.PaddleRange(side)
			g.seats[side].pos = min(max(g.ball.y, lo), hi)
		}
		before := hits()
		g.Step(nil)
		if !g.ball.live {
			break
		}
		if n := hits(); n != before {
			want := cfg.PaddleLen * Sub
			if n > ShrinkAfterHits {
				want = max(want-(n-ShrinkAfterHits)*Sub, 0)
			}
			if l := snap(g).Paddles[Left].Len; l != want {
				t.Fatalf("after %d hits the paddles are %d long, want %d", n, l, want)
			}
		}
	}
	if n := hits(); n != ShrinkAfterHits+cfg.PaddleLen {
		t.Fatalf("the rally ended after %d hits, want %d: the last hit leaves no paddle", n, ShrinkAfterHits+cfg.PaddleLen)
	}
	if s := snap(g); s.Paddles[Left].Len != cfg.PaddleLen*Sub || s.Scores[Left]+s.Scores[Right] != 1 {
		t.Fatalf("after the rally: paddles %d long, scores %v; want full paddles and a point", s.Paddles[Left].Len, s.Scores)
	}
}

// A dead-centre hit under the current rules leaves at minBounceDeg, on the
// side the ball was already drifting to; the original rules (old replays)
// return it straight.
func TestRulesProgressCentreHitIsNeverFlat(t *testing.T) {
	sin := func(deg int, speed int32) int32 { return speed * sinTable[deg] >> trigScaleShift }
	for _, side := range []int{Left, Right, Top, Bottom} {
		for _, drift := range []int32{-8, 0, 8} {
			for _, rules := range []Rules{RulesOriginal, RulesProgress} {
				cfg := DefaultConfig(FFA4)
				cfg.SpeedUpPerHit, cfg.Rules = 0, rules
				g := newGame(t, cfg, 0, 1, 2, 3)
				start(g)
				shootAt(g, side, 0, 300)
				if side == Left || side == Right {
					g.ball.vy = drift
				} else {
					g.ball.vx = drift
				}
				g.Step(nil)
				_, along := normalAlong(side, g.ball.vx, g.ball.vy)
				want := int32(0)
				if rules == RulesProgress {
					want = sin(minBounceDeg, 300)
					if drift < 0 {
						want = -want
					}
				}
				if along != want {
					t.Errorf("%s, drift %d, rules %d: along %d, want %d", sideName(side), drift, rules, along, want)
				}
			}
		}
	}
}

// A 2v2 of one team never counts a miss, so when its players leave the
// result says it was a warm-up (not recorded); a match two sides contended
// is not one, even when it ends 0–0 by a forfeit on its first tick.
func TestWarmUpResult(t *testing.T) {
	g := newGame(t, DefaultConfig(TwoVTwo), Left, Right)
	for range 500 {
		g.Step(nil)
	}
	g.Leave(Left)
	g.Leave(Right)
	if r, over := g.Result(); !over || !r.WarmUp {
		t.Fatalf("one team warming up, then gone: over %v, %+v; want a warm-up", over, r)
	}
	for _, m := range []Mode{OneVOne, TwoVTwo, FFA4} {
		g := newGame(t, DefaultConfig(m), allSeats(m)...)
		start(g)
		for _, s := range allSeats(m)[1:] {
			g.Leave(s)
		}
		if r, over := g.Result(); !over || r.WarmUp || !r.Forfeit {
			t.Fatalf("%v forfeited on the first tick: over %v, %+v; want a forfeit, not a warm-up", m, over, r)
		}
	}
}
