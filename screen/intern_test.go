package screen

import (
	"image/color"
	"testing"

	"github.com/charmbracelet/colorprofile"
)

// Intern gives one style to specs that draw alike in the palette's
// profile, a new one to each other, and says when the palette is full.
func TestInternSharesStylesThatDrawAlike(t *testing.T) {
	orange, amber := color.RGBA{0xff, 0x88, 0, 0xff}, color.RGBA{0xff, 0x87, 0, 0xff}
	p := NewPalette(colorprofile.ANSI256, []Spec{{}})
	a, ok := p.Intern(Spec{FG: orange, Bold: true})
	b, ok2 := p.Intern(Spec{FG: amber, Bold: true}) // the same 256-colour index
	if !ok || !ok2 || a != b || a == 0 {
		t.Fatalf("two oranges in 256 colours: styles %d, %d (%v %v), want one new style", a, b, ok, ok2)
	}
	it, _ := p.Intern(Spec{FG: orange, Bold: true, Attrs: Italic | Underline})
	if it == a || p.sgr[it] != "\x1b[0;1;3;4;38;5;208m" {
		t.Fatalf("italic underlined orange: style %d %q", it, p.sgr[it])
	}
	if st, _ := p.Intern(Spec{}); st != 0 {
		t.Fatalf("the plain style interned as %d, want 0", st)
	}
	// No colours: every colour is the plain style.
	q := NewPalette(colorprofile.Ascii, []Spec{{}})
	if st, _ := q.Intern(Spec{FG: orange, BG: amber}); st != 0 {
		t.Fatalf("colours without colour: style %d, want 0", st)
	}

	full := NewPalette(colorprofile.TrueColor, []Spec{{}})
	for i := 1; i < MaxStyles; i++ {
		if _, ok := full.Intern(Spec{FG: color.RGBA{uint8(i), 0, 0, 0xff}}); !ok {
			t.Fatalf("style %d refused", i)
		}
	}
	if _, ok := full.Intern(Spec{FG: color.RGBA{0, 1, 0, 0xff}}); ok {
		t.Fatal("a 257th style was taken")
	}
	if st, ok := full.Intern(Spec{FG: color.RGBA{7, 0, 0, 0xff}}); !ok || st != 7 {
		t.Fatalf("a style the full palette has: %d %v, want 7", st, ok)
	}
}

// A switch between styles with other attributes writes the whole SGR:
// SGR 22 would turn faint off with bold.
func TestSwitchFromFaintWritesTheWholeStyle(t *testing.T) {
	p := NewPalette(colorprofile.ANSI, []Spec{{}, {Bold: true, Attrs: Faint}, {Attrs: Faint}, {Bold: true}, {}})
	if got := string(p.appendSGR(nil, 1, 2)); got != "\x1b[0;2m" {
		t.Fatalf("bold faint to faint: %q", got)
	}
	if got := string(p.appendSGR(nil, 2, 3)); got != "\x1b[0;1m" {
		t.Fatalf("faint to bold: %q", got)
	}
	if got := string(p.appendSGR(nil, 4, 3)); got != "\x1b[1m" {
		t.Fatalf("plain to bold: %q", got)
	}
}
