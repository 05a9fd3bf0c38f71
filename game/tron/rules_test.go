package tron

import (
	"testing"

	"github.com/termarena/termarena/game"
)

func TestSteer(t *testing.T) {
	q := func(a ...int8) [QueueLen]int8 {
		var r [QueueLen]int8
		copy(r[:], a)
		return r
	}
	for _, tt := range []struct {
		name    string
		heading int8
		queue   [QueueLen]int8
		action  int8
		want    [QueueLen]int8
	}{
		{"none", Right, q(), None, q()},
		{"out of range", Right, q(), 9, q()},
		{"negative", Right, q(), -1, q()},
		{"turn", Right, q(), Up, q(Up)},
		{"same heading ignored", Right, q(), Right, q()},
		{"reverse ignored", Right, q(), Left, q()},
		{"second turn judged after the first", Right, q(Up), Left, q(Up, Left)},
		{"reverse of the queued turn ignored", Right, q(Up), Down, q(Up)},
		{"full: newest replaces the last", Right, q(Up, Left), Right, q(Up, Right)},
		{"full: replacement still cannot reverse", Right, q(Up, Left), Down, q(Up, Left)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Steer(tt.heading, tt.queue, tt.action); got != tt.want {
				t.Errorf("Steer(%d, %v, %d) = %v, want %v", tt.heading, tt.queue, tt.action, got, tt.want)
			}
		})
	}
}

func TestReverseIsIgnored(t *testing.T) {
	g := newGame(t, testConfig(2), 0, 1)
	arrange(t, g, pos{0, 5, 5, Right}, pos{1, 15, 12, Left})
	stepMoves(g, 1, in(0, Left))
	c := g.cycles[0]
	if !c.alive || c.x != 6 || c.y != 5 || c.heading != Right {
		t.Fatalf("after reversing: alive %v at (%d,%d) heading %d, want riding on to (6,5) heading right", c.alive, c.x, c.y, c.heading)
	}
}

func TestTurnsApplyAtMoves(t *testing.T) {
	cfg := testConfig(2)
	cfg.MoveEvery = 3
	g := newGame(t, cfg, 0, 1)
	arrange(t, g, pos{0, 5, 8, Right}, pos{1, 15, 12, Left})
	g.moveIn = 3
	// A turn on a tick between moves waits for the next move...
	g.Step([]game.Input{in(0, Up)})
	if c := g.cycles[0]; c.x != 5 || c.y != 8 || c.heading != Right {
		t.Fatalf("between moves: at (%d,%d) heading %d, want still at (5,8) heading right", c.x, c.y, c.heading)
	}
	if s := snap(g); s.Cycles[0].Queue != [QueueLen]int8{Up} {
		t.Fatalf("queued turns %v, want [up]", s.Cycles[0].Queue)
	}
	g.Step(nil)
	g.Step(nil)
	if c := g.cycles[0]; c.x != 5 || c.y != 7 || c.heading != Up {
		t.Fatalf("at the move: at (%d,%d) heading %d, want (5,7) heading up", c.x, c.y, c.heading)
	}
	// ...and a turn sent on the move tick itself is taken in that move.
	g.Step(nil)
	g.Step(nil)
	g.Step([]game.Input{in(0, Left)})
	if c := g.cycles[0]; c.x != 4 || c.y != 7 || c.heading != Left {
		t.Fatalf("turn on the move tick: at (%d,%d) heading %d, want (4,7) heading left", c.x, c.y, c.heading)
	}
}

// TestQuickUTurn: two keys inside one move make a U-turn over two moves;
// without the queue the second key would be judged a reverse and lost.
func TestQuickUTurn(t *testing.T) {
	cfg := testConfig(2)
	cfg.MoveEvery = 4
	g := newGame(t, cfg, 0, 1)
	arrange(t, g, pos{0, 5, 8, Right}, pos{1, 15, 12, Left})
	g.moveIn = 4
	g.Step([]game.Input{in(0, Up), in(0, Left)})
	stepMoves(g, 2)
	c := g.cycles[0]
	if !c.alive || c.x != 4 || c.y != 7 || c.heading != Left {
		t.Fatalf("after up+left: alive %v at (%d,%d) heading %d, want riding at (4,7) heading left", c.alive, c.x, c.y, c.heading)
	}
}

func TestCollisions(t *testing.T) {
	for _, tt := range []struct {
		name   string
		cycles []pos
		trails map[int][][2]int
		alive  []bool // per slot after one move
	}{
		{"wall right", []pos{{0, 19, 5, Right}, {1, 10, 10, Left}}, nil, []bool{false, true}},
		{"wall top", []pos{{0, 3, 0, Up}, {1, 10, 10, Left}}, nil, []bool{false, true}},
		{"own trail", []pos{{0, 5, 5, Right}, {1, 10, 10, Left}}, map[int][][2]int{0: {{6, 5}}}, []bool{false, true}},
		{"other trail", []pos{{0, 5, 5, Right}, {1, 10, 10, Left}}, map[int][][2]int{1: {{6, 5}}}, []bool{false, true}},
		{"head-on, adjacent", []pos{{0, 5, 5, Right}, {1, 6, 5, Left}}, nil, []bool{false, false}},
		{"into a head from the side", []pos{{0, 5, 5, Right}, {1, 6, 5, Down}}, nil, []bool{false, true}},
		{"same cell", []pos{{0, 5, 5, Right}, {1, 7, 5, Left}}, nil, []bool{false, false}},
		{"same cell at right angles", []pos{{0, 5, 5, Right}, {1, 6, 4, Down}}, nil, []bool{false, false}},
		{"side by side is safe", []pos{{0, 5, 5, Right}, {1, 5, 6, Right}}, nil, []bool{true, true}},
		{"clear", []pos{{0, 5, 5, Right}, {1, 10, 10, Left}}, nil, []bool{true, true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(3)
			cfg.PauseTicks = 10 // keep the arena as the move left it
			g := newGame(t, cfg, 0, 1, 2)
			arrange(t, g, append(tt.cycles, pos{2, 15, 14, Left})...)
			for s, cells := range tt.trails {
				trail(g, s, cells...)
			}
			g.Step(nil)
			for s, want := range tt.alive {
				if got := g.cycles[s].alive; got != want {
					t.Errorf("slot %d alive = %v, want %v", s, got, want)
				}
			}
			if !g.cycles[2].alive {
				t.Error("the bystander crashed")
			}
			// A crashed cycle leaves no mark where it would have gone, and
			// stays on the cell it crashed from.
			for s, p := range tt.cycles {
				if !tt.alive[s] && (int(g.cycles[s].x) != p.x || int(g.cycles[s].y) != p.y) {
					t.Errorf("slot %d crashed but moved to (%d,%d)", s, g.cycles[s].x, g.cycles[s].y)
				}
			}
		})
	}
}

// TestSlotOrderDoesNotMatter swaps which slot plays which cycle in a
// meeting: the outcome must follow the cycles, not the slot numbers.
func TestSlotOrderDoesNotMatter(t *testing.T) {
	// Slot a drives into the cell b is leaving: b's old head is trail, so a
	// crashes whichever slot it is.
	for _, order := range [][2]int{{0, 1}, {1, 0}} {
		a, b := order[0], order[1]
		cfg := testConfig(2)
		cfg.PauseTicks = 10
		g := newGame(t, cfg, 0, 1)
		arrange(t, g, pos{a, 5, 5, Right}, pos{b, 6, 5, Up})
		g.Step(nil)
		if g.cycles[a].alive || !g.cycles[b].alive {
			t.Errorf("slots %v: a alive %v, b alive %v; want a crashed into b's trail, b riding",
				order, g.cycles[a].alive, g.cycles[b].alive)
		}
	}
}

func TestRoundWinnerAndDraw(t *testing.T) {
	t.Run("last one riding wins", func(t *testing.T) {
		g := newGame(t, testConfig(3), 0, 1, 2)
		arrange(t, g, pos{0, 19, 5, Right}, pos{1, 0, 9, Left}, pos{2, 10, 10, Up})
		g.Step(nil)
		if g.cycles[2].wins != 1 || g.cycles[0].wins != 0 || g.cycles[1].wins != 0 {
			t.Fatalf("wins %d %d %d, want 0 0 1", g.cycles[0].wins, g.cycles[1].wins, g.cycles[2].wins)
		}
		if g.round != 2 {
			t.Fatalf("round %d, want 2 (no pause configured)", g.round)
		}
	})
	t.Run("the last ones crashing together share it", func(t *testing.T) {
		g := newGame(t, testConfig(4), 0, 1, 2, 3)
		arrange(t, g, pos{0, 5, 5, Right}, pos{1, 6, 5, Left}, pos{2, 10, 10, Up}, pos{3, 12, 10, Up})
		g.Step(nil) // 0 and 1 meet head-on; 2 and 3 ride on
		if g.round != 1 || !g.cycles[2].alive || !g.cycles[3].alive {
			t.Fatalf("round %d: the round must go on while 2 and 3 ride", g.round)
		}
		g.cycles[2].heading, g.cycles[3].heading = Right, Left
		g.Step(nil) // 2 and 3 meet in (11, 9): both were the last
		want := []int32{0, 0, 1, 1}
		for s := range want {
			if g.cycles[s].wins != want[s] {
				t.Errorf("slot %d wins %d, want %d", s, g.cycles[s].wins, want[s])
			}
		}
	})
	t.Run("simultaneous final crash is a draw", func(t *testing.T) {
		g := newGame(t, testConfig(3), 0, 1, 2)
		arrange(t, g, pos{0, 5, 5, Right}, pos{1, 7, 5, Left}, pos{2, 19, 10, Right})
		g.Step(nil) // all three crash in one move
		for s := range 3 {
			if g.cycles[s].wins != 1 {
				t.Errorf("slot %d wins %d, want 1 (three-way draw)", s, g.cycles[s].wins)
			}
		}
	})
}

func TestPauseThenReset(t *testing.T) {
	cfg := testConfig(2)
	cfg.PauseTicks, cfg.ReadyTicks, cfg.MoveEvery = 5, 4, 2
	g := newGame(t, cfg, 0, 1)
	arrange(t, g, pos{0, 19, 5, Right}, pos{1, 5, 10, Left})
	g.moveIn = 1
	g.Step([]game.Input{in(1, Up)})
	s := snap(g)
	if s.PauseIn != 5 || s.RoundWinners != 1<<1 || s.Round != 1 || s.Cycles[0].Alive {
		t.Fatalf("after the crash: pause %d, round winners %#b, round %d, slot 0 alive %v; want a 5-tick freeze of round 1 won by slot 1",
			s.PauseIn, s.RoundWinners, s.Round, s.Cycles[0].Alive)
	}
	frozen := s.Cycles[1]
	for range 4 {
		g.Step([]game.Input{in(1, Right)}) // ignored while frozen
		if c := snap(g).Cycles[1]; c.X != frozen.X || c.Y != frozen.Y || c.Queue != frozen.Queue {
			t.Fatalf("slot 1 moved or steered during the freeze: %+v, was %+v", c, frozen)
		}
	}
	g.Step(nil)
	s = snap(g)
	if s.Round != 2 || s.PauseIn != 0 || s.HoldIn != 4 || s.RoundWinners != 0 {
		t.Fatalf("after the freeze: round %d, pause %d, hold %d, round winners %#b; want round 2 holding 4", s.Round, s.PauseIn, s.HoldIn, s.RoundWinners)
	}
	marked := 0
	for _, v := range s.Grid {
		if v != 0 {
			marked++
		}
	}
	if marked != 2 || !s.Cycles[0].Alive || !s.Cycles[1].Alive {
		t.Fatalf("after the reset: %d cells marked, alive %v %v; want a clear arena with the two starts", marked, s.Cycles[0].Alive, s.Cycles[1].Alive)
	}
	start0 := s.Cycles[0]
	for range 4 {
		g.Step(nil)
	}
	if c := snap(g).Cycles[0]; c.X != start0.X || c.Y != start0.Y || c.Survival != 1 {
		t.Fatalf("during the hold: slot 0 at (%d,%d), survival %d; want still at its start (%d,%d), survival 1 (the tick it crashed)",
			c.X, c.Y, c.Survival, start0.X, start0.Y)
	}
	stepMoves(g, 1)
	if c := snap(g).Cycles[0]; c.X == start0.X && c.Y == start0.Y {
		t.Fatal("slot 0 did not move after the hold")
	}
}

func TestMatchEndsAndPlaces(t *testing.T) {
	cfg := testConfig(4)
	cfg.RoundsToWin = 2
	g := newGame(t, cfg, 0, 1, 2, 3)
	// Round 1: 0 and 1 crash first, 2 outlasts 3 by a move.
	arrange(t, g, pos{0, 19, 1, Right}, pos{1, 19, 3, Right}, pos{2, 5, 5, Up}, pos{3, 5, 10, Up})
	trail(g, 3, [2]int{5, 12}) // 3 is walled in one move after 0 and 1
	g.cycles[3].heading = Down
	g.Step(nil)
	if !g.cycles[2].alive || !g.cycles[3].alive {
		t.Fatal("2 and 3 should ride on")
	}
	g.Step(nil) // 3 crashes into its trail
	if g.cycles[2].wins != 1 || g.round != 2 {
		t.Fatalf("slot 2 wins %d, round %d; want 1 and round 2", g.cycles[2].wins, g.round)
	}
	// Round 2: 2 wins again and the match is over.
	arrange(t, g, pos{0, 19, 1, Right}, pos{1, 19, 3, Right}, pos{2, 5, 5, Up}, pos{3, 19, 9, Right})
	g.Step(nil)
	res, ok := g.Result()
	if !ok {
		t.Fatal("match not over after slot 2's second round win")
	}
	// 2: two wins. 3 survived 3 ticks, 0 and 1 two each: tied, sharing
	// third (dense).
	if want := []int{3, 3, 1, 2}; !equalInts(res.Places, want) {
		t.Errorf("places %v, want %v", res.Places, want)
	}
	if want := []int{2, 3, 0, 1}; !equalInts(res.Placements, want) {
		t.Errorf("placements %v, want %v", res.Placements, want)
	}
	if want := []int{0, 0, 2, 0}; !equalInts(res.Scores, want) {
		t.Errorf("scores %v, want %v", res.Scores, want)
	}
	if res.Forfeit {
		t.Error("forfeit on a match played out")
	}
	s := snap(g)
	if !s.Over || !s.Won(2) || s.Won(3) || s.Cycles[0].Place != 3 {
		t.Errorf("snapshot: over %v, winners %#b, slot 0 place %d", s.Over, s.Winners, s.Cycles[0].Place)
	}
	// Over is final.
	h := g.Hash()
	g.Step([]game.Input{in(2, Left)})
	if g.Hash() != h {
		t.Error("Step changed a finished match")
	}
	if err := g.Join(0); err != ErrOver {
		t.Errorf("Join after the end: %v, want ErrOver", err)
	}
}

func TestMatchEndsOnSharedWin(t *testing.T) {
	cfg := testConfig(2)
	cfg.RoundsToWin = 1
	g := newGame(t, cfg, 0, 1)
	arrange(t, g, pos{0, 5, 5, Right}, pos{1, 6, 5, Left})
	g.cycles[0].survival = 10 // 0 outlived 1 over the match
	g.Step(nil)
	res, ok := g.Result()
	if !ok {
		t.Fatal("not over")
	}
	if want := []int{1, 2}; !equalInts(res.Places, want) {
		t.Errorf("places %v, want %v: equal round wins, longer survival first", res.Places, want)
	}
	g = newGame(t, cfg, 0, 1)
	arrange(t, g, pos{0, 5, 5, Right}, pos{1, 6, 5, Left})
	g.Step(nil)
	res, _ = g.Result()
	if want := []int{1, 1}; !equalInts(res.Places, want) || !equalInts(res.Placements, []int{0, 1}) {
		t.Errorf("places %v placements %v, want a shared first", res.Places, res.Placements)
	}
}

func equalInts(a, b []int) bool {
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
