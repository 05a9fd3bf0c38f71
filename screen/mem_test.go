package screen

import (
	"runtime"
	"testing"

	"github.com/charmbracelet/colorprofile"
)

// playAt80x24 is what a session's screen goes through in a Pong match at
// 80×24: a whole board painted after the first size, then frames that
// move a ball and a paddle a few cells at a time.
func playAt80x24(s *Screen) {
	s.Text(1, 0, "alice 3 · bob 2 · r1 · 1v1 · ranked", 3)
	s.Fill(0, 1, 80, 1, '─', 1)
	s.Fill(0, 22, 80, 1, '─', 1)
	s.Fill(39, 2, 1, 20, '┊', 2)
	s.Text(1, 23, "↑↓ move · t chat · q leave", 0)
	s.Render()
	for f := range 300 {
		x, y := 2+f%76, 2+f%20
		s.Set(x-1, y-1, ' ', 0)
		s.Set(x, y, '●', 3)
		s.Fill(1, 2+(f/3)%16, 1, 4, '█', 2)
		s.Render()
	}
}

// TestScreenHoldsLittleAt80x24: a session's 80×24 screen, through its
// first paint and a match's frames, has allocated under 24 KB (its grids
// took 38 KB before, 8 bytes a cell twice and a 4-byte generation a cell,
// and the list of changed cells grew with the first paint).
// Frames stay correct: the screen tests check every byte of them.
func TestScreenHoldsLittleAt80x24(t *testing.T) {
	pal := testPalette(colorprofile.ANSI256)
	playAt80x24(New(80, 24, pal)) // one-time work (width tables) outside the count
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s := New(80, 24, pal)
	playAt80x24(s)
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	if got := after.TotalAlloc - before.TotalAlloc; got > 24<<10 {
		t.Fatalf("an 80×24 screen allocated %d bytes through a match, want ≤24 KB", got)
	}
}

// BenchmarkScreenMatch80x24: bytes an 80×24 screen allocates through
// its first paint and 300 frames of a match (B/op), nearly all of which it
// holds for the session's life.
func BenchmarkScreenMatch80x24(b *testing.B) {
	pal := testPalette(colorprofile.ANSI256)
	b.ReportAllocs()
	for b.Loop() {
		playAt80x24(New(80, 24, pal))
	}
}
