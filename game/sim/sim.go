// Package sim owns the deterministic building blocks every game's rules
// share: a seeded random number generator and a state digest, both defined
// bit for bit by their algorithms rather than by a library version, so a
// match's (config, seed, inputs) reproduces it, and its hashes verify it, on
// any platform and after any upgrade. A replay recorded today is checked
// against these exact functions: changing either output breaks every stored
// replay, so they never change (add a new type instead).
package sim

import (
	"encoding/binary"
	"math/bits"
)

// RNG is SplitMix64: one uint64 of state, so it is trivially part of the
// game state and of the hash.
type RNG struct{ s uint64 }

// NewRNG starts the generator at seed.
func NewRNG(seed uint64) RNG { return RNG{s: seed} }

// State is the generator's whole state, for hashing.
func (r *RNG) State() uint64 { return r.s }

// Next returns the next 64 random bits.
func (r *RNG) Next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Intn returns a value in [0, n) by multiply-high (Lemire) rather than
// modulo; the bias for the small n games use is far below anything a player
// could notice, and it needs no rejection loop.
func (r *RNG) Intn(n uint64) uint64 {
	hi, _ := bits.Mul64(r.Next(), n)
	return hi
}

// Hash is FNV-1a 64 fed field by field in a fixed order with fixed-width
// little-endian encoding, so the digest depends only on the values: no
// reflection, padding, map order or platform word size can leak in, and
// hashing allocates nothing.
type Hash uint64

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// NewHash starts a digest.
func NewHash() Hash { return fnvOffset }

// Sum is the digest so far.
func (f Hash) Sum() uint64 { return uint64(f) }

func (f *Hash) U8(v uint8) { *f = (*f ^ Hash(v)) * fnvPrime }

func (f *Hash) U32(v uint32) {
	for i := range 4 {
		f.U8(uint8(v >> (8 * i)))
	}
}

func (f *Hash) U64(v uint64) {
	for i := range 8 {
		f.U8(uint8(v >> (8 * i)))
	}
}

func (f *Hash) I32(v int32) { f.U32(uint32(v)) }
func (f *Hash) I8(v int8)   { f.U8(uint8(v)) }

func (f *Hash) Flag(v bool) {
	if v {
		f.U8(1)
	} else {
		f.U8(0)
	}
}

// Words folds b into the digest 32 bytes at a time in four independent
// lanes (FNV-1a's step on 64-bit words, with a shift to carry high bits
// down), which are then folded in order, followed by the tail byte by byte.
// A light-cycle arena is thousands of cells: byte-wise FNV, one multiply
// chain, would make hashing the largest part of a tick that hashes.
func (f *Hash) Words(b []byte) {
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
		f.U64(h)
	}
	for _, v := range b {
		f.U8(v)
	}
}
