package screen

import (
	"bytes"
	"fmt"
	"image/color"
	"math/rand/v2"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/hinshun/vt10x"
)

func testPalette(p colorprofile.Profile) *Palette {
	return NewPalette(p, []Spec{
		{},
		{FG: lipgloss.Color("#FF0000")},
		{FG: lipgloss.Color("#00FF00"), BG: lipgloss.Color("#0000FF")},
		{FG: lipgloss.Color("#FFFFFF"), Bold: true},
	})
}

// emulate feeds frames to a terminal emulator, like the player's terminal.
func emulate(w, h int) vt10x.Terminal { return vt10x.New(vt10x.WithSize(w, h)) }

func screenText(s *Screen) string {
	var b strings.Builder
	for y := 0; y < s.h; y++ {
		for x := 0; x < s.w; x++ {
			b.WriteRune(s.Get(x, y).R)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func vtText(vt vt10x.Terminal) string {
	w, h := vt.Size()
	var b strings.Builder
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r := vt.Cell(x, y).Char
			if r == 0 {
				r = ' '
			}
			b.WriteRune(r)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestRenderedBytesReproduceTheGrid(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}, {7, 3}} {
		w, h := size[0], size[1]
		s := New(w, h, testPalette(colorprofile.ANSI256))
		vt := emulate(w, h)
		rng := rand.New(rand.NewPCG(1, uint64(w)))
		glyphs := []rune("▀▄█ ab│─●")
		for frame := range 300 {
			for range rng.IntN(40) {
				s.Set(rng.IntN(w), rng.IntN(h), glyphs[rng.IntN(len(glyphs))], Style(rng.IntN(4)))
			}
			if frame%97 == 0 {
				s.Invalidate()
			}
			if out := s.Render(); out != nil {
				vt.Write(out)
			}
			if got, want := vtText(vt), screenText(s); got != want {
				t.Fatalf("%dx%d frame %d: terminal shows\n%s\nwant\n%s", w, h, frame, got, want)
			}
		}
		// Colour check on a known cell.
		s.Set(1, 1, 'X', 1)
		vt.Write(s.Render())
		if fg := vt.Cell(1, 1).FG; fg != 196 {
			t.Fatalf("red in 256 colours should be index 196, got %d", fg)
		}
	}
}

func TestNothingChangedWritesNothing(t *testing.T) {
	s := New(80, 24, testPalette(colorprofile.TrueColor))
	s.Text(0, 0, "hello", 1)
	if out := s.Render(); len(out) == 0 {
		t.Fatal("first frame empty")
	}
	if out := s.Render(); out != nil {
		t.Fatalf("unchanged frame wrote %q", out)
	}
	s.Set(0, 0, 'h', 1) // same as before
	if out := s.Render(); out != nil {
		t.Fatalf("re-setting an identical cell wrote %q", out)
	}
	s.Set(0, 0, 'j', 1)
	s.Set(0, 0, 'h', 1) // changed and changed back within one frame
	if out := s.Render(); out != nil {
		t.Fatalf("a cell restored within the frame wrote %q", out)
	}
}

func TestSmallChangeIsSmall(t *testing.T) {
	s := New(80, 24, testPalette(colorprofile.ANSI256))
	s.Render()
	s.Set(40, 12, '●', 3)
	out := s.Render()
	// save + CUP + SGR + glyph + restore.
	if len(out) > 30 {
		t.Fatalf("one cell cost %d bytes: %q", len(out), out)
	}
	if !bytes.HasPrefix(out, []byte("\x1b7")) || !bytes.HasSuffix(out, []byte("\x1b8")) {
		t.Fatalf("frame not wrapped in save/restore cursor: %q", out)
	}
}

func TestProfilesDownsample(t *testing.T) {
	for _, tc := range []struct {
		p    colorprofile.Profile
		want string
	}{
		{colorprofile.TrueColor, "\x1b[0;38;2;255;0;0m"},
		{colorprofile.ANSI256, "\x1b[0;38;5;196m"},
		{colorprofile.ANSI, "\x1b[0;91m"},
		{colorprofile.ASCII, "\x1b[0m"},
	} {
		pal := testPalette(tc.p)
		if pal.sgr[1] != tc.want {
			t.Errorf("profile %v: red = %q, want %q", tc.p, pal.sgr[1], tc.want)
		}
	}
	// Under NO_COLOR every style collapses to one: switching style between
	// cells costs nothing.
	pal := testPalette(colorprofile.ASCII)
	if pal.canon[1] != pal.canon[2] {
		t.Error("ASCII styles should share one canonical SGR")
	}
}

func TestHostileRunesNeverReachTheTerminal(t *testing.T) {
	s := New(10, 1, testPalette(colorprofile.ANSI256))
	s.Text(0, 0, "a\x1b[2J\x07\u009b\u0301", 0)
	out := string(s.Render())
	inner := strings.TrimSuffix(strings.TrimPrefix(out, "\x1b7\x1b[0m\x1b[H\x1b[2J"), "\x1b8")
	if strings.Contains(inner, "\x1b[2J") || strings.ContainsAny(inner, "\x07\u009b\u0301") {
		t.Fatalf("control or combining rune passed through: %q", out)
	}
}

func TestResizeRepaints(t *testing.T) {
	s := New(10, 5, testPalette(colorprofile.ANSI256))
	s.Text(0, 0, "abc", 0)
	s.Render()
	s.Resize(20, 6)
	s.Text(0, 0, "xyz", 0)
	out := string(s.Render())
	if !strings.Contains(out, "\x1b[2J") || !strings.Contains(out, "xyz") || strings.Contains(out, "abc") {
		t.Fatalf("resize frame %q", out)
	}
	s.Resize(0, 0) // must not panic
	s.Set(0, 0, 'x', 0)
	_ = s.Render()
}

// TestStyleSwitchesLeaveExactlyTheRightPen: switching between styles with
// only the parameters that differ (bold off, a default colour back, one
// colour changed) must leave every cell exactly as a full SGR would.
func TestStyleSwitchesLeaveExactlyTheRightPen(t *testing.T) {
	specs := []Spec{
		{}, // 0 default
		{FG: color.RGBA{255, 0, 0, 255}, Bold: true}, // 1 bold red
		{FG: color.RGBA{0, 0, 255, 255}, BG: color.RGBA{0, 128, 0, 255}},
		{BG: color.RGBA{0, 128, 0, 255}},             // 3 default fg on green
		{FG: color.RGBA{0, 0, 255, 255}, Bold: true}, // 4 bold blue
	}
	for _, prof := range []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256, colorprofile.ANSI} {
		full := NewPalette(prof, specs)
		// Every ordered pair of styles, side by side, in one row each.
		w := 2 * len(specs) * len(specs)
		inc := New(w, 1, full)
		ref := emulate(w, 1)
		x := 0
		for a := range specs {
			for b := range specs {
				inc.Set(x, 0, 'a', Style(a))
				inc.Set(x+1, 0, 'b', Style(b))
				// The reference: each cell drawn with its full SGR.
				_, _ = ref.Write([]byte(fmt.Sprintf("\x1b[1;%dH%sa%sb", x+1, full.sgr[a], full.sgr[b])))
				x += 2
			}
		}
		got := emulate(w, 1)
		_, _ = got.Write(inc.Render())
		for x := range w {
			g, r := got.Cell(x, 0), ref.Cell(x, 0)
			if g != r {
				t.Fatalf("%v: cell %d (styles %d→%d) is %+v, want %+v", prof, x, (x/2)/len(specs), (x/2)%len(specs), g, r)
			}
		}
	}
}
