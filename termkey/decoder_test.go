package termkey

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
)

// reference decodes b with ultraviolet's decoder, the one Bubble Tea reads
// keys with.
func reference(b []byte) []string {
	var d uv.EventDecoder
	var out []string
	for len(b) > 0 {
		n, ev := d.Decode(b)
		if n == 0 {
			break
		}
		switch e := ev.(type) {
		case uv.KeyPressEvent:
			out = append(out, describe(Event{Key: tea.Key(e)}))
		case uv.KeyReleaseEvent:
			out = append(out, describe(Event{Key: tea.Key(e), Release: true}))
		}
		b = b[n:]
	}
	return out
}

func ours(b []byte) []string {
	var d Decoder
	var out []string
	d.Decode(b, func(e Event) { out = append(out, describe(e)) })
	return out
}

func describe(e Event) string {
	k := e.Key
	kind := "press"
	if e.Release {
		kind = "release"
	}
	if e.Paste {
		return fmt.Sprintf("paste %q", e.Text)
	}
	return fmt.Sprintf("%s %q code=%U shifted=%U base=%U mod=%d text=%q repeat=%v", kind, k.String(), k.Code, k.ShiftedCode, k.BaseCode, k.Mod, k.Text, k.IsRepeat)
}

// Every key a player's terminal sends decodes as Bubble Tea's own reader
// decodes it: the menus and the chat line see the same keys whichever
// decoder read them.
func TestKeysDecodeAsBubbleTeaDecodesThem(t *testing.T) {
	inputs := []string{
		"q", "Q", "w", "s", " ", "1", "?", "/", "é", "日", "🙂",
		"\r", "\t", "\x7f", "\x08", "\x00", "\x01", "\x03", "\x1a", "\x1c", "\x1f",
		"\x1b", "\x1bq", "\x1bQ", "\x1b\r", "\x1b\x7f",
		"\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D", "\x1b[H", "\x1b[F",
		"\x1bOA", "\x1bOB", "\x1bOC", "\x1bOD", "\x1bOH", "\x1bOF", "\x1bOP", "\x1bOS",
		"\x1b[1;2A", "\x1b[1;5B", "\x1b[1;3C", "\x1b[1;9D",
		"\x1b[5~", "\x1b[6~", "\x1b[3~", "\x1b[2~", "\x1b[1~", "\x1b[4~", "\x1b[7~", "\x1b[8~",
		"\x1b[5;5~", "\x1b[15~", "\x1b[24~", "\x1b[Z",
		// kitty keyboard protocol: presses, repeats, releases.
		"\x1b[119u", "\x1b[119;1:1u", "\x1b[119;1:2u", "\x1b[119;1:3u", "\x1b[115;1:3u",
		"\x1b[99;5u", "\x1b[27u", "\x1b[27;1:3u", "\x1b[13u", "\x1b[13;1:3u", "\x1b[9u", "\x1b[127u",
		"\x1b[97;2u", "\x1b[97:65;2u", "\x1b[97;3u", "\x1b[113;1:3u", "\x1b[32u", "\x1b[32;1:3u",
		"\x1b[1;1:3A", "\x1b[1;1:2B", "\x1b[1;1:3D", "\x1b[5;1:3~", "\x1b[97;;97u",
		"ab\x1b[Aq\r",
	}
	for _, in := range inputs {
		want, got := reference([]byte(in)), ours([]byte(in))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q:\n got  %v\n want %v", in, got, want)
		}
	}
}

// Replies to the terminal queries and mouse reports are no keys.
func TestRepliesAreDropped(t *testing.T) {
	for _, in := range []string{"\x1b[?3u", "\x1b[?1;2c", "\x1b]11;rgb:0000/0000/0000\x07", "\x1b[<0;3;4M", "\x1bP>|xterm\x1b\\"} {
		if got := ours([]byte(in + "x")); fmt.Sprint(got) != fmt.Sprint(ours([]byte("x"))) {
			t.Errorf("%q decoded as %v, want only the x after it", in, got)
		}
	}
}

// A sequence or a paste split between reads is decoded once whole.
func TestSplitSequencesAndPastes(t *testing.T) {
	var d Decoder
	var got []string
	emit := func(e Event) { got = append(got, describe(e)) }
	for _, part := range []string{"\x1b[1", "19;1:", "3u", "\x1b[200~hello ", "world\x1b[20", "1~x"} {
		d.Decode([]byte(part), emit)
	}
	want := []string{ours([]byte("\x1b[119;1:3u"))[0], `paste "hello world"`, ours([]byte("x"))[0]}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

// The decoder's state is small: what a session keeps between reads.
func BenchmarkDecodeKeys(b *testing.B) {
	var d Decoder
	in := []byte("w\x1b[119;1:3us\x1b[1;1:3A\x1b[A")
	b.ReportAllocs()
	for b.Loop() {
		d.Decode(in, func(Event) {})
	}
}

// A typed key, press or kitty release, is decoded without an allocation:
// its text is no string of its own (runeText), and every key a player
// types in a match goes this way.
func TestTypedKeysAllocateNothing(t *testing.T) {
	var d Decoder
	var got Event
	emit := func(e Event) { got = e }
	for _, in := range []string{"w", "S", "\x1b[119;1:3u", "\x1b[119u"} {
		b := []byte(in)
		if allocs := testing.AllocsPerRun(100, func() { d.Decode(b, emit) }); allocs > 0 {
			t.Errorf("%q: %.0f allocations a key", in, allocs)
		}
		if got.Key.Text == "" {
			t.Errorf("%q: no text", in)
		}
	}
}
