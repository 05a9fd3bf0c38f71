package server

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/hinshun/vt10x"
)

// emulated is a terminal fed what a menu screen writes, with \n made
// \r\n as the session's writer does.
type emulated struct{ vt vt10x.Terminal }

func (e emulated) Write(p []byte) (int, error) {
	_, err := e.vt.Write([]byte(strings.ReplaceAll(string(p), "\n", "\r\n")))
	return len(p), err
}

// sameScreens fails unless the two terminals show the same characters in
// the same colours and attributes.
func sameScreens(t *testing.T, when string, got, want vt10x.Terminal) {
	t.Helper()
	w, h := want.Size()
	if gw, gh := got.Size(); gw != w || gh != h {
		t.Fatalf("%s: %d×%d against %d×%d", when, gw, gh, w, h)
	}
	for y := range h {
		for x := range w {
			if g, o := got.Cell(x, y), want.Cell(x, y); g != o {
				t.Fatalf("%s: cell %d,%d is %q fg %d bg %d mode %x, ultraviolet's %q fg %d bg %d mode %x\ngot:\n%s\nwant:\n%s",
					when, x, y, g.Char, g.FG, g.BG, g.Mode, o.Char, o.FG, o.BG, o.Mode, got.String(), want.String())
			}
		}
	}
}

// TestMenusDrawAsUltravioletDid: the packed cells show what ultraviolet's
// renderer showed (every cell's character, colours and attributes on an
// emulated terminal), in each colour profile and at 80×24 and 200×50,
// through a first paint, changes, a resize, a clear, a game screen's turn
// and a rest, and through the views they leave to ultraviolet (a
// grapheme of several runes, a hyperlink, more pens than a palette holds)
// and back.
func TestMenusDrawAsUltravioletDid(t *testing.T) {
	for _, p := range []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256, colorprofile.ANSI, colorprofile.Ascii} {
		for _, size := range [][2]int{{80, 24}, {200, 50}} {
			t.Run(fmt.Sprintf("%s/%dx%d", p, size[0], size[1]), func(t *testing.T) {
				w, h := size[0], size[1]
				newVT, oldVT := vt10x.New(vt10x.WithSize(w, h)), vt10x.New(vt10x.WithSize(w, h))
				newS := newMenuScreen(emulated{newVT}, nil, p, w, h)
				oldS := newMenuScreen(emulated{oldVT}, nil, p, w, h)
				both := func(f func(*menuScreen)) { f(newS); f(oldS) }
				draw := func(when string, v tea.View, onGrid bool) {
					t.Helper()
					if err := newS.draw(v); err != nil {
						t.Fatal(err)
					}
					if err := oldS.drawUV(v); err != nil {
						t.Fatal(err)
					}
					if newS.onGrid != onGrid {
						t.Fatalf("%s: drawn on the packed cells %v, want %v", when, newS.onGrid, onGrid)
					}
					sameScreens(t, when, newVT, oldVT)
				}
				draw("first paint", menuView(w, h, 0), true)
				draw("a change", menuView(w, h, 1), true)
				draw("another", menuView(w, h, 2), true)
				w, h = w-7, h-3
				newVT.Resize(w, h)
				oldVT.Resize(w, h)
				both(func(s *menuScreen) { s.resize(w, h) })
				draw("after a resize", menuView(w, h, 2), true)
				both((*menuScreen).clear)
				draw("after a clear", menuView(w, h, 3), true)
				both((*menuScreen).lent)
				for _, vt := range []vt10x.Terminal{newVT, oldVT} {
					_, _ = vt.Write([]byte("\x1b[H\x1b[2Jthe game screen drew here"))
				}
				draw("back from a game", menuView(w, h, 0), true)
				both((*menuScreen).rest)
				draw("after a rest", menuView(w, h, 1), true)

				v := menuView(w, h, 1)
				v.Content = "cafe\u0301 au lait\n" + v.Content
				draw("a grapheme of two runes", v, false)
				draw("then the menus again", menuView(w, h, 2), true)
				v = menuView(w, h, 2)
				v.Content = "\x1b]8;;https://example.com/r/r1\x1b\\r1\x1b]8;;\x1b\\\n" + v.Content
				draw("a hyperlink", v, false)
				draw("then the menus again", menuView(w, h, 3), true)
				var many strings.Builder
				for i := range 300 {
					many.WriteString(lipgloss.NewStyle().Foreground(lipgloss.Color(fmt.Sprintf("#%02x%02x80", i%256, i/2))).Render("#"))
					if i%70 == 69 {
						many.WriteByte('\n')
					}
				}
				v = menuView(w, h, 3)
				v.Content = many.String() + "\n" + v.Content
				// Truecolor tells 300 pens apart, more than a palette holds;
				// fewer profiles fold them into fewer styles.
				draw("300 pens", v, p != colorprofile.TrueColor)
				draw("then the menus again", menuView(w, h, 0), true)
				draw("and a change", menuView(w, h, 1), true)
			})
		}
	}
}

// TestMenuScreenHoldsPackedCells: a drawn 80×24 menu screen holds the
// screen package's packed cells, a few KB, where ultraviolet's renderer
// held two grids of 112-byte cells (≈430 KB, most of an idle lobby
// session's memory).
func TestMenuScreenHoldsPackedCells(t *testing.T) {
	const n = 40
	v := menuView(80, 24, 0)
	screens := make([]*menuScreen, n)
	before := heapAfterGC()
	for i := range screens {
		s := newMenuScreen(io.Discard, nil, colorprofile.TrueColor, 80, 24)
		if err := s.draw(v); err != nil {
			t.Fatal(err)
		}
		if err := s.draw(menuView(80, 24, 1)); err != nil {
			t.Fatal(err)
		}
		screens[i] = s
	}
	per := int64(heapAfterGC()-before) / n
	runtime.KeepAlive(screens)
	t.Logf("a drawn 80×24 menu screen holds %d bytes", per)
	if per > 40<<10 {
		t.Fatalf("a drawn 80×24 menu screen holds %d bytes, want ≤40 KB", per)
	}
}

// TestMenusSetUpAndTearDownAsUltravioletDid: the packed cells' path
// writes the terminal's set-up (alternate screen, cursor hidden,
// bracketed paste, title) before its first paint and its tear-down on
// leaving byte for byte as ultraviolet's path did.
func TestMenusSetUpAndTearDownAsUltravioletDid(t *testing.T) {
	var newOut, oldOut strings.Builder
	newS := newMenuScreen(&newOut, nil, colorprofile.ANSI256, 80, 24)
	oldS := newMenuScreen(&oldOut, nil, colorprofile.ANSI256, 80, 24)
	v := menuView(80, 24, 0)
	if err := newS.draw(v); err != nil {
		t.Fatal(err)
	}
	if err := oldS.drawUV(v); err != nil {
		t.Fatal(err)
	}
	const setUp = "\x1b[?1049h\x1b[?25l\x1b[?2004h\x1b]2;termarena\a"
	if !strings.HasPrefix(newOut.String(), setUp) || !strings.HasPrefix(oldOut.String(), setUp) {
		t.Fatalf("set-up %q, ultraviolet's %q, want both to start %q", newOut.String()[:40], oldOut.String()[:40], setUp)
	}
	newOut.Reset()
	oldOut.Reset()
	if err := newS.close(); err != nil {
		t.Fatal(err)
	}
	if err := oldS.close(); err != nil {
		t.Fatal(err)
	}
	if newOut.String() != oldOut.String() || newOut.Len() == 0 {
		t.Fatalf("tear-down %q, ultraviolet's %q", newOut.String(), oldOut.String())
	}
}

// TestMenuPensStayBounded: views with ever new colours, which a profile
// without colours draws in one style, leave a bounded memory of the pens
// read, and are drawn on the packed cells all the same.
func TestMenuPensStayBounded(t *testing.T) {
	s := newMenuScreen(io.Discard, nil, colorprofile.Ascii, 80, 24)
	for i := range 40 {
		var b strings.Builder
		for j := range 100 {
			c := lipgloss.Color(fmt.Sprintf("#%02x%02x%02x", i, j, 7))
			b.WriteString(lipgloss.NewStyle().Foreground(c).Render("x"))
		}
		v := tea.NewView(b.String())
		v.AltScreen = true
		if err := s.draw(v); err != nil {
			t.Fatal(err)
		}
		if !s.onGrid {
			t.Fatalf("view %d was not drawn on the packed cells", i)
		}
	}
	if n := len(s.pens); n > 4*256 {
		t.Fatalf("the menus remember %d pens after 4,000 colours, want at most %d", n, 4*256)
	}
}
