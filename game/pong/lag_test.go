package pong

import (
	"testing"

	"github.com/termarena/termarena/game"
)

// lagged seats a 1v1 whose left player's view lags by lag ticks (their last
// input said so) and shoots the ball just past the left paddle: a unit
// beyond its reach, which the paddle needs two ticks to make up.
func lagged(t *testing.T, lag uint16) *Game {
	t.Helper()
	g := newGame(t, DefaultConfig(OneVOne), 0, 1)
	start(g)
	g.Step([]game.Input{{Slot: Left, Action: 0, Lag: lag}})
	reach := g.cfg.PaddleLen*Sub/2 + BallRadius
	shootAt(g, Left, reach+Sub, 200)
	g.Step(nil) // the ball crosses the line out of reach
	return g
}

func leftScoredOn(g *Game) bool { return g.seats[Right].score == 1 }

func TestLateCatchWithinLag(t *testing.T) {
	g := lagged(t, 5)
	if leftScoredOn(g) || !g.ball.live || g.held != Left+1 {
		t.Fatalf("a lagging player's miss was scored at once (score %d, held %d)", g.seats[Right].score, g.held)
	}
	x, y := g.ball.x, g.ball.y
	loX, _, _, _ := g.cfg.bounds()
	if x != loX {
		t.Fatalf("held ball at x %d, want the contact line %d", x, loX)
	}
	// The player, two ticks behind the ball on their screen, moves onto it.
	g.Step([]game.Input{{Slot: Left, Action: 1, Lag: 5}})
	if g.ball.x != x || g.ball.y != y || leftScoredOn(g) {
		t.Fatal("the held ball moved or was scored before the paddle got there")
	}
	g.Step(nil)
	if leftScoredOn(g) || g.seats[Left].hits != 1 || g.ball.vx <= 0 || g.held != 0 {
		t.Fatalf("late catch not returned: score %d, hits %d, vx %d, held %d", g.seats[Right].score, g.seats[Left].hits, g.ball.vx, g.held)
	}
}

func TestMissWithoutCompensation(t *testing.T) {
	g := lagged(t, 0)
	if !leftScoredOn(g) || g.ball.live {
		t.Fatal("a miss with no lag was not scored at once")
	}
}

// The ball waits no longer than the seat's lag: a paddle arriving one tick
// after it does not catch, and the point is given when the lag runs out.
func TestLateCatchNotPastLag(t *testing.T) {
	g := lagged(t, 1)
	g.Step([]game.Input{{Slot: Left, Action: 1, Lag: 1}})
	if !leftScoredOn(g) {
		t.Fatal("the point was not given when the lag ran out")
	}
	if g.seats[Left].hits != 0 {
		t.Fatal("caught after the lag")
	}
}

// Only the lagging seat's misses wait: the other side is judged at once.
func TestOtherSeatUnaffectedByLag(t *testing.T) {
	g := newGame(t, DefaultConfig(OneVOne), 0, 1)
	start(g)
	g.Step([]game.Input{{Slot: Left, Lag: 9}})
	reach := g.cfg.PaddleLen*Sub/2 + BallRadius
	shootAt(g, Right, reach+Sub, 200)
	g.Step(nil)
	if g.seats[Left].score != 1 || g.ball.live {
		t.Fatal("the right side's miss waited on the left player's lag")
	}
}

// A player who leaves while the ball waits at their line: the wall that
// replaces the paddle returns it, nothing is held for a seat that is gone.
func TestLeaveWhileHeld(t *testing.T) {
	g := newGame(t, DefaultConfig(FFA4), 0, 1, 2, 3)
	start(g)
	g.Step([]game.Input{{Slot: Left, Lag: 9}})
	reach := g.cfg.PaddleLen*Sub/2 + BallRadius
	shootAt(g, Left, reach+Sub, 200)
	g.Step(nil)
	if g.held != Left+1 {
		t.Fatal("not held")
	}
	g.Leave(Left)
	if g.held != 0 {
		t.Fatal("still held for a seat that left")
	}
	for range 3 {
		g.Step(nil)
	}
	loX, _, _, _ := g.cfg.bounds()
	if g.ball.live && g.ball.x < loX {
		t.Fatalf("ball behind the new wall at x %d", g.ball.x)
	}
}

// Lag is state: it changes what happens, so it is in the hash, and the
// same inputs with lag replay to the same hashes. Without lag the hash is
// what it always was (older replays verify; see the spectator fixture).
func TestLagDeterministicAndHashed(t *testing.T) {
	run := func(lag uint16) []uint64 {
		g := New(DefaultConfig(OneVOne), 42)
		_ = g.Join(0)
		_ = g.Join(1)
		var hs []uint64
		in := make([]game.Input, 0, 2)
		for i := range 3000 {
			in = in[:0]
			if i%7 == 0 {
				in = append(in, game.Input{Slot: i / 7 % 2, Action: int8(i/13%3 - 1), Lag: lag})
			}
			g.Step(in)
			hs = append(hs, g.Hash())
		}
		return hs
	}
	a, b, none := run(6), run(6), run(0)
	same := true
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("tick %d: hashes differ between identical runs", i+1)
		}
		same = same && a[i] == none[i]
	}
	if same {
		t.Fatal("lag never showed in the hash")
	}
	g := New(DefaultConfig(OneVOne), 42)
	_ = g.Join(0)
	_ = g.Join(1)
	g.Step([]game.Input{{Slot: 0, Lag: 3}, {Slot: 1, Lag: 3}})
	in := []game.Input{{Slot: 0, Action: 1, Lag: 9}, {Slot: 1, Action: -1, Lag: 2}}
	if n := testing.AllocsPerRun(500, func() { g.Step(in) }); n != 0 {
		t.Fatalf("Step with lag allocates %v times", n)
	}
}
