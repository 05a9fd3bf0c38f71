package tron

import "math/bits"

// rng is SplitMix64: one uint64 of state, so it is trivially part of the
// game state and the hash, and its output is defined bit-for-bit by the
// algorithm rather than by a library version.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a value in [0, n) by multiply-high (Lemire) rather than
// modulo; the bias for the tiny n used here is far below anything a player
// could notice, and it needs no rejection loop.
func (r *rng) intn(n uint64) uint64 {
	hi, _ := bits.Mul64(r.next(), n)
	return hi
}
