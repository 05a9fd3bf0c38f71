package tron

import "encoding/binary"

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

// words folds b into the digest 32 bytes at a time in four independent
// lanes (FNV-1a's step on 64-bit words, with a shift to carry high bits
// down), which are then folded in order, followed by the tail byte by
// byte. The grid is thousands of cells: byte-wise FNV, one multiply chain,
// would make hashing the largest part of a tick that hashes.
func (f *fnv) words(b []byte) {
	var lane [4]uint64
	for i := range lane {
		lane[i] = uint64(*f) + uint64(i)
	}
	for len(b) >= 32 {
		for i := range lane {
			h := (lane[i] ^ binary.LittleEndian.Uint64(b[8*i:])) * fnvPrime
			lane[i] = h ^ h>>32
		}
		b = b[32:]
	}
	for _, h := range lane {
		f.u64(h)
	}
	for _, v := range b {
		f.u8(v)
	}
}

// Hash implements game.Game: the config, the RNG, the tick, the round's
// phase, every cycle and every cell. Any field added to Game must be
// added here.
func (g *Game) Hash() uint64 {
	f := fnv(fnvOffset)
	c := &g.cfg
	f.u8(uint8(c.Mode))
	for _, v := range c.fields() {
		f.u64(uint64(v))
	}

	f.u64(g.rng.s)
	f.u64(g.tick)
	f.flag(g.started)
	f.i32(g.round)
	f.u8(g.riders)
	f.i32(g.moveIn)
	f.i32(g.holdIn)
	f.i32(g.pauseIn)
	f.u8(g.roundWinners)

	for i := range g.cfg.Players {
		s := &g.cycles[i]
		f.flag(s.seated)
		f.flag(s.pending)
		f.flag(s.played)
		f.flag(s.left)
		f.flag(s.alive)
		f.u32(uint32(uint16(s.x)))
		f.u32(uint32(uint16(s.y)))
		f.i8(s.heading)
		for _, q := range s.queue {
			f.i8(q)
		}
		f.i32(s.wins)
		f.u32(s.survival)
		f.i8(g.places[i])
	}
	f.words(g.grid)

	f.flag(g.over)
	f.flag(g.forfeit)
	f.u8(g.winners)
	return uint64(f)
}
