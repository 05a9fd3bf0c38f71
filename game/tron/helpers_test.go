package tron

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

// testConfig is a small arena with a move every tick and no pauses, so
// rule tests count moves, not ticks.
func testConfig(players int) Config {
	c := DefaultConfig(Casual)
	c.Players, c.MinPlayers = players, 1
	c.Width, c.Height = 20, 16
	c.MoveEvery = 1
	c.PauseTicks, c.ReadyTicks = 0, 0
	return c
}

// pos is a cycle placement for arrange.
type pos struct {
	slot    int
	x, y    int
	heading int8
}

// arrange starts the match with exactly the given cycles riding at the
// given cells on an empty arena, as the rule tests need; every other seat
// stays as it is (seated ones do not ride this round).
func arrange(t testing.TB, g *Game, ps ...pos) {
	t.Helper()
	g.started = true
	clear(g.grid)
	g.dirty = true
	g.riders = 0
	for i := range g.cycles {
		g.cycles[i].alive = false
	}
	for _, p := range ps {
		c := &g.cycles[p.slot]
		if !c.seated {
			t.Fatalf("arrange: slot %d not seated", p.slot)
		}
		c.alive, c.x, c.y, c.heading, c.queue = true, int16(p.x), int16(p.y), p.heading, [QueueLen]int8{}
		g.grid[p.y*g.cfg.Width+p.x] = byte(p.slot + 1)
		g.riders |= 1 << p.slot
	}
	g.boundary() // no rollback reaches back before the arrangement
}

// trail marks cells as slot's trail.
func trail(g *Game, slot int, cells ...[2]int) {
	for _, c := range cells {
		g.grid[c[1]*g.cfg.Width+c[0]] = byte(slot + 1)
	}
	g.dirty = true
}

func snap(g *Game) *Snapshot { return g.Snapshot().(*Snapshot) }

// in is one input for slot.
func in(slot int, action int8) game.Input { return game.Input{Slot: slot, Action: action} }

// stepMoves steps until n moves have happened (or the match is over).
func stepMoves(g *Game, n int, inputs ...game.Input) {
	for range n {
		for !g.over {
			before := g.moveIn
			paused := g.pauseIn > 0 || g.holdIn > 0
			g.Step(inputs)
			inputs = nil
			if !paused && before == 1 {
				break
			}
		}
	}
}

// bot turns each riding cycle at random moments, and away from a cell
// about to crash it most of the time, so rounds last a while and end in
// every way: walls, trails, meetings. Its randomness is its own fixed-seed
// source, so the inputs it produces are part of a script, not of the game.
type bot struct {
	r   *rand.Rand
	seq uint32
	buf []game.Input
}

func newBot(seed uint64) *bot {
	return &bot{r: rand.New(rand.NewPCG(seed, 0x7207)), buf: make([]game.Input, 0, MaxPlayers)}
}

func (b *bot) inputs(g *Game) []game.Input {
	b.buf = b.buf[:0]
	s := snap(g)
	for i := range g.cfg.Players {
		c := &s.Cycles[i]
		if !c.Alive {
			continue
		}
		x, y, _, _ := s.NextHead(i, None)
		var a int8
		switch {
		case !s.Free(x, y) && b.r.IntN(8) != 0:
			// Try the two turns in a random order; keep the first free one.
			turns := [2]int8{Up, Down}
			if c.Heading == Up || c.Heading == Down {
				turns = [2]int8{Left, Right}
			}
			if b.r.IntN(2) == 0 {
				turns[0], turns[1] = turns[1], turns[0]
			}
			a = turns[1]
			if nx, ny, _, _ := s.NextHead(i, turns[0]); s.Free(nx, ny) {
				a = turns[0]
			}
		case b.r.IntN(40) == 0:
			a = int8(1 + b.r.IntN(4))
		}
		if a != None {
			b.seq++
			b.buf = append(b.buf, game.Input{Slot: i, Seq: b.seq, Action: a})
		}
	}
	return b.buf
}
