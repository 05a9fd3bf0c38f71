package spectator

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/termarena/termarena/game/pong"
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

// v3-pong-1v1-flat.replay was recorded by a real room (format 3) before
// Pong's rules were versioned (pong.RulesProgress): its config bytes carry
// no rules version, and one of its returns left a paddle dead flat, which
// the current rules no longer allow. It must keep verifying under the
// rules it was played by.
func TestReplayOfTheOriginalPongRulesStillVerifies(t *testing.T) {
	b, err := os.ReadFile("testdata/v3-pong-1v1-flat.replay")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	var c pong.Config
	if err := c.UnmarshalBinary(r.Config); err != nil || c.Rules != pong.RulesOriginal {
		t.Fatalf("fixture config: rules %d, %v; want the original rules", c.Rules, err)
	}
	if p := playAll(t, r, nil); p.Err() != nil {
		t.Fatal(p.Err())
	}
	// The fixture is worth keeping only while it tells the rules apart:
	// played by the current rules it must diverge.
	c.Rules = pong.CurrentRules
	now := *r
	now.Config = pongBytes(c)
	p, err := NewPlayback(&now, testGames)
	if err != nil {
		t.Fatal(err)
	}
	for err == nil && !p.Done() {
		err = p.Step()
	}
	var div *DivergedError
	if !errors.As(err, &div) {
		t.Fatalf("played by the current rules: %v; want it to diverge", err)
	}
}
