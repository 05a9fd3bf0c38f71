package tron

import (
	"time"

	"github.com/termarena/termarena/game"
)

// Rollback, the mechanism behind the rules in the package comment.
//
// A turn with Lag L arriving for tick T+1 is the key its player pressed
// looking at tick T-L, which without lag would have been applied at tick
// T+1-L. Step (place) adds it to that tick's inputs in the history, after
// the inputs applied at it; restores the state from before that tick (the
// history holds the state before every recent tick, and the cells each
// tick's move filled, which are cleared again); re-simulates the ticks in
// between with the inputs the history holds for each, late ones included,
// so a later rollback re-applies them too; and then runs tick T+1. Several
// late turns in one tick cost one rollback, to the earliest of them.
//
// A re-simulation never ends a round: a rollback to tick k is caused by a
// turn whose lag reaches from k to the present, it raises maxLag to at
// least that, and a round decided at or after k then waits at least that
// long. Tests check it (Game.resimEnds).

// rin is an input as the history keeps it: the slot, the turn and the lag
// it was placed with (its Lag, at most the history's length).
type rin struct {
	slot   int8
	action int8
	lag    uint16
}

// entry is one tick of the history: the state before the tick, the cells
// its move filled (a move only fills empty cells, and nothing else writes
// the grid within a round, so clearing them undoes the tick), and the
// inputs that took effect at it.
type entry struct {
	before state
	writes [MaxPlayers]uint16 // cell indices: the arena is under 65536 cells
	nw     uint8
	ins    []rin
}

// historyLen is how many ticks the history holds: the most a room can lag
// a turn, game.MaxLagCompensation (one second) at the config's tick rate,
// bounded by game.MaxTickRate. An entry is about 390 bytes (the state
// without the grid, plus the cells a move fills; the inputs' slices are
// empty or a few bytes), so at the default 60 Hz a match keeps 60 entries,
// about 23 KB beside its 8.6 KB grid (120×72), whatever the room's cap;
// the bound is about 390 KB at 1000 Hz. A room whose tick rate exceeds the
// config's sees its lags cut to the history's length.
func historyLen(cfg Config) int {
	n := int(int64(cfg.TickRate) * int64(game.MaxLagCompensation) / int64(time.Second))
	return min(max(n, 1), game.MaxTickRate)
}

// entry is tick k's slot in the history ring.
func (g *Game) entry(k uint64) *entry { return &g.hist[k%uint64(len(g.hist))] }

// boundary starts the history afresh: no rollback reaches before the next
// tick.
func (g *Game) boundary() { g.from = g.tick + 1 }

// oldest is the first tick a turn arriving for tick now may take effect
// at: the history's start, and no further back than its length.
func (g *Game) oldest(now uint64) uint64 {
	if n := uint64(len(g.hist)); now > n {
		return max(g.from, now-n)
	}
	return g.from
}

// place sorts a tick's inputs: those that take effect at this tick go to
// g.cur; the late ones are added to the tick they take effect at, and the
// game rolls back to the earliest of those and re-simulates up to now.
func (g *Game) place(inputs []game.Input) {
	g.cur = g.cur[:0]
	now := g.tick + 1
	oldest := g.oldest(now)
	n := uint64(len(g.hist))
	var last [MaxPlayers]uint64
	for i := range g.cfg.Players {
		last[i] = g.cycles[i].lastAt
	}
	first := now
	for _, in := range inputs {
		if in.Slot < 0 || in.Slot >= g.cfg.Players || g.riders&(1<<in.Slot) == 0 || !validDir(in.Action) {
			continue
		}
		lag := min(uint64(in.Lag), n)
		at := max(oldest, last[in.Slot])
		if lag < now {
			at = max(at, now-lag)
		}
		at = min(at, now)
		last[in.Slot] = at
		r := rin{slot: int8(in.Slot), action: in.Action, lag: uint16(lag)}
		if at == now {
			g.cur = append(g.cur, r)
			continue
		}
		e := g.entry(at)
		e.ins = append(e.ins, r)
		first = min(first, at)
	}
	if first < now {
		g.rollback(first)
	}
}

// learnLag raises maxLag from the turns of seated players that arrive
// while a round is over: they are ignored, but their lag is the lag the
// next round's decisive crash must wait for. (During a round, turns raise
// it as they take effect, so that it is part of the history.)
func (g *Game) learnLag(inputs []game.Input) {
	n := uint16(min(len(g.hist), 1<<16-1))
	for _, in := range inputs {
		if in.Slot >= 0 && in.Slot < g.cfg.Players && g.cycles[in.Slot].seated && validDir(in.Action) {
			g.maxLag = max(g.maxLag, min(in.Lag, n))
		}
	}
}

// rollback restores the state from before tick first and re-simulates up
// to the present tick with the inputs the history holds for each tick.
func (g *Game) rollback(first uint64) {
	end := g.tick
	for k := end; k >= first; k-- {
		e := g.entry(k)
		for _, c := range e.writes[:e.nw] {
			g.grid[c] = 0
		}
	}
	g.state = g.entry(first).before
	g.dirty = true
	g.resim = true
	for g.tick < end {
		g.advance(g.entry(g.tick + 1).ins)
	}
	g.resim = false
}
