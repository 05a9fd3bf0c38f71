package pong

import "github.com/termarena/termarena/game/sim"

// Hash implements game.Game. It covers the config too, so a replay checked
// against the wrong config fails at the first hash instead of drifting.
// Any field added to Game must be added here.
func (g *Game) Hash() uint64 {
	f := sim.NewHash()
	c := &g.cfg
	f.U8(uint8(c.Mode))
	f.I32(c.Width)
	f.I32(c.Height)
	f.I32(c.PaddleLen)
	f.I32(c.PaddleSpeed)
	f.I32(c.BallSpeed)
	f.I32(c.SpeedUpPerHit)
	f.I32(c.MaxBallSpeed)
	f.U64(uint64(c.PointsToWin))
	f.U64(uint64(c.Lives))
	f.U64(uint64(c.ServeDelayTicks))
	f.U64(uint64(c.TickRate))
	if c.Rules != RulesOriginal {
		// Only for later rules, so a match of the original rules hashes
		// as it always did and its replays verify.
		f.U8(0x5e)
		f.U8(uint8(c.Rules))
		f.I32(g.rallyHits)
		f.Flag(g.contested)
	}

	f.U64(g.rng.State())
	f.U64(g.tick)
	f.Flag(g.started)

	b := &g.ball
	f.I32(b.x)
	f.I32(b.y)
	f.I32(b.vx)
	f.I32(b.vy)
	f.I32(b.speed)
	f.Flag(b.live)
	f.I32(g.serveIn)
	f.I8(g.lastHit)

	f.I8(g.lastPointBy)
	f.I8(g.lastPointAgainst)
	f.U64(g.lastPointTick)

	for i := range g.seats {
		s := &g.seats[i]
		f.Flag(s.player)
		f.Flag(s.pending)
		f.Flag(s.out)
		f.Flag(s.played)
		f.I8(s.dir)
		f.I8(s.outRank)
		f.I32(s.pos)
		f.I32(s.score)
		f.I32(s.lives)
		f.I32(s.hits)
		if s.tap != 0 {
			// Only while a tap runs, so states without one (every state
			// of a replay recorded before taps were the room's to carry
			// out) hash as they always did.
			f.I32(s.tap)
		}
	}
	f.I32(g.team[0])
	f.I32(g.team[1])
	f.I8(g.outCount)

	f.Flag(g.over)
	f.Flag(g.forfeit)
	f.U8(g.winners)
	// Lag compensation state only when there is some, so a match played
	// without it hashes as it did before it existed and older replays
	// still verify.
	if g.held != 0 || g.seats[0].lag|g.seats[1].lag|g.seats[2].lag|g.seats[3].lag != 0 {
		f.U8(0xc1)
		f.I8(g.held)
		f.U64(g.heldAt)
		for i := range g.seats {
			f.U32(uint32(g.seats[i].lag))
		}
	}
	return f.Sum()
}
