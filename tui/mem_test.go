package tui

import (
	"runtime"
	"testing"

	"github.com/charmbracelet/colorprofile"

	pongview "github.com/termarena/termarena/game/pong/view"
)

// roomViewBytes is what making one more Pong room screen at 80×24 for
// profile p allocates, its game view made beforehand (each session's own).
func roomViewBytes(ps *Palettes, p colorprofile.Profile) uint64 {
	gv := pongview.NewScreen(viewBase, p)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	v := NewRoomView(RoomViewConfig{Room: newFakeRoom(nil), Slot: 0, Width: 80, Height: 24, Profile: p, Game: gv, Palettes: ps})
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	return after.TotalAlloc - before.TotalAlloc
}

// TestRoomScreensShareTheirPalette: the second player of a game and
// colour profile gets a room screen without a palette of its own (each
// built one, ≈5.6 KB of a playing session's heap); another profile gets
// its own palette, once.
func TestRoomScreensShareTheirPalette(t *testing.T) {
	ps := &Palettes{}
	first := roomViewBytes(ps, colorprofile.ANSI256)
	second := roomViewBytes(ps, colorprofile.ANSI256)
	own := roomViewBytes(nil, colorprofile.ANSI256)
	if pal := own - second; pal < 2<<10 {
		t.Fatalf("a second room screen of the server allocated %d bytes, one with palettes of its own %d (%d less): it built a palette again",
			second, own, pal)
	}
	if first < own {
		t.Fatalf("the first room screen allocated %d bytes, less than one building its own palette (%d)", first, own)
	}
	if second > 28<<10 {
		t.Fatalf("a second 80×24 Pong room screen allocated %d bytes, want ≤28 KB (its palette is the server's)", second)
	}
	// A player with another terminal gets that profile's palette, and the
	// next such player shares it.
	if colour, again := roomViewBytes(ps, colorprofile.TrueColor), roomViewBytes(ps, colorprofile.TrueColor); colour < again+2<<10 {
		t.Fatalf("first truecolor room screen %d bytes, second %d: want the first to build the profile's palette and the second to share it", colour, again)
	}
}
