package pong

import (
	"testing"

	"github.com/termarena/termarena/game"
)

// A tap moves the paddle exactly its ticks and stops by itself, however
// late (or never) anything follows; a held direction or another tap
// replaces it.
func TestTapMovesItsTicksThenStops(t *testing.T) {
	cfg := DefaultConfig(OneVOne)
	g := newGame(t, cfg, Left, Right)
	start(g)
	from := snap(g).Paddles[Left].Pos
	g.Step([]game.Input{{Slot: Left, Action: TapAction(1, 3)}})
	for range 20 {
		g.Step(nil) // nothing stops it but the tap itself
	}
	p := snap(g).Paddles[Left]
	if want := cfg.MovePaddle(from, 1, 3, Left); p.Pos != want || p.Dir != 0 {
		t.Fatalf("after a 3-tick tap down: pos %d dir %d, want %d and stopped", p.Pos, p.Dir, want)
	}
	// The same tap again moves again (it is no repeat of a held key).
	g.Step([]game.Input{{Slot: Left, Action: TapAction(1, 3)}})
	for range 5 {
		g.Step(nil)
	}
	if want := cfg.MovePaddle(from, 1, 6, Left); snap(g).Paddles[Left].Pos != want {
		t.Fatalf("a second tap: pos %d, want %d", snap(g).Paddles[Left].Pos, want)
	}
	// A held key during a tap takes over and holds.
	g.Step([]game.Input{{Slot: Left, Action: TapAction(-1, 2)}})
	g.Step([]game.Input{{Slot: Left, Action: -1}})
	for range 10 {
		g.Step(nil)
	}
	if p := snap(g).Paddles[Left]; p.Dir != -1 {
		t.Fatalf("a held key after a tap: dir %d, want -1 held", p.Dir)
	}
}

func TestTapActionEncoding(t *testing.T) {
	for _, c := range []struct {
		dir   int8
		ticks int32
		want  int32
	}{{1, 1, 1}, {-1, 5, 5}, {1, 63, 63}, {1, 500, 63}, {-1, 0, 1}} {
		a := TapAction(c.dir, c.ticks)
		if got := TapTicks(a); got != c.want || (a > 0) != (c.dir > 0) {
			t.Errorf("TapAction(%d, %d) = %d: %d ticks", c.dir, c.ticks, a, got)
		}
	}
	for _, a := range []int8{-64, -3, -1, 0, 1, 2, 64} {
		if TapTicks(a) != 0 {
			t.Errorf("action %d is a held direction, not a tap", a)
		}
		if g := (*Game)(nil); g.CanonicalAction(a) != int8(sign8(a)) || g.OneShot(a) {
			t.Errorf("held action %d: canonical %d, one-shot %v", a, g.CanonicalAction(a), g.OneShot(a))
		}
	}
	if a := TapAction(1, 4); (*Game)(nil).CanonicalAction(a) != a || !(*Game)(nil).OneShot(a) {
		t.Error("a tap is kept as it is and acts anew")
	}
}

// A state with no tap running hashes as before taps existed, so replays
// recorded then still verify; a running tap is part of the state.
func TestTapInTheHashOnlyWhileItRuns(t *testing.T) {
	g := newGame(t, DefaultConfig(OneVOne), Left, Right)
	start(g)
	h := g.Hash()
	g.seats[Left].tap = 2
	if g.Hash() == h {
		t.Fatal("a running tap does not reach the hash")
	}
	g.seats[Left].tap = 0
	if g.Hash() != h {
		t.Fatal("a state without a tap hashes differently")
	}
}
