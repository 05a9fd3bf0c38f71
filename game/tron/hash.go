package tron

import "github.com/termarena/termarena/game/sim"

// Hash implements game.Game: the config, the RNG, the tick, the round's
// phase, every cycle and every cell; and, once a turn of the match has
// carried a lag, the rollback state (rollback.go): the round-end wait, the
// history's start, each seat's last turn and the inputs of the ticks a
// late turn may still roll back over (they are re-applied then). Until
// then the hash is what it was before rollback existed, so replays
// recorded without lag still verify. Any field added to Game must be
// added here.
func (g *Game) Hash() uint64 {
	f := sim.NewHash()
	c := &g.cfg
	f.U8(uint8(c.Mode))
	for _, v := range c.fields() {
		f.U64(uint64(v))
	}

	f.U64(g.rng.State())
	f.U64(g.tick)
	f.Flag(g.started)
	f.I32(g.round)
	f.U8(g.riders)
	f.I32(g.moveIn)
	f.I32(g.holdIn)
	f.I32(g.pauseIn)
	f.U8(g.roundWinners)

	for i := range g.cfg.Players {
		s := &g.cycles[i]
		f.Flag(s.seated)
		f.Flag(s.pending)
		f.Flag(s.played)
		f.Flag(s.left)
		f.Flag(s.alive)
		f.U32(uint32(uint16(s.x)))
		f.U32(uint32(uint16(s.y)))
		f.I8(s.heading)
		for _, q := range s.queue {
			f.I8(q)
		}
		f.I32(s.wins)
		f.U32(s.survival)
		f.I8(g.places[i])
	}
	f.Words(g.grid)

	f.Flag(g.over)
	f.Flag(g.forfeit)
	f.U8(g.winners)
	if g.maxLag > 0 {
		g.hashRollback(&f)
	}
	return f.Sum()
}

func (g *Game) hashRollback(f *sim.Hash) {
	f.I32(g.endIn)
	f.U8(g.endWinners)
	f.U32(uint32(g.maxLag))
	f.U64(g.from)
	for i := range g.cfg.Players {
		f.U64(g.cycles[i].lastAt)
	}
	if g.pauseIn == 0 && !g.over {
		for k := g.oldest(g.tick + 1); k <= g.tick; k++ {
			e := g.entry(k)
			f.U32(uint32(len(e.ins)))
			for _, in := range e.ins {
				f.U8(uint8(in.slot))
				f.I8(in.action)
				f.U32(uint32(in.lag))
			}
		}
	}
}
