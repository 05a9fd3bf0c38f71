package spectator

import (
	"os"
	"slices"
	"testing"
)

// v1-1v1.replay was written by the format-1 encoder (before inputs carried
// lag compensation): a 1v1 to 3 recorded from a real room. Stored replays
// of that format must keep decoding and verifying.
func TestDecodesAndVerifiesFormat1Replay(t *testing.T) {
	b, err := os.ReadFile("testdata/v1-1v1.replay")
	if err != nil {
		t.Fatal(err)
	}
	if b[len(magic)] != 1 {
		t.Fatalf("fixture is format %d, want 1", b[len(magic)])
	}
	r, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if r.Version != 1 || r.Ticks != 546 || len(r.Inputs) != 58 || r.FinalHash != 0x83dd51c03ed6a719 ||
		!slices.Equal(r.Result.Scores, []int{3, 2}) {
		t.Fatalf("decoded version %d, %d ticks, %d inputs, final %016x, scores %v; want 1, 546, 58, 83dd51c03ed6a719, [3 2]",
			r.Version, r.Ticks, len(r.Inputs), r.FinalHash, r.Result.Scores)
	}
	for i, in := range r.Inputs {
		if in.Lag != 0 {
			t.Fatalf("input %d of a format-1 replay has lag %d", i, in.Lag)
		}
	}
	// Every recorded hash and the final state and result are checked.
	p := playAll(t, r, nil)
	if p.Err() != nil {
		t.Fatal(p.Err())
	}
}
