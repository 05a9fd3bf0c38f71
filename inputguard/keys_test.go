package inputguard

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
)

// readBudgeted drains a SessionReader with a key budget of perSec over
// chunks that arrive after their pauses on a fake clock; it returns
// everything delivered.
func readBudgeted(t *testing.T, perSec int, chunks ...pausedChunk) []byte {
	t.Helper()
	now := time.Unix(0, 0)
	s := NewSessionReader(&wholeChunks{chunks: chunks, now: &now}, DefaultLimits())
	s.now = func() time.Time { return now }
	s.sleep = func(d time.Duration) { now = now.Add(d) }
	s.LimitKeys(perSec)
	var out bytes.Buffer
	p := make([]byte, 4096)
	for range 100000 {
		n, err := s.Read(p)
		out.Write(p[:n])
		if err != nil {
			return out.Bytes()
		}
	}
	t.Fatal("no EOF")
	return nil
}

// wholeChunks is pausedSource for chunks larger than a read: the rest of a
// chunk comes with the next read, without a pause.
type wholeChunks struct {
	chunks []pausedChunk
	now    *time.Time
}

func (s *wholeChunks) Read(p []byte) (int, error) {
	if len(s.chunks) == 0 {
		return 0, io.EOF
	}
	c := &s.chunks[0]
	*s.now = s.now.Add(c.after)
	c.after = 0
	n := copy(p, c.b)
	if c.b = c.b[n:]; c.b == "" {
		s.chunks = s.chunks[1:]
	}
	return n, nil
}

// decoded is what Bubble Tea's decoder makes of b: the key presses in
// order (Text, or the key's name) and the pastes.
func decoded(t *testing.T, b []byte) (keys []string, pastes []string) {
	t.Helper()
	events, panicked, stack := streamEvents(bytes.NewReader(b), EscTimeout)
	if panicked != nil {
		t.Fatalf("the decoder panicked: %v\n%s", panicked, stack)
	}
	for _, ev := range events {
		switch ev := ev.(type) {
		case uv.KeyPressEvent:
			keys = append(keys, uv.Key(ev).String())
		case uv.PasteEvent:
			pastes = append(pastes, ev.Content)
		}
	}
	return keys, pastes
}

// What a person types, even fast and with key repeat and a terminal that
// reports releases (two events a key), arrives as it was typed: a key
// every 33 ms (30 a second, key repeat's rate) for 10 s, letters, arrows,
// Enter and kitty press and release events mixed.
func TestKeysAtAHumanRateArriveWhole(t *testing.T) {
	units := []string{"w", "s", "\x1b[A", "\x1b[B", "h", "i", "\r", "\x1b[119u", "\x1b[119;1:3u", "\x7f", "é"}
	var chunks []pausedChunk
	var want strings.Builder
	for i := range 300 {
		u := units[i%len(units)]
		chunks = append(chunks, pausedChunk{after: time.Second / 30, b: u})
		want.WriteString(u)
	}
	if got := readBudgeted(t, DefaultKeysPerSec, chunks...); string(got) != want.String() {
		t.Fatalf("typed at 30 keys a second, %d bytes came out of %d:\n%q", len(got), want.Len(), got)
	}
	// A burst as fast as a person types one (a word in one packet, as
	// OpenSSH sends what it read at once), at every pause.
	chunks = chunks[:0]
	want.Reset()
	for range 20 {
		chunks = append(chunks, pausedChunk{after: time.Second, b: "hello there, how are you?\r"})
		want.WriteString("hello there, how are you?\r")
	}
	if got := readBudgeted(t, DefaultKeysPerSec, chunks...); string(got) != want.String() {
		t.Fatalf("typed in bursts, %q came out", got)
	}
}

// Bug: one client's 30 KB write was 30,000 keys, each decoded and handed to
// the program, which drew its screen for each (10.7 CPU-seconds). Now it
// arrives as a paste a read, in order and whole, and no keys.
func TestTextBurstArrivesAsPaste(t *testing.T) {
	text := strings.Repeat("the quick brown fox jumps over the lazy dog ", 700) // 30.8 KB
	var chunks []pausedChunk
	for i := 0; i < len(text); i += 16 << 10 { // as an SSH channel hands it over
		chunks = append(chunks, pausedChunk{b: text[i:min(i+16<<10, len(text))]})
	}
	out := readBudgeted(t, DefaultKeysPerSec, chunks...)
	keys, pastes := decoded(t, out)
	if len(keys) > DefaultKeysPerSec {
		t.Fatalf("%d keys reached the program, budget %d", len(keys), DefaultKeysPerSec)
	}
	if n := len(keys) + len(pastes); n > DefaultKeysPerSec+len(text)/512 {
		t.Fatalf("the program got %d events for one 30 KB write", n)
	}
	got := strings.Join(keys, "") + strings.Join(pastes, "")
	got = strings.ReplaceAll(got, "space", " ")
	if got != text {
		t.Fatalf("the text did not arrive whole and in order: %d of %d bytes", len(got), len(text))
	}
}

// Beyond the budget, keys that are not text are dropped, but Ctrl-C,
// which always closes the program; a paste the client brackets itself
// counts as one key, whatever its length.
func TestKeyFloodBeyondTheBudgetIsDropped(t *testing.T) {
	flood := strings.Repeat("\x1b[A\x1b[B", 2000) + "\x03" + strings.Repeat("\x1b[A", 100)
	out := readBudgeted(t, DefaultKeysPerSec, pausedChunk{b: flood})
	keys, _ := decoded(t, out)
	arrows := 0
	for _, k := range keys {
		if k == "up" || k == "down" {
			arrows++
		}
	}
	if arrows > DefaultKeysPerSec {
		t.Fatalf("%d arrow keys of a flood of 4,100 reached the program, budget %d", arrows, DefaultKeysPerSec)
	}
	if !strings.Contains(string(out), "\x03") {
		t.Fatal("Ctrl-C in a key flood was dropped")
	}
	// Later, at a person's pace, keys pass again.
	out = readBudgeted(t, DefaultKeysPerSec, pausedChunk{b: flood}, pausedChunk{after: time.Second, b: "\x1b[200~" + strings.Repeat("pasted ", 100) + "\x1b[201~"},
		pausedChunk{after: 100 * time.Millisecond, b: "x"})
	if !bytes.HasSuffix(out, []byte("\x1b[200~"+strings.Repeat("pasted ", 100)+"\x1b[201~x")) {
		t.Fatalf("after a pause, a paste and a key did not arrive whole: ends %q", out[max(len(out)-40, 0):])
	}
}

// With no budget (0), a flood passes as it came.
func TestNoKeyBudget(t *testing.T) {
	flood := strings.Repeat("\x1b[Ax", 2000)
	if out := readBudgeted(t, 0, pausedChunk{b: flood}); string(out) != flood {
		t.Fatalf("%d bytes of %d came out", len(out), len(flood))
	}
}

// FuzzKeyBudget: what the budget hands on keeps the Reader's promises (the
// decoders never panic on it, it is valid UTF-8 and within the limits),
// and with a budget nobody reaches it only brackets pastes.
func FuzzKeyBudget(f *testing.F) {
	for _, s := range []string{
		"hello\r\x1b[A\x1b[200~paste\x1b[201~\x03",
		strings.Repeat("ab\x1b[B", 50) + "\x1b",
		"\x1b[200~" + strings.Repeat("x", 300),
		"\x1b]11;rgb:0000/0000/0000\x07\x1bOPé\x1b[119;1:3u",
	} {
		f.Add([]byte(s), []byte{3, 0x90, 1}, uint8(2))
	}
	f.Fuzz(func(t *testing.T, data, split []byte, rate uint8) {
		if len(data) > 4096 {
			return
		}
		read := func(perSec int) []byte {
			now := time.Unix(0, 0)
			src := &fuzzSrc{data: bytes.Clone(data), sizes: chunkSizes(split, 8, 2048)}
			s := NewSessionReader(src, DefaultLimits())
			s.now = func() time.Time { return now }
			s.sleep = func(d time.Duration) { now = now.Add(d) }
			s.LimitKeys(perSec)
			var out []byte
			p := make([]byte, 4096)
			for range 100000 {
				now = now.Add(7 * time.Millisecond)
				n, err := s.Read(p)
				out = append(out, p[:n]...)
				if err != nil {
					return out
				}
			}
			t.Fatal("no EOF")
			return nil
		}
		out := read(int(rate%8) + 1)
		if !utf8.Valid(out) {
			t.Fatalf("output is not valid UTF-8: %q", out)
		}
		paramsOK(t, out, DefaultLimits())
		if r := rawTokenize(out); r != nil {
			t.Fatalf("ansi.DecodeSequence panicked on budgeted output: %v\n%q", r, out)
		}
		if r := uvDecode(out); r != nil {
			t.Fatalf("uv Decode panicked on budgeted output: %v\n%q", r, out)
		}
		// A budget nobody reaches changes nothing but bracketing text that
		// came faster than anyone types as a paste.
		unbracket := func(b []byte) []byte {
			return bytes.ReplaceAll(bytes.ReplaceAll(b, pasteStart, nil), pasteEnd, nil)
		}
		if all, none := read(1<<30), read(0); !bytes.Equal(unbracket(all), unbracket(none)) {
			t.Fatalf("a budget nobody reaches changed the input:\n%q\n%q", all, none)
		}
	})
}

// Text pasted without brackets (tmux's paste-buffer, a terminal without
// bracketed paste) is a paste, not keys: its letters fire no hotkey, its
// last short read included.
func TestUnbracketedPasteIsOnePaste(t *testing.T) {
	text := strings.Repeat("quick question: is anyone here? ", 40)
	out := readBudgeted(t, DefaultKeysPerSec, pausedChunk{b: text[:1000]}, pausedChunk{after: 5 * time.Millisecond, b: text[1000:1270]},
		pausedChunk{after: 5 * time.Millisecond, b: text[1270:]}, pausedChunk{after: time.Second, b: "q"})
	keys, pastes := decoded(t, out)
	if strings.Join(pastes, "") != text {
		t.Fatalf("the paste came as %d pastes of %d bytes, want %d", len(pastes), len(strings.Join(pastes, "")), len(text))
	}
	if len(keys) != 1 || keys[0] != "q" {
		t.Fatalf("keys %q came out of a paste and then q typed a second later", keys)
	}
}

// A flood of tiny reads (a key a packet, as fast as a client can send)
// gets the budget's keys and no more, pastes included.
func TestFloodOfSmallReadsIsHeldToTheBudget(t *testing.T) {
	var chunks []pausedChunk
	for i := range 20000 {
		c := pausedChunk{after: 50 * time.Microsecond, b: "w"} // 20,000 a second
		if i%2 == 1 {
			c.b = strings.Repeat("s", burstRun) // and bursts that are pastes
		}
		chunks = append(chunks, c)
	}
	keys, pastes := decoded(t, readBudgeted(t, DefaultKeysPerSec, chunks...))
	// One second of flood: the budget's second's worth plus a second's rate.
	if n := len(keys) + len(pastes); n > 2*DefaultKeysPerSec+1 {
		t.Fatalf("a second's flood of 20,000 reads made %d keys and pastes, budget %d a second", n, DefaultKeysPerSec)
	}
}
