package view

import (
	"image/color"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/hinshun/vt10x"

	"github.com/termarena/termarena/game/tron"
)

// rgb is what a colour looks like on the session's profile, for
// comparing.
func rgb(p colorprofile.Profile, c color.Color) [3]uint32 {
	c = p.Convert(c)
	if c == nil {
		return [3]uint32{1 << 31}
	}
	r, g, b, _ := c.RGBA()
	return [3]uint32{r, g, b}
}

// Eight riders need eight colours: distinct heads and distinct trails on
// every colour profile, and on 256 colours and truecolor no head shares a
// colour with any trail either.
func TestPlayerColoursAreDistinct(t *testing.T) {
	for _, p := range []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256, colorprofile.ANSI} {
		specs := Specs(p)
		all := map[[3]uint32]string{}
		for _, kind := range []struct {
			name string
			at   int
		}{{"head", int(pxHead0) - 1}, {"trail", int(pxTrail0) - 1}} {
			seen := map[[3]uint32]int{}
			for s := range tron.MaxPlayers {
				fg := specs[kind.at+s].FG
				if fg == nil {
					t.Fatalf("%v: slot %d's %s has no colour", p, s, kind.name)
				}
				c := rgb(p, fg)
				if o, dup := seen[c]; dup {
					t.Errorf("%v: slots %d and %d have the same %s colour", p, o, s, kind.name)
				}
				seen[c] = s
				if o, dup := all[c]; dup && p != colorprofile.ANSI {
					t.Errorf("%v: slot %d's %s has the colour of %s", p, s, kind.name, o)
				}
				all[c] = kind.name
			}
		}
	}
}

// On 16 colours the terminal shows eight distinct head foregrounds for
// eight riders.
func TestSixteenColoursShowEightHeads(t *testing.T) {
	m := newMatch(t, 8)
	s := m.steps(9)
	tm := newTerm(200, 50, colorprofile.ANSI)
	tm.paint(t, New(base, colorprofile.ANSI), s, Viewer{Slot: -1})
	seen := map[vt10x.Color]int{}
	for _, i := range alive(s) {
		c := tm.at(40, 7, int(s.Cycles[i].X), int(s.Cycles[i].Y))
		if c >= 16 {
			t.Errorf("slot %d's head is colour %d, not one of 16", i, c)
		}
		if o, dup := seen[c]; dup {
			t.Errorf("slots %d and %d both show colour %d", o, i, c)
		}
		seen[c] = i
	}
	if len(seen) != 8 {
		t.Errorf("%d distinct head colours on 16 colours, want 8", len(seen))
	}
}

// Styles stay inside the view's block of the palette, and the pair styles
// number every unordered pair exactly once.
func TestStyleLayout(t *testing.T) {
	seen := map[int]bool{}
	for lo := uint8(1); lo <= numColour; lo++ {
		for hi := lo + 1; hi <= numColour; hi++ {
			st := pairStyle(lo, hi)
			if st < stPair0 || st >= stBorder || seen[st] {
				t.Fatalf("pair %d,%d gets style %d (pairs are %d..%d)", lo, hi, st, stPair0, stBorder-1)
			}
			seen[st] = true
		}
	}
	if len(seen) != numPairs {
		t.Fatalf("%d pair styles, want %d", len(seen), numPairs)
	}
	if int(base)+NumStyles > 256 {
		t.Fatalf("the view needs %d styles: too many for a uint8 palette past a base", NumStyles)
	}
}
