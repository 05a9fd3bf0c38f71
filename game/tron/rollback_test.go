package tron

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/termarena/termarena/game"
)

// lagged is a turn for slot whose player's view was lag ticks old.
func lagged(slot int, action int8, lag uint16) game.Input {
	return game.Input{Slot: slot, Action: action, Lag: lag}
}

// wallRun arranges slot 0 two cells short of the right wall, heading at
// it, so its third move crashes, and two more riders far from anything, so
// the crash does not decide the round.
func wallRun(t *testing.T) *Game {
	t.Helper()
	g := newGame(t, testConfig(3), 0, 1, 2)
	arrange(t, g, pos{0, 17, 8, Right}, pos{1, 2, 2, Down}, pos{2, 5, 2, Down})
	return g
}

// TestLateTurnUndoesCrash: the player of slot 0 sees tick 2 (one move from
// the wall) and turns. On time that turn is applied at tick 3 and saves the
// cycle; arriving a tick late with Lag 1 it is applied at tick 3 too, by a
// rollback, and the arena ends up as if it had been on time. With Lag 0 the
// crash stands.
func TestLateTurnUndoesCrash(t *testing.T) {
	onTime := wallRun(t)
	onTime.Step(nil)
	onTime.Step(nil)
	onTime.Step([]game.Input{in(0, Up)})
	onTime.Step(nil)

	late := wallRun(t)
	for range 3 {
		late.Step(nil)
	}
	if late.cycles[0].alive {
		t.Fatal("slot 0 should have crashed into the wall at tick 3")
	}
	late.Step([]game.Input{lagged(0, Up, 1)})
	c := late.cycles[0]
	if !c.alive || c.x != 19 || c.y != 6 || c.heading != Up {
		t.Fatalf("after the late turn slot 0 is %+v, want riding at (19,6) heading up", c)
	}
	if !bytes.Equal(late.grid, onTime.grid) || late.cycles[0] != withLastAt(onTime.cycles[0], 3) {
		t.Errorf("the rollback's arena differs from the on-time turn's")
	}
	if late.resimEnds != 0 {
		t.Errorf("re-simulation met %d round ends", late.resimEnds)
	}

	noComp := wallRun(t)
	for range 3 {
		noComp.Step(nil)
	}
	noComp.Step([]game.Input{lagged(0, Up, 0)})
	if noComp.cycles[0].alive {
		t.Error("without compensation a turn after the crash should not save the cycle")
	}
}

func withLastAt(c cycle, at uint64) cycle { c.lastAt = at; return c }

// TestLateTurnOutsideWindow: the turn's lag reaches back only to ticks
// after the crash, so the rider stays crashed; and a rider crashed before
// the history's reach stays crashed whatever the lag.
func TestLateTurnOutsideWindow(t *testing.T) {
	g := wallRun(t)
	for range 5 {
		g.Step(nil)
	}
	// Crashed at tick 3; now is tick 6: a lag of 2 reaches tick 4.
	g.Step([]game.Input{lagged(0, Up, 2)})
	if g.cycles[0].alive {
		t.Fatal("a turn placed after the crash revived the rider")
	}
	// A lag larger than the history is cut to it: with a move every 10
	// ticks slot 0 crashes at tick 30, and 70 ticks later the history of
	// 60 ticks no longer reaches it.
	cfg := testConfig(3)
	cfg.MoveEvery = 10
	g = newGame(t, cfg, 0, 1, 2)
	arrange(t, g, pos{0, 17, 8, Right}, pos{1, 2, 2, Down}, pos{2, 5, 2, Down})
	for range 100 {
		g.Step(nil)
	}
	if g.round != 1 || g.cycles[0].alive {
		t.Fatalf("round %d, slot 0 alive %v: want slot 0 crashed in round 1", g.round, g.cycles[0].alive)
	}
	g.Step([]game.Input{lagged(0, Up, 65535)})
	if g.cycles[0].alive {
		t.Fatal("a turn older than the history revived the rider")
	}
}

// TestLateTurnCrossesPath: slot 0's late turn takes it down column 5,
// across the row slot 1 rides along. Slot 1 had ridden through that cell
// before the turn arrived; the re-simulation crashes it there, at a tick
// within the window, exactly as if the turn had been on time.
func TestLateTurnCrossesPath(t *testing.T) {
	mk := func() *Game {
		g := newGame(t, testConfig(3), 0, 1, 2)
		arrange(t, g, pos{0, 5, 4, Right}, pos{1, 10, 6, Left}, pos{2, 2, 15, Up})
		return g
	}
	onTime := mk()
	onTime.Step([]game.Input{in(0, Down)})
	for range 7 {
		onTime.Step(nil)
	}
	if onTime.cycles[1].alive {
		t.Fatal("on time, slot 1 should crash into slot 0's trail at tick 5")
	}
	late := mk()
	for range 5 {
		late.Step(nil)
	}
	if !late.cycles[1].alive || late.grid[6*20+5] != 2 {
		t.Fatal("before the late turn slot 1 should have ridden through (5,6)")
	}
	late.Step([]game.Input{lagged(0, Down, 5)}) // seen tick 0 at tick 6: applied at tick 1
	for range 2 {
		late.Step(nil)
	}
	if late.cycles[1].alive {
		t.Fatal("the late turn should have crashed slot 1 within the window")
	}
	if !bytes.Equal(late.grid, onTime.grid) {
		t.Fatalf("arena after the late turn differs from the on-time one")
	}
	for i := range 3 {
		if a, b := late.cycles[i], onTime.cycles[i]; a != b {
			t.Errorf("slot %d: late %+v, on time %+v", i, a, b)
		}
	}
}

// TestDecidedRoundWaitsForLateTurn: in a duel the crash decides the round.
// Once the match has seen a lag, the round waits that long before ending,
// everything holding still, and a late turn arriving then undoes the crash
// and play goes on; with no lag seen the round ends at once (the known
// limit the package comment states).
func TestDecidedRoundWaitsForLateTurn(t *testing.T) {
	mk := func() *Game {
		g := newGame(t, testConfig(2), 0, 1)
		arrange(t, g, pos{0, 17, 8, Right}, pos{1, 2, 2, Down})
		return g
	}
	g := mk()
	g.Step([]game.Input{lagged(1, Right, 2)}) // an earlier turn showed 2 ticks of lag
	g.Step(nil)
	g.Step(nil) // slot 0 crashes at tick 3: decided, waits 2 ticks
	if g.cycles[0].alive || g.endIn != 2 || g.pauseIn != 0 || g.cycles[1].wins != 0 {
		t.Fatalf("after the deciding crash: alive %v endIn %d pauseIn %d wins %d", g.cycles[0].alive, g.endIn, g.pauseIn, g.cycles[1].wins)
	}
	x1 := g.cycles[1].x
	g.Step([]game.Input{lagged(0, Up, 2)}) // seen tick 1 at tick 4: applied at tick 2
	if !g.cycles[0].alive || g.endIn != 0 || g.round != 1 {
		t.Fatalf("the late turn should have undone the crash: %+v endIn %d round %d", g.cycles[0], g.endIn, g.round)
	}
	if g.cycles[1].x == x1 {
		t.Error("slot 1 should have moved on in the re-simulated ticks")
	}

	// The wait runs out: the round ends with the survivor winning.
	g = mk()
	g.Step([]game.Input{lagged(1, Right, 2)})
	for range 5 {
		g.Step(nil)
	}
	if g.cycles[1].wins != 1 || g.round != 2 {
		t.Fatalf("after the wait: wins %d round %d, want slot 1 to have won round 1", g.cycles[1].wins, g.round)
	}
	g.Step([]game.Input{lagged(0, Up, 2)})
	if g.round != 2 || g.cycles[1].wins != 1 {
		t.Fatal("a late turn reached into a round that had ended")
	}

	// No lag seen yet: no wait. The late turn arrives while the round is
	// over, is ignored, and teaches the match its lag for the next round.
	cfg := testConfig(2)
	cfg.PauseTicks = 5
	g = newGame(t, cfg, 0, 1)
	arrange(t, g, pos{0, 17, 8, Right}, pos{1, 2, 2, Down})
	for range 3 {
		g.Step(nil)
	}
	if g.cycles[1].wins != 1 || g.pauseIn == 0 {
		t.Fatalf("with no lag in the match the round should end at the crash: wins %d endIn %d", g.cycles[1].wins, g.endIn)
	}
	g.Step([]game.Input{lagged(0, Up, 2)})
	if g.cycles[0].alive || g.maxLag != 2 {
		t.Fatalf("turn in the pause: alive %v, maxLag %d; want ignored, and the lag learnt", g.cycles[0].alive, g.maxLag)
	}
}

// TestRollbackStopsAtBoundaries: a late turn never takes effect before the
// round's first tick, nor before a join or a leave.
func TestRollbackStopsAtBoundaries(t *testing.T) {
	cfg := testConfig(4)
	cfg.PauseTicks = 3
	g := newGame(t, cfg, 0, 1, 2)
	arrange(t, g, pos{0, 17, 8, Right}, pos{1, 2, 2, Down}, pos{2, 5, 2, Down})
	g.Step(nil)
	if err := g.Join(3); err != nil { // a join at tick 1
		t.Fatal(err)
	}
	g.Step(nil)
	g.Step(nil) // slot 0 crashes at tick 3
	g.Step([]game.Input{lagged(0, Up, 3)})
	// Seen tick 0, but the join at tick 1 is a boundary: it takes effect at
	// tick 2, which still saves the cycle (its last move before the wall).
	if !g.cycles[0].alive || g.cycles[0].lastAt != 2 {
		t.Fatalf("turn clamped to the join should save slot 0: %+v", g.cycles[0])
	}
	g.Leave(3) // a pending seat leaves: another boundary, at tick 5
	g.Step(nil)
	g.Step([]game.Input{lagged(0, Left, 5)})
	if g.cycles[0].lastAt != 5 {
		t.Errorf("turn after a leave took effect at %d, want 5", g.cycles[0].lastAt)
	}
	if g.resimEnds != 0 {
		t.Errorf("re-simulation met %d round ends", g.resimEnds)
	}

	// Round start: crash everyone but one, let the pause pass, and send a
	// turn whose lag reaches into the last round.
	g = newGame(t, cfg, 0, 1)
	arrange(t, g, pos{0, 18, 8, Right}, pos{1, 2, 2, Down})
	for g.round == 1 {
		g.Step(nil)
	}
	start := g.tick + 1 // first tick of round 2
	g.Step(nil)
	g.Step([]game.Input{lagged(0, Up, 30)})
	if g.cycles[0].lastAt != start {
		t.Errorf("turn reaching into round 1 took effect at %d, want round 2's first tick %d", g.cycles[0].lastAt, start)
	}
}

// TestSeatTurnsKeepOrder: a turn claiming an older view than the seat's
// previous turn takes effect no earlier than that one.
func TestSeatTurnsKeepOrder(t *testing.T) {
	g := wallRun(t)
	g.Step(nil)
	g.Step(nil)
	g.Step([]game.Input{in(0, Up)}) // tick 3
	g.Step([]game.Input{lagged(0, Left, 3)})
	if g.cycles[0].lastAt != 3 {
		t.Fatalf("second turn took effect at %d, want 3 (not before the first)", g.cycles[0].lastAt)
	}
	if q := g.cycles[0]; q.heading != Left && q.queue[0] != Left {
		t.Errorf("second turn lost: %+v", q)
	}
}

// TestRollbackMatchesOnTime: a bot plays a match; one game gets every
// input on time, another gets the same inputs d ticks late with Lag d.
// Once the late game has caught up on the last inputs, the two are the
// same match: every snapshot field and every cell, across crashes, round
// ends and resets. (Turns pressed while a round is over are left out: on
// time they are ignored, d ticks late they may land in the next round.)
func TestRollbackMatchesOnTime(t *testing.T) {
	for _, d := range []uint16{1, 3, 9, 60} {
		cfg := DefaultConfig(Casual)
		cfg.Players = 4
		cfg.RoundsToWin = 1 << 20
		onTime, late := newGame(t, cfg, 0, 1, 2, 3), newGame(t, cfg, 0, 1, 2, 3)
		// Both wait d at a decided round, as if a lagged turn had come first.
		onTime.maxLag, late.maxLag = d, d
		b := newBot(uint64(d))
		const ticks = 4000
		script := make([][]game.Input, ticks+int(d))
		rounds := 0
		for k := range ticks {
			var ins []game.Input
			if onTime.pauseIn == 0 && onTime.endIn == 0 {
				ins = append(ins, b.inputs(onTime)...)
			}
			onTime.Step(ins)
			for i := range ins {
				ins[i].Lag = d
			}
			script[k+int(d)] = ins
			late.Step(script[k])
			if onTime.pauseIn == 1 {
				rounds++
			}
		}
		for k := ticks; k < ticks+int(d); k++ {
			onTime.Step(nil)
			late.Step(script[k])
		}
		a, _ := snap(onTime).MarshalBinary()
		c, _ := snap(late).MarshalBinary()
		if !bytes.Equal(a, c) {
			t.Errorf("d=%d: the late game's snapshot differs from the on-time game's", d)
		}
		if late.resimEnds != 0 {
			t.Errorf("d=%d: re-simulation met %d round ends", d, late.resimEnds)
		}
		if rounds < 5 {
			t.Errorf("d=%d: only %d rounds played", d, rounds)
		}
		t.Logf("d=%d: %d ticks, %d rounds, equal", d, ticks+int(d), rounds)
	}
}

// TestHistoryMemory logs what the history costs per match (the figure
// historyLen's comment gives).
func TestHistoryMemory(t *testing.T) {
	cfg := DefaultConfig(Casual)
	n := historyLen(cfg)
	sz := int(unsafe.Sizeof(entry{}))
	t.Logf("entry %d B, state %d B, %d entries: %d B; grid %d B", sz, unsafe.Sizeof(state{}), n, n*sz, cfg.Width*cfg.Height)
	if n != cfg.TickRate || n*sz > 32<<10 {
		t.Errorf("history of %d entries of %d B", n, sz)
	}
	if c := (Config{TickRate: 5000}); historyLen(c) != game.MaxTickRate {
		t.Errorf("history for 5000 Hz: %d, want the %d bound", historyLen(c), game.MaxTickRate)
	}
}
