package pong

// fnv is FNV-1a 64 fed field by field in a fixed order with fixed-width
// little-endian encoding, so the digest depends only on the values: no
// reflection, padding, map order or platform word size can leak in, and
// hashing allocates nothing.
type fnv uint64

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func (f *fnv) u8(v uint8) { *f = (*f ^ fnv(v)) * fnvPrime }

func (f *fnv) u32(v uint32) {
	for i := range 4 {
		f.u8(uint8(v >> (8 * i)))
	}
}

func (f *fnv) u64(v uint64) {
	for i := range 8 {
		f.u8(uint8(v >> (8 * i)))
	}
}

func (f *fnv) i32(v int32) { f.u32(uint32(v)) }
func (f *fnv) i8(v int8)   { f.u8(uint8(v)) }

func (f *fnv) flag(v bool) {
	if v {
		f.u8(1)
	} else {
		f.u8(0)
	}
}

// Hash implements game.Game. It covers the config too, so a replay checked
// against the wrong config fails at the first hash instead of drifting.
// Any field added to Game must be added here.
func (g *Game) Hash() uint64 {
	f := fnv(fnvOffset)
	c := &g.cfg
	f.u8(uint8(c.Mode))
	f.i32(c.Width)
	f.i32(c.Height)
	f.i32(c.PaddleLen)
	f.i32(c.PaddleSpeed)
	f.i32(c.BallSpeed)
	f.i32(c.SpeedUpPerHit)
	f.i32(c.MaxBallSpeed)
	f.u64(uint64(c.PointsToWin))
	f.u64(uint64(c.Lives))
	f.u64(uint64(c.ServeDelayTicks))
	f.u64(uint64(c.TickRate))

	f.u64(g.rng.s)
	f.u64(g.tick)
	f.flag(g.started)

	b := &g.ball
	f.i32(b.x)
	f.i32(b.y)
	f.i32(b.vx)
	f.i32(b.vy)
	f.i32(b.speed)
	f.flag(b.live)
	f.i32(g.serveIn)
	f.i8(g.lastHit)

	f.i8(g.lastPointBy)
	f.i8(g.lastPointAgainst)
	f.u64(g.lastPointTick)

	for i := range g.seats {
		s := &g.seats[i]
		f.flag(s.player)
		f.flag(s.pending)
		f.flag(s.out)
		f.flag(s.played)
		f.i8(s.dir)
		f.i8(s.outRank)
		f.i32(s.pos)
		f.i32(s.score)
		f.i32(s.lives)
		f.i32(s.hits)
	}
	f.i32(g.team[0])
	f.i32(g.team[1])
	f.i8(g.outCount)

	f.flag(g.over)
	f.flag(g.forfeit)
	f.u8(g.winners)
	// Lag compensation state only when there is some, so a match played
	// without it hashes as it did before it existed and older replays
	// still verify.
	if g.held != 0 || g.seats[0].lag|g.seats[1].lag|g.seats[2].lag|g.seats[3].lag != 0 {
		f.u8(0xc1)
		f.i8(g.held)
		f.u64(g.heldAt)
		for i := range g.seats {
			f.u32(uint32(g.seats[i].lag))
		}
	}
	return uint64(f)
}
