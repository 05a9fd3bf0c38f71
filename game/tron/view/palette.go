package view

import (
	"image/color"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/termarena/termarena/game/tron"
	"github.com/termarena/termarena/screen"
)

// Pixel kinds: what one arena cell shows. A pixel is a trail, a riding
// head or the head a cycle crashed with, each in its rider's colour.
const (
	pxNone    uint8 = 0
	pxTrail0  uint8 = 1                          // pxTrail0+slot
	pxHead0         = pxTrail0 + tron.MaxPlayers // pxHead0+slot
	pxCrash0        = pxHead0 + tron.MaxPlayers  // pxCrash0+slot
	numColour       = 2 * tron.MaxPlayers        // trail and head colours
)

// Style layout, relative to the base the caller gives New. The first
// numColour styles draw one coloured pixel over the default background
// (half blocks, full blocks); then one style for every unordered pair of
// different colours (foreground the lower kind, background the higher, so a
// cell with colours a over b and one with b over a share a style, drawn
// with ▀ or ▄); then the border; then each seat's name style.
const (
	stPair0   = numColour
	numPairs  = numColour * (numColour - 1) / 2
	stBorder  = stPair0 + numPairs
	stName0   = stBorder + 1
	NumStyles = stName0 + tron.MaxPlayers // styles the view uses from its base
)

// pairStyle is the style of a cell showing colours lo and hi (1-based
// kinds, lo < hi ≤ numColour): the pairs are numbered row by row.
func pairStyle(lo, hi uint8) int {
	l, h := int(lo), int(hi)
	return stPair0 + (l-1)*numColour - (l-1)*l/2 + h - l - 1
}

// Player colours: slots 0–3 share Pong's side colours (red, blue, green,
// yellow) so a player who knows one game reads the other. Heads are the
// light shade, trails the deep one, so the moving end stands out from the
// wall it leaves.
var (
	// Truecolor: Tailwind's 300/400 and 700 shades.
	headRGB  = [tron.MaxPlayers]string{"#F87171", "#60A5FA", "#4ADE80", "#FDE047", "#E879F9", "#67E8F9", "#FB923C", "#F5F5F5"}
	trailRGB = [tron.MaxPlayers]string{"#B91C1C", "#1D4ED8", "#15803D", "#A16207", "#A21CAF", "#0E7490", "#C2410C", "#737373"}
	// 256 colours: xterm cube entries picked by hand; the automatic
	// downsampling merges some of the deep shades.
	head256  = [tron.MaxPlayers]uint8{203, 75, 84, 227, 213, 87, 215, 255}
	trail256 = [tron.MaxPlayers]uint8{124, 25, 28, 136, 127, 30, 166, 243}
	// 16 colours have no orange: the seventh rider is white, the eighth
	// grey. Heads are the bright half, trails the base colours, and no two
	// riders share a colour (the eighth's head and trail are both grey).
	head16  = [tron.MaxPlayers]uint8{9, 12, 10, 11, 13, 14, 15, 8}
	trail16 = [tron.MaxPlayers]uint8{1, 4, 2, 3, 5, 6, 7, 8}
)

// Without colour (NO_COLOR) a rider is told apart by glyphs: the head is
// the rider's letter (lower case where it crashed) and the trail a pattern
// of its own.
const (
	headLetters  = "ABCDEFGH"
	crashLetters = "abcdefgh"
)

var trailGlyphs = [tron.MaxPlayers]rune{'█', '▓', '▒', '░', '#', '=', '+', ':'}

// Letter is the glyph that names slot without colour: the HUD shows it
// next to the player's name, the board at the head.
func Letter(slot int) rune {
	if slot < 0 || slot >= tron.MaxPlayers {
		return '?'
	}
	return rune(headLetters[slot])
}

// Colour reports whether profile p draws colours; without them the view
// draws letters and patterns.
func Colour(p colorprofile.Profile) bool { return p >= colorprofile.ANSI }

// Specs is the view's styles for profile p, NumStyles of them, to be placed
// in the session's palette from the base given to New. The view brings its
// own colours per profile rather than leaving it to the palette's
// downsampling, which maps several of eight hues onto one of 16 colours.
func Specs(p colorprofile.Profile) []screen.Spec {
	specs := make([]screen.Spec, NumStyles)
	var kinds [numColour + 1]color.Color // by kind: 1..8 trails, 9..16 heads
	for s := range tron.MaxPlayers {
		switch p {
		case colorprofile.TrueColor:
			kinds[1+s], kinds[1+tron.MaxPlayers+s] = hex(trailRGB[s]), hex(headRGB[s])
		case colorprofile.ANSI256:
			kinds[1+s], kinds[1+tron.MaxPlayers+s] = ansi.IndexedColor(trail256[s]), ansi.IndexedColor(head256[s])
		case colorprofile.ANSI:
			kinds[1+s], kinds[1+tron.MaxPlayers+s] = ansi.BasicColor(trail16[s]), ansi.BasicColor(head16[s])
		}
	}
	for k := 1; k <= numColour; k++ {
		specs[k-1] = screen.Spec{FG: kinds[k]}
		for h := k + 1; h <= numColour; h++ {
			specs[pairStyle(uint8(k), uint8(h))] = screen.Spec{FG: kinds[k], BG: kinds[h]}
		}
	}
	var border color.Color
	switch p {
	case colorprofile.TrueColor:
		border = hex("#6B7280")
	case colorprofile.ANSI256:
		border = ansi.IndexedColor(244)
	case colorprofile.ANSI:
		border = ansi.BasicColor(8)
	}
	specs[stBorder] = screen.Spec{FG: border}
	for s := range tron.MaxPlayers {
		// Names in the head colour, bold; without colour the bold alone
		// marks the viewer's own head on the board.
		specs[stName0+s] = screen.Spec{FG: kinds[1+tron.MaxPlayers+s], Bold: true}
	}
	return specs
}

// hex parses "#RRGGBB" (the tables above are constants, so no error path).
func hex(s string) color.Color {
	v := func(i int) uint8 {
		d := func(c byte) uint8 {
			if c >= 'A' {
				return c - 'A' + 10
			}
			return c - '0'
		}
		return d(s[i])<<4 | d(s[i+1])
	}
	return color.RGBA{R: v(1), G: v(3), B: v(5), A: 0xff}
}
