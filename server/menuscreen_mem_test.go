package server

import (
	"io"
	"runtime"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/hinshun/vt10x"
)

// heapAfterGC is the live heap once collected.
func heapAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestMenusHoldNoCellsDuringAGame: while the game screen has the terminal
// the menus hold no cells for it (ultraviolet's two grids of 112-byte cells
// were ≈240 KB a playing session at 80×24, held through every match), and
// afterwards they draw their view again.
func TestMenusHoldNoCellsDuringAGame(t *testing.T) {
	menusLetGo(t, "lent to a game", (*menuScreen).lent)
}

// TestIdleMenusHoldNoCells: a lobby whose view has stood still lets its
// cells go (≈430 KB an idle lobby session at 80×24, most of its memory),
// and its next draw repaints the view whole.
func TestIdleMenusHoldNoCells(t *testing.T) {
	menusLetGo(t, "resting", (*menuScreen).rest)
}

// menusLetGo draws a full 80×24 view on menu screens, lets them go, and
// checks what each holds then and that the next draw shows the view.
func menusLetGo(t *testing.T, how string, letGo func(*menuScreen)) {
	t.Helper()
	var b strings.Builder
	for y := range 24 {
		b.WriteString(lipgloss.NewStyle().Foreground(lipgloss.Color("#ff8800")).Render(strings.Repeat("─", 10)))
		b.WriteString(strings.Repeat("x", 60) + " row " + string(rune('a'+y)))
		if y < 23 {
			b.WriteByte('\n')
		}
	}
	v := tea.NewView(b.String())
	v.AltScreen = true
	const n = 40
	screens := make([]*menuScreen, n)
	before := heapAfterGC()
	for i := range screens {
		s := newMenuScreen(io.Discard, nil, colorprofile.TrueColor, 80, 24)
		if err := s.draw(v); err != nil {
			t.Fatal(err)
		}
		screens[i] = s
	}
	drawn := heapAfterGC()
	for _, s := range screens {
		letGo(s)
	}
	after := heapAfterGC()
	perDrawn, perAfter := int64(drawn-before)/n, int64(after)-int64(before)
	perAfter /= n
	t.Logf("a menu screen holds %d bytes drawn, %d %s", perDrawn, perAfter, how)
	if perAfter > 16<<10 {
		t.Fatalf("a menu screen %s holds %d bytes (%d drawn), want ≤16 KB", how, perAfter, perDrawn)
	}
	vt := vt10x.New(vt10x.WithSize(80, 24))
	_, _ = vt.Write([]byte("\x1b[H\x1b[2Jsomeone else drew here"))
	s := screens[0]
	s.w = emulated{vt}
	if err := s.draw(v); err != nil || !strings.Contains(vt.String(), "row a") || !strings.Contains(vt.String(), "row x") ||
		strings.Contains(vt.String(), "someone") {
		t.Fatalf("%s, the menus drew (%v)\n%s\nwant the whole view again", how, err, vt.String())
	}
	runtime.KeepAlive(screens)
}
