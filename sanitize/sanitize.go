// Package sanitize owns turning attacker-chosen strings (SSH user names,
// player names, command arguments echoed in errors, chat) into text that is
// inert on a terminal: it cannot move the cursor, change colours, reorder
// what follows it, hide itself or break a line, and it measures the same as
// lipgloss lays it out.
//
// Removing only ESC is not enough: 8-bit C1 codes (U+009B is CSI to many
// terminals), bidi overrides (which reorder the rest of the line, the
// "Trojan Source" trick), line separators and zero-width format characters
// all change what the user sees without being visible themselves.
package sanitize

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// ellipsis marks a cut. It is one cell wide in ansi.StringWidth.
const ellipsis = "…"

// argMaxRunes keeps an echoed argument from flooding an error line.
const argMaxRunes = 64

// Text returns s with invalid UTF-8 replaced by U+FFFD (one per run of bad
// bytes), and with every C0 control (0x00–0x1F), DEL (0x7F), C1 control
// (U+0080–U+009F), ESC, bidi control (U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069), line/paragraph separator (U+2028, U+2029) and other
// invisible format character (Unicode category Cf, including U+200B–U+200D,
// U+2060–U+2064, U+FEFF, U+00AD and the tag characters U+E0000–U+E007F)
// removed; tabs become a space; then cut to at most maxRunes runes
// (maxRunes <= 0 means no cap). Combining marks are kept.
//
// When nothing needs changing, s itself is returned without allocating.
func Text(s string, maxRunes int) string {
	t, _ := text(s, maxRunes)
	return t
}

// Arg is Text(s, 64) plus "…" when it was cut: for echoing attacker-chosen
// arguments in error messages.
func Arg(s string) string {
	t, cut := text(s, argMaxRunes)
	if cut {
		return t + ellipsis
	}
	return t
}

// Width is the display width of Text(s, 0) in terminal cells, measured with
// ansi.StringWidth, the function lipgloss v2 measures with, so layouts agree.
func Width(s string) int {
	return ansi.StringWidth(Text(s, 0))
}

// Truncate cuts Text(s, 0) to at most w display cells, ending it with "…"
// when it was cut. Sanitising first means a cut can never leave half an
// escape sequence or an unbalanced bidi override behind.
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(Text(s, 0), w, ellipsis)
}

// text reports whether it had to cut, which Arg needs and a rune count of
// the result could not tell apart from an input of exactly maxRunes runes.
func text(s string, maxRunes int) (string, bool) {
	i, n := clean(s, maxRunes)
	if i == len(s) {
		return s, false
	}
	if maxRunes > 0 && n == maxRunes {
		return s[:i], anyKept(s[i:])
	}

	var b strings.Builder
	if maxRunes > 0 {
		b.Grow(min(len(s), maxRunes*utf8.UTFMax))
	} else {
		b.Grow(len(s))
	}
	b.WriteString(s[:i])
	badRun := false
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		kept := s[i : i+size]
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			if badRun {
				continue
			}
			badRun = true
			kept = string(utf8.RuneError)
		case r == '\t':
			badRun = false
			kept = " "
		case removed(r):
			badRun = false
			continue
		default:
			badRun = false
		}
		if maxRunes > 0 && n == maxRunes {
			return b.String(), true
		}
		b.WriteString(kept)
		n++
	}
	return b.String(), false
}

// anyKept reports whether Text would keep anything of s.
func anyKept(s string) bool {
	for _, r := range s {
		if r == '\t' || !removed(r) {
			return true // RuneError too: it becomes U+FFFD
		}
	}
	return false
}

// clean returns how many leading bytes of s pass through unchanged, and how
// many runes they hold, stopping at the first byte that needs work or once
// maxRunes runes have been seen.
func clean(s string, maxRunes int) (i, n int) {
	for i < len(s) {
		if maxRunes > 0 && n == maxRunes {
			return i, n
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return i, n
			}
			i++
			n++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || removed(r) {
			return i, n
		}
		i += size
		n++
	}
	return i, n
}

// removed reports runes that act on the terminal or the layout instead of
// showing a glyph.
func removed(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r < 0xad:
		return false
	case r == 0x2028, r == 0x2029:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f,
		r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r >= 0xe0000 && r <= 0xe007f:
		// Already Cf; listed so a change in Go's Unicode tables cannot let
		// a bidi control through.
		return true
	}
	return unicode.Is(unicode.Cf, r)
}
