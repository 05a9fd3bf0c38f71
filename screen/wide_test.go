package screen

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// wideTerm is the part of a terminal that matters for wide runes, as xterm,
// VTE, tmux and kitty do it: a wide rune takes its cell and the next and
// moves the cursor two cells; writing over either half of a wide rune
// blanks the other half. (vt10x, the emulator the other tests use, draws
// every rune one cell wide.)
type wideTerm struct {
	w, h   int
	cells  []rune // Cont marks a right half
	x, y   int
	sx, sy int
}

func newWideTerm(w, h int) *wideTerm {
	t := &wideTerm{w: w, h: h, cells: make([]rune, w*h)}
	t.clear()
	return t
}

func (t *wideTerm) clear() {
	for i := range t.cells {
		t.cells[i] = ' '
	}
}

func (t *wideTerm) blank(i int) {
	x := i % t.w
	switch {
	case t.cells[i] == Cont:
		t.cells[i-1] = ' '
	case x+1 < t.w && t.cells[i+1] == Cont:
		t.cells[i+1] = ' '
	}
	t.cells[i] = ' '
}

func (t *wideTerm) put(r rune) {
	n := ansi.StringWidthWc(string(r))
	if t.x+n > t.w || t.y >= t.h {
		panic("write past the edge of the terminal")
	}
	i := t.y*t.w + t.x
	t.blank(i)
	if n == 2 {
		t.blank(i + 1)
		t.cells[i+1] = Cont
	}
	t.cells[i] = r
	t.x += n
}

func (t *wideTerm) Write(p []byte) {
	for len(p) > 0 {
		if p[0] != 0x1b {
			r, size := utf8.DecodeRune(p)
			t.put(r)
			p = p[size:]
			continue
		}
		switch p[1] {
		case '7':
			t.sx, t.sy, p = t.x, t.y, p[2:]
			continue
		case '8':
			t.x, t.y, p = t.sx, t.sy, p[2:]
			continue
		}
		end := 2
		for p[end] < 0x40 {
			end++
		}
		params := strings.Split(string(p[2:end]), ";")
		num := func(i, def int) int {
			if i < len(params) {
				if n, err := strconv.Atoi(params[i]); err == nil {
					return n
				}
			}
			return def
		}
		switch p[end] {
		case 'H':
			t.y, t.x = num(0, 1)-1, num(1, 1)-1
		case 'C':
			t.x += num(0, 1)
		case 'J':
			t.clear()
		}
		p = p[end+1:]
	}
}

func (t *wideTerm) text() string {
	var b strings.Builder
	for i, r := range t.cells {
		if r != Cont {
			b.WriteRune(r)
		}
		if i%t.w == t.w-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// gridText is what the grid says the terminal shows.
func gridText(s *Screen) string {
	var b strings.Builder
	for y := range s.h {
		for x := range s.w {
			if r := s.Get(x, y).R; r != Cont {
				b.WriteRune(r)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestWideRunesTakeTwoCells(t *testing.T) {
	s := New(8, 2, testPalette(colorprofile.ANSI256))
	if n := s.Text(0, 0, "a漢😀b", 1); n != 6 {
		t.Fatalf("Text used %d cells, want 6", n)
	}
	want := []rune{'a', '漢', Cont, '😀', Cont, 'b', ' ', ' '}
	for x, r := range want {
		if got := s.Get(x, 0).R; got != r {
			t.Fatalf("cell %d is %q, want %q", x, got, r)
		}
	}
	// A wide rune never sticks out of the last column.
	s.Set(7, 1, '字', 1)
	if got := s.Get(7, 1).R; got != ' ' {
		t.Fatalf("a wide rune in the last column left %q", got)
	}
	// Writing over a half blanks the other half.
	s.Set(2, 0, 'x', 1) // right half of 漢
	s.Set(3, 0, 'y', 1) // left half of 😀
	if got := gridText(s); !strings.HasPrefix(got, "a xy b") {
		t.Fatalf("after overwriting halves: %q", got)
	}
	term := newWideTerm(8, 2)
	term.Write(s.Render())
	if got, want := term.text(), gridText(s); got != want {
		t.Fatalf("terminal shows\n%s\nwant\n%s", got, want)
	}
}

// TestWideRenderedBytesReproduceTheGrid is the random test with wide runes
// mixed in: whatever is written over what, a terminal that draws wide
// runes two cells wide shows exactly the grid, and one that draws them one
// cell wide (vt10x) still has every other rune in its column.
func TestWideRenderedBytesReproduceTheGrid(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}, {7, 3}} {
		w, h := size[0], size[1]
		s := New(w, h, testPalette(colorprofile.ANSI256))
		term := newWideTerm(w, h)
		narrow := emulate(w, h)
		rng := rand.New(rand.NewPCG(2, uint64(w)))
		glyphs := []rune("▀█ ab漢字😀한")
		for frame := range 300 {
			for range rng.IntN(40) {
				s.Set(rng.IntN(w), rng.IntN(h), glyphs[rng.IntN(len(glyphs))], Style(rng.IntN(4)))
			}
			if rng.IntN(5) == 0 {
				s.Text(rng.IntN(w), rng.IntN(h), "漢字 ok 😀", 1)
			}
			if frame%97 == 0 {
				s.Invalidate()
			}
			if out := s.Render(); out != nil {
				term.Write(out)
				narrow.Write(out)
			}
			if got, want := term.text(), gridText(s); got != want {
				t.Fatalf("%dx%d frame %d: terminal shows\n%s\nwant\n%s", w, h, frame, got, want)
			}
			for i, pc := range s.front {
				if c := pc.unpack(); c.R != Cont && c.R != ' ' {
					if got := narrow.Cell(i%w, i/w).Char; got != c.R {
						t.Fatalf("%dx%d frame %d: a one-cell terminal has %q at %d,%d, want %q", w, h, frame, got, i%w, i/w, c.R)
					}
				}
			}
		}
	}
}
