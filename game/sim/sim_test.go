package sim

import "testing"

// The outputs are pinned to the published algorithms: every stored replay
// is verified against them, so a change here is a broken replay, not a
// refactor.
func TestRNGIsSplitMix64(t *testing.T) {
	r := NewRNG(0)
	for i, want := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f} {
		if got := r.Next(); got != want {
			t.Fatalf("output %d: %#x, want %#x", i, got, want)
		}
	}
	gamma := uint64(0x9e3779b97f4a7c15)
	if r.State() != 3*gamma { // wraps, as the state does
		t.Fatalf("state %#x", r.State())
	}
	for range 1000 {
		if v := r.Intn(7); v >= 7 {
			t.Fatalf("Intn(7) = %d", v)
		}
	}
}

func TestHashIsFNV1a(t *testing.T) {
	f := NewHash()
	f.U8('a')
	if f.Sum() != 0xaf63dc4c8601ec8c {
		t.Fatalf("FNV-1a(\"a\") = %#x", f.Sum())
	}
	// Fields are little-endian and fixed width: U32(v) is its four bytes.
	a, b := NewHash(), NewHash()
	a.U32(0x04030201)
	for _, v := range []uint8{1, 2, 3, 4} {
		b.U8(v)
	}
	if a != b {
		t.Fatal("U32 is not its four little-endian bytes")
	}
}

func TestWordsSeesEveryByte(t *testing.T) {
	buf := make([]byte, 77) // two full 32-byte blocks and a tail
	base := NewHash()
	base.Words(buf)
	seen := map[Hash]bool{base: true}
	for i := range buf {
		buf[i] = 1
		f := NewHash()
		f.Words(buf)
		if seen[f] {
			t.Fatalf("changing byte %d gave a digest already seen", i)
		}
		seen[f] = true
		buf[i] = 0
	}
}
