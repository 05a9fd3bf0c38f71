package pong

import (
	"testing"

	"github.com/termarena/termarena/game"
)

// normalAlong splits a velocity into the component pointing away from side
// (positive when the ball moves away from it) and the component along it.
func normalAlong(side int, vx, vy int32) (normal, along int32) {
	switch side {
	case Left:
		return vx, vy
	case Right:
		return -vx, vy
	case Top:
		return vy, vx
	}
	return -vy, vx
}

func TestWallBounce(t *testing.T) {
	tests := []struct {
		name  string
		mode  Mode
		seats []int
		wall  int
	}{
		{"1v1 top wall", OneVOne, []int{0, 1}, Top},
		{"1v1 bottom wall", OneVOne, []int{0, 1}, Bottom},
		{"FFA empty left side", FFA4, []int{1, 2, 3}, Left},
		{"FFA empty right side", FFA4, []int{0, 2, 3}, Right},
		{"FFA empty top side", FFA4, []int{0, 1, 3}, Top},
		{"FFA empty bottom side", FFA4, []int{0, 1, 2}, Bottom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGame(t, DefaultConfig(tt.mode), tt.seats...)
			start(g)
			// 100 sub-units short of the wall, 200 per tick towards it,
			// drifting 37 along it.
			shootAt(g, tt.wall, 0, 200)
			if tt.wall == Left || tt.wall == Right {
				g.ball.vy = 37
			} else {
				g.ball.vx = 37
			}
			before := g.ball
			g.Step(nil)
			s := snap(g)
			if !s.Ball.Live || s.LastPointAgainst != -1 {
				t.Fatalf("ball should bounce, got live=%v lastPointAgainst=%d", s.Ball.Live, s.LastPointAgainst)
			}
			n0, a0 := normalAlong(tt.wall, before.vx, before.vy)
			n1, a1 := normalAlong(tt.wall, s.Ball.VX, s.Ball.VY)
			if n0 != -200 || n1 != 200 || a1 != a0 {
				t.Errorf("velocity away/along: before %d/%d, after %d/%d; want -200/37 then 200/37", n0, a0, n1, a1)
			}
			// The 100 sub-units of overshoot are mirrored back: the
			// normal coordinate is where it started, the other moved 37.
			wantX, wantY := before.x+37, before.y
			if tt.wall == Left || tt.wall == Right {
				wantX, wantY = before.x, before.y+37
			}
			if s.Ball.X != wantX || s.Ball.Y != wantY {
				t.Errorf("ball at (%d,%d), want (%d,%d)", s.Ball.X, s.Ball.Y, wantX, wantY)
			}
			if s.Hits != [4]int32{} {
				t.Errorf("hits %v, a wall is not a paddle", s.Hits)
			}
		})
	}
}

func TestPaddleBounce(t *testing.T) {
	tests := []struct {
		name string
		mode Mode
		side int
	}{
		{"1v1 left paddle", OneVOne, Left},
		{"1v1 right paddle", OneVOne, Right},
		{"FFA left paddle", FFA4, Left},
		{"FFA right paddle", FFA4, Right},
		{"FFA top paddle", FFA4, Top},
		{"FFA bottom paddle", FFA4, Bottom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig(tt.mode)
			// The original rules return a centre hit straight; replays
			// recorded under them still play so (TestRulesProgress*).
			cfg.Rules = RulesOriginal
			g := newGame(t, cfg, allSeats(tt.mode)...)
			start(g)
			shootAt(g, tt.side, 0, 200)
			before := g.ball
			g.Step(nil)
			s := snap(g)
			if !s.Ball.Live || s.LastPointAgainst != -1 {
				t.Fatalf("ball should bounce off the paddle, got live=%v lastPointAgainst=%d", s.Ball.Live, s.LastPointAgainst)
			}
			normal, along := normalAlong(tt.side, s.Ball.VX, s.Ball.VY)
			if want := 200 + cfg.SpeedUpPerHit; normal != want || along != 0 {
				t.Errorf("after a centre hit velocity away/along = %d/%d, want %d/0", normal, along, want)
			}
			if s.Ball.X != before.x || s.Ball.Y != before.y {
				t.Errorf("ball at (%d,%d), want the mirrored (%d,%d)", s.Ball.X, s.Ball.Y, before.x, before.y)
			}
			var want [4]int32
			want[tt.side] = 1
			if s.Hits != want {
				t.Errorf("hits %v, want %v", s.Hits, want)
			}
		})
	}
}

func TestBounceAngleByHitOffset(t *testing.T) {
	for _, side := range []int{Left, Right, Top, Bottom} {
		cfg := DefaultConfig(FFA4)
		cfg.SpeedUpPerHit = 0
		cfg.Rules = RulesOriginal // a centre hit returns straight
		half := cfg.PaddleLen*Sub/2 + BallRadius
		const speed = 300
		bounce := func(off int32) (normal, along int32, ok bool) {
			g := newGame(t, cfg, 0, 1, 2, 3)
			start(g)
			shootAt(g, side, off, speed)
			g.Step(nil)
			if !g.ball.live {
				return 0, 0, false
			}
			normal, along = normalAlong(side, g.ball.vx, g.ball.vy)
			return normal, along, true
		}
		sin := func(deg int) int32 { return speed * sinTable[deg] >> trigScaleShift }
		tests := []struct {
			name      string
			off       int32
			wantAlong int32
		}{
			{"centre returns straight", 0, 0},
			{"upper/left edge is steep up/left", -half, -sin(maxBounceDeg)},
			{"lower/right edge is steep down/right", half, sin(maxBounceDeg)},
			{"halfway up/left", -half / 2, -sin(maxBounceDeg / 2)},
			{"halfway down/right", half / 2, sin(maxBounceDeg / 2)},
		}
		for _, tt := range tests {
			t.Run(sideName(side)+"/"+tt.name, func(t *testing.T) {
				normal, along, ok := bounce(tt.off)
				if !ok {
					t.Fatal("ball missed")
				}
				if along != tt.wantAlong {
					t.Errorf("along = %d, want %d", along, tt.wantAlong)
				}
				// Never parallel to the paddle: at least cos(max angle).
				if minNormal := speed * sinTable[90-maxBounceDeg] >> trigScaleShift; normal < minNormal {
					t.Errorf("away = %d, want >= %d", normal, minNormal)
				}
				mn, ma, _ := bounce(-tt.off)
				if mn != normal || ma != -along {
					t.Errorf("mirror hit gives %d/%d, want %d/%d", mn, ma, normal, -along)
				}
			})
		}
		t.Run(sideName(side)+"/just past the edge misses", func(t *testing.T) {
			for _, off := range []int32{half + 1, -half - 1} {
				if _, _, ok := bounce(off); ok {
					t.Errorf("offset %d bounced, want a miss", off)
				}
			}
		})
	}
	// Steeper the further out, across the whole paddle.
	cfg := DefaultConfig(OneVOne)
	half := cfg.PaddleLen*Sub/2 + BallRadius
	prev := int32(-1 << 30)
	for off := -half; off <= half; off += 16 {
		g := newGame(t, cfg, 0, 1)
		start(g)
		shootAt(g, Left, off, 200)
		g.Step(nil)
		if g.ball.vy < prev {
			t.Fatalf("vy not monotonic in offset at %d: %d < %d", off, g.ball.vy, prev)
		}
		prev = g.ball.vy
	}
}

func sideName(s int) string {
	return [...]string{"left", "right", "top", "bottom"}[s]
}

func TestSpeedUpPerHitAndCap(t *testing.T) {
	cfg := DefaultConfig(OneVOne)
	// The original rules: a flat rally never ends, which is what lets
	// this count hits for ever (TestStillPaddlesRallyEndsInEveryMode is
	// the current rules' answer to that).
	cfg.Rules = RulesOriginal
	g := newGame(t, cfg, 0, 1)
	start(g)
	// Straight down the middle between two centred paddles: every hit is a
	// centre hit, so the ball rallies forever and only speeds up.
	setBall(g, cfg.Width*Sub/2, centre(cfg, Left), -cfg.BallSpeed, 0)
	hits := int32(0)
	capped := false
	for tick := 0; tick < 5000; tick++ {
		g.Step(nil)
		s := snap(g)
		if !s.Ball.Live {
			t.Fatalf("tick %d: the rally ended", tick)
		}
		if n := s.Hits[0] + s.Hits[1]; n != hits {
			hits = n
			want := min(cfg.BallSpeed+hits*cfg.SpeedUpPerHit, cfg.MaxBallSpeed)
			if abs32(s.Ball.VX) != want || s.Ball.VY != 0 || g.ball.speed != want {
				t.Fatalf("after %d hits velocity (%d,%d) speed %d, want |vx| %d", hits, s.Ball.VX, s.Ball.VY, g.ball.speed, want)
			}
			capped = capped || want == cfg.MaxBallSpeed
		}
	}
	if !capped || hits < 30 {
		t.Fatalf("only %d hits, cap reached %v", hits, capped)
	}
}

func TestScore1v1(t *testing.T) {
	cfg := DefaultConfig(OneVOne)
	tests := []struct {
		name   string
		missAt int
		scorer int
	}{
		{"ball past left scores for right", Left, Right},
		{"ball past right scores for left", Right, Left},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGame(t, cfg, 0, 1)
			start(g)
			missAt(t, g, tt.missAt)
			s := snap(g)
			var want [4]int32
			want[tt.scorer] = 1
			if s.Scores != want {
				t.Errorf("scores %v, want %v", s.Scores, want)
			}
			if s.LastPointAgainst != int8(tt.missAt) || s.LastPointBy != int8(tt.scorer) || s.LastPointTick != s.Tick {
				t.Errorf("last point against %d by %d at %d, want %d by %d at %d",
					s.LastPointAgainst, s.LastPointBy, s.LastPointTick, tt.missAt, tt.scorer, s.Tick)
			}
			if s.Ball.Live || s.Ball.X != cfg.Width*Sub/2 || s.Ball.Y != cfg.Height*Sub/2 || s.ServeIn != int32(cfg.ServeDelayTicks) {
				t.Errorf("ball %+v serveIn %d, want waiting at the centre for %d ticks", s.Ball, s.ServeIn, cfg.ServeDelayTicks)
			}
			for range cfg.ServeDelayTicks {
				g.Step(nil)
			}
			if !g.ball.live {
				t.Errorf("ball not re-served after %d ticks", cfg.ServeDelayTicks)
			}
		})
	}
}

func TestFirstToNEnds1v1(t *testing.T) {
	cfg := DefaultConfig(OneVOne)
	cfg.PointsToWin = 3
	g := newGame(t, cfg, 0, 1)
	start(g)
	missAt(t, g, Left)
	missAt(t, g, Right)
	missAt(t, g, Left)
	if _, over := g.Result(); over {
		t.Fatal("over at 2-1")
	}
	missAt(t, g, Left)
	r, over := g.Result()
	if !over {
		t.Fatal("not over at 3-1")
	}
	checkResult(t, r, game.Result{Placements: []int{1, 0}, Places: []int{2, 1}, Scores: []int{1, 3}})
	s := snap(g)
	if !s.Over || !s.Won(1) || s.Won(0) || s.Forfeit {
		t.Errorf("snapshot over=%v winners=%b forfeit=%v", s.Over, s.Winners, s.Forfeit)
	}
	h := g.Hash()
	g.Step([]game.Input{{Slot: 0, Action: 1}})
	if g.Hash() != h {
		t.Error("Step after the end changed the state")
	}
	if err := g.Join(0); err != ErrOver {
		t.Errorf("Join after the end = %v, want ErrOver", err)
	}
}

func checkResult(t *testing.T, got, want game.Result) {
	t.Helper()
	eq := func(a, b []int) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	if !eq(got.Placements, want.Placements) || !eq(got.Places, want.Places) ||
		!eq(got.Scores, want.Scores) || got.Forfeit != want.Forfeit {
		t.Errorf("result %+v, want %+v", got, want)
	}
}

func TestFFALivesAndElimination(t *testing.T) {
	cfg := DefaultConfig(FFA4)
	cfg.Lives = 2
	g := newGame(t, cfg, 0, 1, 2, 3)
	start(g)

	missAt(t, g, Top)
	if s := snap(g); s.Lives != [4]int32{2, 2, 1, 2} || s.Paddles[Top].Out {
		t.Fatalf("after one miss lives %v out %v", s.Lives, s.Paddles[Top].Out)
	}
	missAt(t, g, Top)
	s := snap(g)
	if s.Lives[Top] != 0 || !s.Paddles[Top].Out || s.Paddles[Top].Present {
		t.Fatalf("top should be out: %+v lives %v", s.Paddles[Top], s.Lives)
	}

	t.Run("eliminated side is a wall", func(t *testing.T) {
		shootAt(g, Top, 0, 200)
		at := g.lastPointTick
		g.Step(nil)
		if !g.ball.live || g.ball.vy != 200 || g.lastPointTick != at {
			t.Errorf("ball %+v lastPointTick %d: want a bounce off the top wall", g.ball, g.lastPointTick)
		}
	})
	t.Run("eliminated seat cannot be rejoined", func(t *testing.T) {
		if err := g.Join(Top); err != ErrTaken {
			t.Errorf("Join(top) = %v, want ErrTaken (the player is still seated)", err)
		}
		g2 := newGame(t, cfg, 0, 1, 2, 3)
		start(g2)
		missAt(t, g2, Top)
		missAt(t, g2, Top)
		g2.Leave(Top)
		if err := g2.Join(Top); err != ErrEliminated {
			t.Errorf("Join(top) after its player left = %v, want ErrEliminated", err)
		}
	})

	missAt(t, g, Left)
	missAt(t, g, Left)
	missAt(t, g, Bottom)
	if _, over := g.Result(); over {
		t.Fatal("over with two players in")
	}
	missAt(t, g, Bottom)
	r, over := g.Result()
	if !over {
		t.Fatal("not over with one player left")
	}
	// Out in order top, left, bottom: later out is better.
	checkResult(t, r, game.Result{Placements: []int{1, 3, 0, 2}, Places: []int{3, 1, 4, 2}, Scores: []int{0, 2, 0, 0}})
	if s := snap(g); !s.Over || s.Winners != 1<<Right {
		t.Errorf("over=%v winners=%b", s.Over, s.Winners)
	}
}

func Test2v2TeamScoring(t *testing.T) {
	cfg := DefaultConfig(TwoVTwo)
	cfg.PointsToWin = 2
	g := newGame(t, cfg, 0, 1, 2, 3)
	start(g)
	missAt(t, g, Left)
	if s := snap(g); s.Scores != [4]int32{0, 0, 1, 1} {
		t.Fatalf("ball past left: scores %v, want team B (top+bottom) 1", s.Scores)
	}
	missAt(t, g, Top)
	if s := snap(g); s.Scores != [4]int32{1, 1, 1, 1} {
		t.Fatalf("ball past top: scores %v, want 1-1", s.Scores)
	}
	missAt(t, g, Right)
	r, over := g.Result()
	if !over {
		t.Fatal("not over at 2-1")
	}
	checkResult(t, r, game.Result{Placements: []int{2, 3, 0, 1}, Places: []int{2, 2, 1, 1}, Scores: []int{1, 1, 2, 2}})
	if s := snap(g); s.Winners != 1<<Top|1<<Bottom {
		t.Errorf("winners %b, want top and bottom", s.Winners)
	}
}

func TestPaddleClamp(t *testing.T) {
	for _, mode := range []Mode{OneVOne, FFA4, TwoVTwo} {
		cfg := DefaultConfig(mode)
		for _, side := range allSeats(mode) {
			t.Run(mode.String()+"/"+sideName(side), func(t *testing.T) {
				g := newGame(t, cfg, allSeats(mode)...)
				lo, hi := cfg.PaddleRange(side)
				l := cfg.PaddleLen * Sub
				// One corner cell at each end belongs to no paddle.
				if lo-l/2 != Sub || hi+l/2 != cfg.sideLen(side)-Sub {
					t.Fatalf("range %d..%d for length %d on a side of %d", lo, hi, l, cfg.sideLen(side))
				}
				for _, end := range []struct {
					dir  int8
					want int32
				}{{1, hi}, {-1, lo}, {1, hi}} {
					g.Step([]game.Input{{Slot: side, Action: end.dir}})
					for range 200 {
						g.Step(nil)
					}
					if got := g.seats[side].pos; got != end.want {
						t.Errorf("dir %d: pos %d, want %d", end.dir, got, end.want)
					}
				}
			})
		}
	}
	t.Run("corners", func(t *testing.T) {
		cfg := DefaultConfig(FFA4)
		// cells returns the cells a paddle covers along its side.
		cells := func(side int, pos int32) (first, last int32) {
			l := cfg.PaddleLen * Sub
			return (pos - l/2) / Sub, (pos+l/2+Sub-1)/Sub - 1
		}
		for side := range 4 {
			lo, hi := cfg.PaddleRange(side)
			f, _ := cells(side, lo)
			_, l := cells(side, hi)
			if f != 1 || l != cfg.sideLen(side)/Sub-2 {
				t.Errorf("%s paddle spans cells %d..%d, want 1..%d: the corner cells 0 and %d must stay free",
					sideName(side), f, l, cfg.sideLen(side)/Sub-2, cfg.sideLen(side)/Sub-1)
			}
			// Yet every point the ball can touch is within reach.
			half := cfg.PaddleLen*Sub/2 + BallRadius
			loX, hiX, loY, hiY := cfg.bounds()
			minA, maxA := loY, hiY
			if side == Top || side == Bottom {
				minA, maxA = loX, hiX
			}
			if minA < lo-half || maxA > hi+half {
				t.Errorf("%s: ball contact range %d..%d not covered by %d..%d ± %d", sideName(side), minA, maxA, lo, hi, half)
			}
		}
	})
}

func TestInputDirectionPersists(t *testing.T) {
	cfg := DefaultConfig(OneVOne)
	g := newGame(t, cfg, 0, 1)
	p0 := g.seats[0].pos
	v := cfg.PaddleSpeed
	steps := []struct {
		name   string
		inputs []game.Input
		want   int32 // change in slot 0's position this tick
		dir    int8
	}{
		{"press down", []game.Input{{Slot: 0, Seq: 1, Action: 1}}, v, 1},
		{"held", nil, v, 1},
		{"still held", nil, v, 1},
		{"other slot's input", []game.Input{{Slot: 1, Seq: 1, Action: -1}}, v, 1},
		{"stop", []game.Input{{Slot: 0, Seq: 2, Action: 0}}, 0, 0},
		{"stays stopped", nil, 0, 0},
		{"up", []game.Input{{Slot: 0, Seq: 3, Action: -1}}, -v, -1},
		{"held up", nil, -v, -1},
		{"last input of a tick wins", []game.Input{{Slot: 0, Seq: 4, Action: 0}, {Slot: 0, Seq: 5, Action: 1}}, v, 1},
		{"out-of-range action is its sign", []game.Input{{Slot: 0, Seq: 6, Action: -7}}, -v, -1},
		{"bad slot ignored", []game.Input{{Slot: 9, Action: 1}, {Slot: -1, Action: 1}}, -v, -1},
	}
	for _, st := range steps {
		g.Step(st.inputs)
		p := g.seats[0].pos
		if p-p0 != st.want || g.seats[0].dir != st.dir {
			t.Errorf("%s: moved %d dir %d, want %d dir %d", st.name, p-p0, g.seats[0].dir, st.want, st.dir)
		}
		if snap(g).Paddles[0].Dir != st.dir {
			t.Errorf("%s: snapshot dir %d", st.name, snap(g).Paddles[0].Dir)
		}
		p0 = p
	}
	if d := g.seats[1].dir; d != -1 {
		t.Errorf("slot 1 dir %d, want -1", d)
	}
}
