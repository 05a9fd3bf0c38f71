package inputguard

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
)

// streamer sends first, then one 'x' every tick until stop is closed: a
// client that typed Alt+a (or Esc) and then keeps typing faster than the
// scanner's ESC timeout.
type streamer struct {
	first []byte
	tick  time.Duration
	stop  chan struct{}
}

func (s *streamer) Read(p []byte) (int, error) {
	if len(s.first) > 0 {
		n := copy(p, s.first)
		s.first = s.first[n:]
		return n, nil
	}
	t := time.NewTimer(s.tick)
	defer t.Stop()
	select {
	case <-s.stop:
		return 0, io.EOF
	case <-t.C:
	}
	p[0] = 'x'
	return 1, nil
}

// firstX runs Bubble Tea's input scanner over r and reports whether an 'x'
// key press came out within d while the stream went on.
func firstX(t *testing.T, r io.Reader, stop chan struct{}, d time.Duration) bool {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tr := uv.NewTerminalReader(r, "xterm-256color")
	evc := make(chan uv.Event, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = tr.StreamEvents(ctx, evc)
	}()
	defer func() {
		close(stop)
		cancel()
		<-done
	}()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		select {
		case ev := <-evc:
			if k, ok := ev.(uv.KeyPressEvent); ok && k.Text == "x" {
				return true
			}
		case <-deadline.C:
			return false
		}
	}
}

func TestScannerStallAfterShortEscIsBroken(t *testing.T) {
	for _, first := range []string{"\x1ba", "\x1b", "\x1b\x1b", "abc\x1bq"} {
		// The threat: with only the sequence filter, the scanner holds
		// every key behind the short ESC unit for as long as input keeps
		// coming, re-scanning its growing buffer at each read.
		stop := make(chan struct{})
		plain := NewReader(&streamer{first: []byte(first), tick: time.Millisecond, stop: stop}, DefaultLimits())
		if firstX(t, plain, stop, 500*time.Millisecond) {
			t.Logf("%q: the scanner delivered keys behind a short ESC unit during a stream; the stall may be fixed upstream", first)
		}

		stop = make(chan struct{})
		guarded := NewSessionReader(&streamer{first: []byte(first), tick: time.Millisecond, stop: stop}, DefaultLimits())
		if !firstX(t, guarded, stop, 10*time.Second) {
			t.Fatalf("%q then a stream of keys: no key reached the program while the stream lasted", first)
		}
	}
}

// readSession drains a SessionReader with no quiet periods (the clock is fake).
func readSession(t *testing.T, in string) string {
	t.Helper()
	s := NewSessionReader(strings.NewReader(in), DefaultLimits())
	slept := time.Duration(0)
	now := time.Unix(0, 0)
	s.now = func() time.Time { return now }
	s.sleep = func(d time.Duration) { slept += d; now = now.Add(d) }
	var out bytes.Buffer
	p := make([]byte, 4096)
	for range 100000 {
		n, err := s.Read(p)
		out.Write(p[:n])
		if err != nil {
			return out.String()
		}
	}
	t.Fatal("no EOF")
	return ""
}

func TestSessionReaderPassesOrdinaryInput(t *testing.T) {
	for _, in := range []string{
		"hello world",
		"\x1b[A\x1b[B\x1bOP",
		"\x1ba then more",
		"x\x1b",
		"\x1b[200~small paste\x1b[201~after",
	} {
		if got := readSession(t, in); got != in {
			t.Errorf("%q came out as %q", in, got)
		}
	}
}

// chunks delivers one chunk per Read, then EOF.
type chunks [][]byte

func (c *chunks) Read(p []byte) (int, error) {
	if len(*c) == 0 {
		return 0, io.EOF
	}
	n := copy(p, (*c)[0])
	*c = (*c)[1:]
	return n, nil
}

func TestSessionReaderWaitsAfterShortEsc(t *testing.T) {
	src := chunks{[]byte("ab\x1bqcd"), []byte("\x1b[Aef"), []byte("gh")}
	s := NewSessionReader(&src, DefaultLimits())
	now := time.Unix(0, 0)
	var slept []time.Duration
	s.now = func() time.Time { return now }
	s.sleep = func(d time.Duration) { slept = append(slept, d); now = now.Add(d) }
	p := make([]byte, 4096)
	var reads []string
	for {
		n, err := s.Read(p)
		if n > 0 {
			reads = append(reads, string(p[:n]))
		}
		if err != nil {
			break
		}
	}
	// Alt+q and what came with it go out together; the next input waits
	// for the scanner's timeout, the one after that does not.
	if want := []string{"ab\x1bqcd", "\x1b[Aef", "gh"}; strings.Join(reads, "|") != strings.Join(want, "|") {
		t.Fatalf("reads %q, want %q", reads, want)
	}
	if len(slept) != 1 || slept[0] != EscQuiet {
		t.Fatalf("slept %v, want one quiet period of %v", slept, EscQuiet)
	}
}

func TestHasShortEsc(t *testing.T) {
	for _, c := range []struct {
		in    string
		lone  bool
		short bool
	}{
		{"abc", false, false},
		{"\x1b[A", false, false},
		{"\x1bOP", false, false},
		{"\x1b]11;rgb:0/0/0\x1b\\", false, true}, // the string terminator is ESC + one byte
		{"x\x1ba", false, true},
		{"\x1b\x1b[A", false, true},
		{"\x1b", false, false}, // the Esc key alone: not complete yet
		{"a", true, true},      // it continues an Esc delivered earlier
		{"[A", true, false},
		{"\x1b\xc3\xa9", false, false}, // Alt+é is three bytes
		{"\x1b (B", false, false},      // intermediate byte: three bytes
	} {
		if got := hasShortEsc([]byte(c.in), c.lone); got != c.short {
			t.Errorf("hasShortEsc(%q, lone=%v) = %v, want %v", c.in, c.lone, got, c.short)
		}
	}
}

func TestPasteIsCappedAndTheRestDropped(t *testing.T) {
	body := strings.Repeat("p", MaxPaste+5000)
	got := readSession(t, "\x1b[200~"+body+"\x1b[201~after")
	want := "\x1b[200~" + body[:MaxPaste] + "\x1b[201~after"
	if got != want {
		t.Fatalf("capped paste: %d bytes, want %d (ends %q)", len(got), len(want), got[max(len(got)-20, 0):])
	}
	// Never ended by the client: ended for it, and nothing after the start
	// beyond the cap is ever delivered.
	got = readSession(t, "\x1b[200~"+strings.Repeat("q", 3*MaxPaste))
	if want := "\x1b[200~" + strings.Repeat("q", MaxPaste) + "\x1b[201~"; got != want {
		t.Fatalf("unended paste: %d bytes, want %d", len(got), len(want))
	}
	// Exactly at the cap and then ended by the client.
	got = readSession(t, "\x1b[200~"+strings.Repeat("r", MaxPaste)+"\x1b[201~ok")
	if want := "\x1b[200~" + strings.Repeat("r", MaxPaste) + "\x1b[201~ok"; got != want {
		t.Fatalf("paste at the cap: %d bytes, want %d (ends %q)", len(got), len(want), got[max(len(got)-12, 0):])
	}
}

func TestLastReadIsWhenInputArrived(t *testing.T) {
	src := chunks{[]byte("w")}
	s := NewSessionReader(&src, DefaultLimits())
	if !s.LastRead().IsZero() {
		t.Fatal("LastRead before any input is not zero")
	}
	before := time.Now()
	if n, _ := s.Read(make([]byte, 16)); n != 1 {
		t.Fatalf("read %d bytes", n)
	}
	if at := s.LastRead(); at.Before(before) || at.After(time.Now()) {
		t.Fatalf("LastRead %v is not between %v and now", at, before)
	}
}

// pausedChunk is input that arrives after a pause on the fake clock.
type pausedChunk struct {
	after time.Duration
	b     string
}

// pausedSource delivers one chunk per Read, advancing the fake clock by
// the chunk's pause first, then EOF.
type pausedSource struct {
	chunks []pausedChunk
	now    *time.Time
}

func (s *pausedSource) Read(p []byte) (int, error) {
	if len(s.chunks) == 0 {
		return 0, io.EOF
	}
	c := s.chunks[0]
	s.chunks = s.chunks[1:]
	*s.now = s.now.Add(c.after)
	return copy(p, c.b), nil
}

// readPaused returns what each Read delivered and how long the reader slept.
func readPaused(t *testing.T, chunks ...pausedChunk) (reads []string, slept time.Duration) {
	t.Helper()
	now := time.Unix(0, 0)
	s := NewSessionReader(&pausedSource{chunks: chunks, now: &now}, DefaultLimits())
	s.now = func() time.Time { return now }
	s.sleep = func(d time.Duration) { slept += d; now = now.Add(d) }
	p := make([]byte, 4096)
	for range 1000 {
		n, err := s.Read(p)
		if n > 0 {
			reads = append(reads, string(p[:n]))
		}
		if err != nil {
			return reads, slept
		}
	}
	t.Fatal("no EOF")
	return nil, 0
}

func TestKeyAfterPausedEscStartsAfresh(t *testing.T) {
	for _, c := range []struct {
		name   string
		chunks []pausedChunk
		want   []string
		slept  time.Duration
	}{
		// The lobby's "Esc, wait, P": the P is a key, and so is what follows.
		{"P after a pause", []pausedChunk{{0, "p"}, {0, "\x1b"}, {time.Second, "P"}, {0, "2"}, {0, "q"}},
			[]string{"p", "\x1b", "P", "2", "q"}, 0},
		// '/' is an intermediate byte after ESC: it must not wait for a final.
		{"/ after a pause", []pausedChunk{{0, "\x1b"}, {time.Second, "/"}, {0, "x"}},
			[]string{"\x1b", "/", "x"}, 0},
		{"every introducer", []pausedChunk{{0, "\x1b"}, {time.Second, "["}, {0, "\x1b"}, {time.Second, "]"},
			{0, "\x1b"}, {time.Second, "O"}, {0, "\x1b"}, {time.Second, " "}, {0, "\x1b"}, {time.Second, "_"}, {0, "!"}},
			[]string{"\x1b", "[", "\x1b", "]", "\x1b", "O", "\x1b", " ", "\x1b", "_", "!"}, 0},
		// Within the scanner's timeout it joins them, and so does the Reader.
		{"split arrow key", []pausedChunk{{0, "\x1b"}, {10 * time.Millisecond, "[A"}},
			[]string{"\x1b", "[A"}, 0},
		// Held after the ESC when the scanner had already timed it out: read again.
		{"held then pause", []pausedChunk{{0, "\x1b"}, {10 * time.Millisecond, "P"}, {time.Second, "2"}},
			[]string{"\x1b", "P2"}, 0},
		// Between the timeout and the settle margin: held until the margin.
		{"in the margin", []pausedChunk{{0, "\x1b"}, {70 * time.Millisecond, "P"}, {0, "2"}},
			[]string{"\x1b", "P", "2"}, EscSettle - 70*time.Millisecond},
		// An Esc key at the end of a delivery goes out on its own.
		{"keys then Esc", []pausedChunk{{0, "abc\x1b"}, {time.Second, "P"}},
			[]string{"abc", "\x1b", "P"}, 0},
	} {
		reads, slept := readPaused(t, c.chunks...)
		if strings.Join(reads, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: reads %q, want %q", c.name, reads, c.want)
		}
		if slept != c.slept {
			t.Errorf("%s: slept %v, want %v", c.name, slept, c.slept)
		}
	}
}

// The scanner itself, fed through a SessionReader, reads Esc, a pause and
// "P2" as three keys. It waits for the Esc key before pausing, so the pause
// is at least its own length after the program asked for more.
func TestScannerSeesKeysAfterPausedEsc(t *testing.T) {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr := uv.NewTerminalReader(NewSessionReader(pr, DefaultLimits()), "xterm-256color")
	evc := make(chan uv.Event, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = tr.StreamEvents(ctx, evc)
	}()
	defer func() {
		_ = pw.Close()
		cancel()
		<-done
	}()
	next := func() string {
		for {
			select {
			case ev := <-evc:
				if k, ok := ev.(uv.KeyPressEvent); ok {
					return k.String()
				}
			case <-time.After(10 * time.Second):
				return "(none)"
			}
		}
	}
	_, _ = pw.Write([]byte("\x1b"))
	if k := next(); k != "esc" {
		t.Fatalf("first key %q, want esc", k)
	}
	time.Sleep(3 * EscSettle)
	_, _ = pw.Write([]byte("P"))
	_, _ = pw.Write([]byte("2"))
	for _, want := range []string{"P", "2"} {
		if k := next(); k != want {
			t.Fatalf("key %q, want %q", k, want)
		}
	}
}
