package tron

import "github.com/termarena/termarena/game/sim"

// Hash implements game.Game: the config, the RNG, the tick, the round's
// phase, every cycle and every cell. Any field added to Game must be
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
	return f.Sum()
}
