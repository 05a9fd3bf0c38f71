package view

import (
	"testing"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game/tron"
	"github.com/termarena/termarena/screen"
)

// recorded is a scripted 8-rider match as a session sees it: one snapshot
// every second tick (30 frames a second at the default 60 ticks), with
// moves, crashes and round resets.
func recorded(t testing.TB, frames int) []*tron.Snapshot {
	t.Helper()
	m := newMatch(t, 11)
	out := make([]*tron.Snapshot, frames)
	for i := range out {
		out[i] = m.steps(2)
	}
	return out
}

var benchCases = []struct {
	name string
	w, h int
	cam  Camera
	prof colorprofile.Profile
}{
	{"follow_80x24", 80, 24, Follow(0), colorprofile.ANSI256},
	{"follow_80x24_truecolor", 80, 24, Follow(0), colorprofile.TrueColor},
	{"follow_80x24_16colours", 80, 24, Follow(0), colorprofile.ANSI},
	{"follow_80x24_no_colour", 80, 24, Follow(0), colorprofile.ASCII},
	{"whole_200x50", 200, 50, Whole(), colorprofile.ANSI256},
	{"whole_200x50_truecolor", 200, 50, Whole(), colorprofile.TrueColor},
	{"whole_scaled_80x24", 80, 24, Whole(), colorprofile.ANSI256},
}

// BenchmarkFrame is one frame of a moving 8-rider match: Paint and the
// screen's Render, with the bytes it writes per frame. The first, full
// paint is outside the timing.
func BenchmarkFrame(b *testing.B) {
	frames := recorded(b, 3000)
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			scr := screen.New(c.w, c.h, palette(c.prof))
			v := New(base, c.prof)
			v.SetCamera(c.cam)
			r := Rect{0, 0, c.w, c.h}
			me := Viewer{Slot: 0}
			v.Paint(scr, r, frames[0], me)
			scr.Render()
			var bytes int
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				v.Paint(scr, r, frames[1+i%(len(frames)-1)], me)
				bytes += len(scr.Render())
			}
			b.ReportMetric(float64(bytes)/float64(b.N), "B/frame")
		})
	}
}
