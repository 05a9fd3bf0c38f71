package view

import (
	"testing"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/screen"
)

// 0 (the overview) ends a watcher's free camera: after panning with f and
// the arrows, the watcher sees what a watcher who never touched the
// camera sees.
func TestOverviewKeyEndsTheFreeCamera(t *testing.T) {
	m := newMatch(t, 3)
	for range 40 {
		m.step()
	}
	snap := m.snap()
	paint := func(keys ...string) *screen.Screen {
		s := NewScreen(base, colorprofile.ANSI256)
		for _, k := range keys {
			s.Look(k)
		}
		s.Follow(-1)
		scr := screen.New(80, 24, palette(colorprofile.ANSI256))
		s.Paint(scr, 0, 1, 80, 22, snap, gameview.Viewer{Seat: -1})
		return scr
	}
	same := func(a, b *screen.Screen) bool {
		for y := range 24 {
			for x := range 80 {
				if a.Get(x, y) != b.Get(x, y) {
					return false
				}
			}
		}
		return true
	}
	overview := paint()
	if same(overview, paint("f", "right", "right", "down")) {
		t.Fatal("the free camera shows the overview: the test cannot tell them apart")
	}
	if !same(overview, paint("f", "right", "right", "down", "0")) {
		t.Fatal("0 after the free camera does not show the overview")
	}
}
