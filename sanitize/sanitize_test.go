package sanitize

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
)

func TestText(t *testing.T) {
	for _, c := range []struct {
		name, in string
		max      int
		want     string
	}{
		{"plain", "alice", 0, "alice"},
		{"utf8 kept", "Zoë 日本 🎉", 0, "Zoë 日本 🎉"},
		{"combining marks kept", "e\u0301 a\u0308\u0323", 0, "e\u0301 a\u0308\u0323"},
		{"variation selector kept", "❤\ufe0f", 0, "❤\ufe0f"},
		{"csi", "bob\x1b[31mred\x1b[0m", 0, "bob[31mred[0m"},
		{"osc title", "\x1b]0;pwned\x07x", 0, "]0;pwnedx"},
		{"c0 controls", "a\x00b\x07c\x08d\re\nf\x1fg", 0, "abcdefg"},
		{"tab", "a\tb", 0, "a b"},
		{"del", "a\x7fb", 0, "ab"},
		{"c1 encoded", "a\u009b31mb\u0085c\u0080\u009f", 0, "a31mbc"},
		{"invalid utf8", "a\xffb", 0, "a\ufffdb"},
		{"invalid run", "a\xff\xfe\xc0b\xe2\x82", 0, "a\ufffdb\ufffd"},
		{"raw c1 byte", "a\x9b31mb", 0, "a\ufffd31mb"},
		{"literal replacement char kept", "\ufffd", 0, "\ufffd"},
		{"bidi", "a\u202eevil\u202c\u2066x\u2069\u200e\u200f\u061c\u202a\u202b\u202d\u2067\u2068b", 0, "aevilxb"},
		{"line separators", "a\u2028b\u2029c", 0, "abc"},
		{"zero width", "a\u200bb\u200cc\u200dd\u2060e\u2061\u2062\u2063\u2064f\ufeffg\u00adh", 0, "abcdefgh"},
		{"zwj emoji loses joiner", "👩\u200d👩\u200d👧", 0, "👩👩👧"},
		{"tag characters", "🏴\U000e0067\U000e0062\U000e007fx\U000e0001", 0, "🏴x"},
		{"other cf", "a\u0600b\u180ec\ufff9d", 0, "abcd"},
		{"cap", "abcdef", 3, "abc"},
		{"cap counts runes", "日本語です", 2, "日本"},
		{"cap after removal", "a\x1bb\x1bc\x1bd", 3, "abc"},
		{"cap exact", "abc", 3, "abc"},
		{"cap combining counts", "e\u0301e\u0301", 3, "e\u0301e"},
		{"empty", "", 5, ""},
		{"all removed", "\x1b\x00\u200b", 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Text(c.in, c.max); got != c.want {
				t.Errorf("Text(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
			}
		})
	}
}

func TestArg(t *testing.T) {
	long := strings.Repeat("x", 64)
	for _, c := range []struct{ in, want string }{
		{"short", "short"},
		{long, long},
		{long + "y", long + "…"},
		{long + "\x1b\u200b", long},        // nothing visible was cut
		{long + "\x1b\u200by", long + "…"}, // something was
		{"rm -rf \x1b[2J/", "rm -rf [2J/"},
		{strings.Repeat("é", 100), strings.Repeat("é", 64) + "…"},
	} {
		if got := Arg(c.in); got != c.want {
			t.Errorf("Arg(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWidth(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"abc", 3},
		{"日本", 4},
		{"🎉", 2},
		{"e\u0301", 1},
		{"a\x1b[31mb", 6}, // "a[31mb": the ESC is gone, the rest is text
		{"a\u200bb", 2},
		{"a\tb", 3},
		{"", 0},
	} {
		if got := Width(c.in); got != c.want {
			t.Errorf("Width(%q) = %d, want %d", c.in, got, c.want)
		}
		if clean := Text(c.in, 0); Width(clean) != lipgloss.Width(clean) {
			t.Errorf("Width(%q) = %d, lipgloss.Width = %d", clean, Width(clean), lipgloss.Width(clean))
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 4, "hel…"},
		{"hello", 1, "…"},
		{"hello", 0, ""},
		{"hello", -3, ""},
		{"日本語", 4, "日…"},
		{"日本語", 5, "日本…"},
		{"日本語", 6, "日本語"},
		{"a🎉b", 2, "a…"},
		{"e\u0301e\u0301e\u0301", 2, "e\u0301…"},
		{"\x1b[31mredder\x1b[0m", 4, "[31…"},
		{"a\u202eb", 5, "ab"},
	} {
		got := Truncate(c.in, c.w)
		if got != c.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
		if c.w > 0 && Width(got) > c.w {
			t.Errorf("Truncate(%q, %d) is %d cells wide", c.in, c.w, Width(got))
		}
	}
}

func TestTextFastPathDoesNotAllocate(t *testing.T) {
	for _, s := range []string{"alice", "Zoë 日本 🎉 e\u0301", strings.Repeat("player", 20)} {
		if a := testing.AllocsPerRun(100, func() {
			if Text(s, 0) != s || Text(s, 200) != s {
				t.Fatal("changed clean text")
			}
		}); a != 0 {
			t.Errorf("Text(%q) allocates %.0f times", s, a)
		}
	}
	// A cut of clean text is a substring: no allocation either.
	if a := testing.AllocsPerRun(100, func() { _ = Text("abcdefgh", 3); _ = Arg("short") }); a != 0 {
		t.Errorf("cutting clean text allocates %.0f times", a)
	}
	if a := testing.AllocsPerRun(100, func() { _ = Width("日本 abc") }); a != 0 {
		t.Errorf("Width allocates %.0f times", a)
	}
}

// inert is the property every Text result has.
func inert(t *testing.T, in, out string, maxRunes int) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Text(%q) = %q: invalid UTF-8", in, out)
	}
	for i := 0; i < len(out); i++ {
		if c := out[i]; c < 0x20 || c == 0x7f {
			t.Fatalf("Text(%q) = %q: byte %#x", in, out, c)
		}
	}
	for _, r := range out {
		switch {
		case r >= 0x80 && r <= 0x9f:
			t.Fatalf("Text(%q) = %q: C1 %U", in, out, r)
		case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e,
			r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029:
			t.Fatalf("Text(%q) = %q: bidi or separator %U", in, out, r)
		case unicode.Is(unicode.Cf, r):
			t.Fatalf("Text(%q) = %q: format character %U", in, out, r)
		}
	}
	if n := utf8.RuneCountInString(out); maxRunes > 0 && n > maxRunes {
		t.Fatalf("Text(%q, %d) has %d runes", in, maxRunes, n)
	}
}

func FuzzTextIsInert(f *testing.F) {
	for _, s := range []string{
		"alice", "\x1b[31mred", "a\u202eb", "\xff\xfe", "👩\u200d👩", "e\u0301\u0301",
		"\u009b1m", "\x9b1m", "a\tb\nc", "\U000e0067x", "\u2028\u2029", strings.Repeat("é", 70),
	} {
		f.Add(s, 0)
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, maxRunes int) {
		maxRunes %= 100
		out := Text(s, maxRunes)
		inert(t, s, out, maxRunes)
		if Text(out, maxRunes) != out {
			t.Fatalf("Text is not idempotent on %q", s)
		}
		arg := Arg(s)
		inert(t, s, strings.TrimSuffix(arg, "…"), 64)
		if tr := Truncate(s, maxRunes); maxRunes > 0 && Width(tr) > maxRunes {
			t.Fatalf("Truncate(%q, %d) = %q is %d cells", s, maxRunes, tr, Width(tr))
		}
	})
}

func BenchmarkTextClean(b *testing.B) {
	s := "a perfectly ordinary player name 日本"
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = Text(s, 64)
	}
}

func BenchmarkTextDirty(b *testing.B) {
	s := "evil\x1b[2J\u202ename\u200b\xff"
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = Text(s, 64)
	}
}
