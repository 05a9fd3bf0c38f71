package inputguard

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
)

type tcase struct {
	name    string
	in      string
	want    string // one Read of the whole input
	dropped uint64
	// split is the output when the input arrives one byte per Read, if it
	// differs from want. It differs only when an ESC that turns out to start
	// a dropped sequence was alone at the end of a Read: that ESC was
	// forwarded at once as the Esc key, so it cannot be dropped with the rest.
	split string
	lim   *Limits
}

var (
	p16 = strings.TrimSuffix(strings.Repeat("1;", 16), ";")
	p17 = strings.TrimSuffix(strings.Repeat("1;", 17), ";")
	p33 = strings.TrimSuffix(strings.Repeat("1;", 33), ";")
)

func pass(name, in string) tcase { return tcase{name: name, in: in, want: in} }

var cases = []tcase{
	pass("ascii", "hello, world"),
	pass("utf8", "héllo wörld 日本語 🎉 👩‍👩‍👧 e\u0301"),
	pass("controls", "\r\n\t\x7f\x01\x00\x1f"),
	pass("encoded C1 is a character", "\u009b1;2m"),
	pass("cursor keys", "\x1b[A\x1b[B\x1b[1;5C\x1b[1;2D"),
	pass("function keys", "\x1b[15~\x1b[24;5~\x1b[Z"),
	pass("kitty keyboard", "\x1b[97;5:1u\x1b[97;5:3u\x1b[?1u\x1b[127;1:2u"),
	pass("sgr mouse", "\x1b[<0;10;5M\x1b[<0;10;5m\x1b[<64;200;100M"),
	pass("x10 mouse printable", "\x1b[M !!"),
	pass("ss3", "\x1bOA\x1bOP\x1bO5P"),
	pass("focus", "\x1b[I\x1b[O"),
	pass("da1 and decrpm", "\x1b[?62;22c\x1b[?2026;2$y"),
	pass("osc bel", "\x1b]11;rgb:0000/0000/0000\x07"),
	pass("osc st", "\x1b]11;rgb:ffff/ffff/ffff\x1b\\"),
	pass("osc utf8 data", "\x1b]0;héllo €\x07"),
	pass("osc no data", "\x1b]112\x07"),
	pass("dcs xtversion", "\x1bP>|kitty(0.31.0)\x1b\\"),
	pass("dcs xtgettcap", "\x1bP1+r5463=3b\x1b\\"),
	pass("dcs bel is data", "\x1bPq\x07x\x1b\\"),
	pass("apc kitty graphics", "\x1b_Gi=1;OK\x1b\\"),
	pass("pm and sos", "\x1b^pm\x1b\\\x1bXsos\x1b\\"),
	pass("bracketed paste", "\x1b[200~pasted\ttext\r\nline 2 ü\x1b[201~"),
	pass("alt keys", "\x1ba\x1b1\x1b\x01\x1b\x7f\x1bé"),
	pass("esc esc", "\x1b\x1b"),
	pass("esc then arrow", "\x1b\x1b[A"),
	pass("lone trailing esc", "abc\x1b"),
	pass("nF escape", "\x1b a\x1b(B"),
	pass("16 params", "\x1b["+p16+"m"),
	pass("csi of 64 bytes", "\x1b["+strings.Repeat("1", 61)+"m"),
	pass("osc of 512 bytes", "\x1b]0;"+strings.Repeat("x", 507)+"\x07"),

	{name: "33 params", in: "a" + csiWithParams(33) + "b", want: "ab", dropped: 1, split: "a\x1bb"},
	{name: "100 params", in: csiWithParams(100) + "b", want: "b", dropped: 1, split: "\x1bb"},
	{name: "17 params", in: "\x1b[" + p17 + "mx", want: "x", dropped: 1, split: "\x1bx"},
	{name: "colon params count", in: "\x1b[1" + strings.Repeat(":1", 16) + "ux", want: "x", dropped: 1, split: "\x1bx"},
	{name: "csi of 65 bytes", in: "\x1b[" + strings.Repeat("1", 62) + "m>", want: ">", dropped: 1, split: "\x1b>"},
	{name: "osc of 513 bytes", in: "\x1b]0;" + strings.Repeat("x", 508) + "\x07after", want: "after", dropped: 1, split: "\x1bafter"},
	{name: "long osc dropped to its terminator", in: "\x1b]0;" + strings.Repeat("x", 5000) + "\x1b\\after", want: "after", dropped: 1, split: "\x1bafter"},
	{name: "ss3 too long", in: "\x1bO" + strings.Repeat("1", 70) + "Px", want: "x", dropped: 1, split: "\x1bx"},
	{name: "esc aborts csi", in: "\x1b[1;2\x1b[B", want: "\x1b[B", dropped: 1, split: "\x1b\x1b[B"},
	{name: "control aborts csi", in: "\x1b[1\x01z", want: "\x01z", dropped: 1, split: "\x1b\x01z"},
	{name: "bad byte order in csi", in: "\x1b[1?2mz", want: "?2mz", dropped: 1, split: "\x1b?2mz"},
	{name: "esc aborts osc", in: "\x1b]0;abc\x1b[A", want: "\x1b[A", dropped: 1, split: "\x1b\x1b[A"},
	{name: "can cancels osc", in: "\x1b]0;x\x18y", want: "\x18y", dropped: 1, split: "\x1b\x18y"},
	{name: "invalid utf8 in osc", in: "\x1b]0;\xff\x07Z", want: "Z", dropped: 1, split: "\x1bZ"},
	{name: "8-bit st in osc", in: "\x1b]0;x\x9cY", want: "Y", dropped: 1, split: "\x1bY"},
	{name: "win32 input csi", in: "\x1b[0;0;97;1;0;1_x", want: "x", dropped: 1, split: "\x1bx"},
	{name: "win32 bare dcs", in: "\x1bP_data\x1b\\x", want: "x", dropped: 1, split: "\x1bx"},
	{name: "osc 95", in: "\x1b]95;x\x07\x1b]095;y\x1b\\x", want: "x", dropped: 2, split: "\x1b\x1bx"},
	{name: "osc digits semicolon", in: "\x1b]11;\x07x", want: "x", dropped: 1, split: "\x1bx"},
	{name: "x10 control payload", in: "\x1b[M\x01ab", want: "\x01ab", dropped: 1, split: "\x1b\x01ab"},
	{name: "broken ss3", in: "\x1bO\x01", want: "\x01", dropped: 1, split: "\x1b\x01"},
	{name: "intermediate then csi", in: "\x1b [1;2mx", want: "x", dropped: 1, split: "\x1bx"},
	{name: "intermediate then control", in: "\x1b \x01", want: "\x01", dropped: 1, split: "\x1b\x01"},
	{name: "attack inside paste", in: "\x1b[200~a" + csiWithParams(33) + "b\x1b[201~",
		want: "\x1b[200~ab\x1b[201~", dropped: 1, split: "\x1b[200~a\x1bb\x1b[201~"},

	// The ESC goes out as Alt+..., the invalid byte is dropped, and what
	// follows is still parsed as coming right after that ESC.
	{name: "esc invalid utf8 csi", in: "\x1b\xce[" + p17 + "Ax", want: "\x1bx", dropped: 2},
	{name: "esc stray c1 csi", in: "\x1b\x85[" + p17 + "Ax", want: "\x1bx", dropped: 2},
	{name: "esc broken char csi", in: "\x1b\xe2\x82[" + p17 + "Ax", want: "\x1bx", dropped: 3},
	{name: "esc invalid utf8 key", in: "\x1b\xffa", want: "\x1ba", dropped: 1},
	{name: "dropped sequence after forwarded esc", in: "\x1b\x1b[" + p17 + "m[" + p17 + "mx", want: "\x1bx", dropped: 2, split: "\x1b\x1bx"},

	{name: "8-bit csi", in: "\x9b1;2;3mX", want: "X", dropped: 1},
	{name: "8-bit csi 33 params", in: "\x9b" + p33 + "mX", want: "X", dropped: 1},
	{name: "8-bit osc", in: "\x9d0;title\x07X", want: "X", dropped: 1},
	{name: "8-bit dcs", in: "\x90q#1\x9cX", want: "X", dropped: 1},
	{name: "8-bit apc pm sos", in: "\x9fa\x9c\x9eb\x9c\x98c\x9cX", want: "X", dropped: 3},
	{name: "8-bit ss3", in: "\x8f5AX", want: "X", dropped: 1},
	{name: "stray st and c1", in: "a\x9c\x85b", want: "ab", dropped: 2},
	{name: "invalid utf8", in: "a\xffb\xc0\xafc", want: "abc", dropped: 3},
	{name: "truncated char", in: "\xe2\x82x", want: "x", dropped: 2},
	{name: "surrogate", in: "\xed\xa0\x80x", want: "x", dropped: 3},
	{name: "broken char hides 8-bit csi", in: "\xe2\x9b1;2mX", want: "X", dropped: 2},

	{name: "dcs params capped at 16", in: "\x1bP" + p17 + "q\x1b\\\x1b[" + p17 + "m", want: "\x1b[" + p17 + "m",
		dropped: 1, split: "\x1b\x1b[" + p17 + "m", lim: &Limits{MaxParams: 32}},
	{name: "small limits", in: "\x1b[1;2;3m\x1b[1;2m\x1b]0;abcdef\x07\x1b]0;ab\x07", want: "\x1b[1;2m\x1b]0;ab\x07",
		dropped: 2, split: "\x1b\x1b[1;2m\x1b\x1b]0;ab\x07", lim: &Limits{MaxParams: 2, MaxCSILen: 8, MaxStringLen: 8}},
}

// oneByteReader delivers one byte per Read, as an attacker can.
type oneByteReader struct{ b []byte }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	p[0] = r.b[0]
	r.b = r.b[1:]
	return 1, nil
}

func (c tcase) limits() Limits {
	if c.lim != nil {
		return *c.lim
	}
	return DefaultLimits()
}

func readAll(t *testing.T, r io.Reader, l Limits) (string, uint64) {
	t.Helper()
	g := NewReader(r, l)
	out, err := io.ReadAll(g)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	return string(out), g.Dropped()
}

func TestReaderTable(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, dropped := readAll(t, strings.NewReader(c.in), c.limits())
			if got != c.want || dropped != c.dropped {
				t.Errorf("one Read: got %q dropped %d, want %q dropped %d", got, dropped, c.want, c.dropped)
			}
			if r := rawTokenize([]byte(got)); r != nil {
				t.Errorf("ansi.DecodeSequence: %v", r)
			}
			if r := uvDecode([]byte(got)); r != nil {
				t.Errorf("uv Decode: %v", r)
			}
		})
	}
}

func TestReaderSplitEveryByte(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if c.split != "" {
				want = c.split
			}
			got, dropped := readAll(t, &oneByteReader{[]byte(c.in)}, c.limits())
			if got != want || dropped != c.dropped {
				t.Errorf("byte per Read: got %q dropped %d, want %q dropped %d", got, dropped, want, c.dropped)
			}
		})
	}
}

// Split at every boundary that does not leave an ESC last in a Read, the
// output is exactly the one-Read output: no state is lost between Reads.
func TestReaderSplitAtEveryBoundary(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k := 1; k < len(c.in); k++ {
				if c.in[k-1] == esc {
					continue
				}
				src := &chunkReader{chunks: [][]byte{[]byte(c.in[:k]), []byte(c.in[k:])}}
				got, dropped := readAll(t, src, c.limits())
				if got != c.want || dropped != c.dropped {
					t.Fatalf("split at %d: got %q dropped %d, want %q dropped %d", k, got, dropped, c.want, c.dropped)
				}
			}
		})
	}
}

func readChunks(t *testing.T, g *Reader, size int) []string {
	t.Helper()
	var reads []string
	buf := make([]byte, size)
	for {
		n, err := g.Read(buf)
		if n > 0 {
			reads = append(reads, string(buf[:n]))
		}
		if err == io.EOF {
			return reads
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Small caller buffers: a unit is never split across Reads while it fits in
// one, and is cut into buffer-sized pieces only when it cannot.
func TestReaderSmallBuffers(t *testing.T) {
	g := NewReader(strings.NewReader("ab\x1b[1;5Ccd\x1b[<0;100;5Mé"), DefaultLimits())
	want := []string{"ab\x1b[1;5Ccd", "\x1b[<0;100;5M", "é"}
	if got := readChunks(t, g, 12); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("reads = %q, want %q", got, want)
	}

	osc := "\x1b]11;rgb:0000/0000/0000\x07"
	g = NewReader(strings.NewReader("a"+osc+"b"), DefaultLimits())
	got := readChunks(t, g, 8)
	if got[0] != "a" || strings.Join(got, "") != "a"+osc+"b" {
		t.Fatalf("reads = %q", got)
	}
}

func TestReaderRespectsLen(t *testing.T) {
	g := NewReader(strings.NewReader("abcdef\x1b[A"), DefaultLimits())
	backing := make([]byte, 16)
	n, err := g.Read(backing[:2])
	if n != 2 || err != nil || string(backing[:n]) != "ab" || backing[2] != 0 {
		t.Fatalf("Read(len 2, cap 16) = %d, %v, backing %q", n, err, backing)
	}
}

// blockingReader returns its chunks, then blocks until released.
type blockingReader struct {
	chunks  [][]byte
	release chan struct{}
}

func (r *blockingReader) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		<-r.release
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	r.chunks = r.chunks[1:]
	return n, nil
}

// Bytes that may be returned are returned without waiting for more input,
// including a lone trailing ESC; a held partial sequence is not.
func TestReaderDoesNotWait(t *testing.T) {
	src := &blockingReader{chunks: [][]byte{[]byte("ab\x1b"), []byte("[1;"), []byte("5A\xe2\x82")}, release: make(chan struct{})}
	g := NewReader(src, DefaultLimits())
	buf := make([]byte, 64)
	for _, want := range []string{"ab\x1b", "[1;5A"} {
		n, err := g.Read(buf)
		if err != nil || string(buf[:n]) != want {
			t.Fatalf("Read = %q, %v; want %q", buf[:n], err, want)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		n, err := g.Read(buf)
		if n != 0 || err != io.EOF {
			t.Errorf("after release: Read = %q, %v; want EOF", buf[:n], err)
		}
	}()
	close(src.release) // the partial character never completes
	<-done
	if g.Dropped() != 1 {
		t.Errorf("Dropped = %d, want the partial character", g.Dropped())
	}
}

func TestReaderErrors(t *testing.T) {
	boom := errors.New("boom")
	src := io.MultiReader(strings.NewReader("ok\x1b[1"), &errReader{boom})
	g := NewReader(src, DefaultLimits())
	buf := make([]byte, 16)
	n, err := g.Read(buf)
	if string(buf[:n]) != "ok" || err != nil {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	if n, err = g.Read(buf); n != 0 || err != boom {
		t.Fatalf("Read = %q, %v; want boom", buf[:n], err)
	}
	if n, err = g.Read(buf); n != 0 || err != boom {
		t.Fatalf("error is not sticky: %q, %v", buf[:n], err)
	}
	if g.Dropped() != 1 {
		t.Fatalf("Dropped = %d, want the partial CSI", g.Dropped())
	}
	if n, err := g.Read(nil); n != 0 || err != nil {
		t.Fatalf("Read(nil) = %d, %v", n, err)
	}
}

type errReader struct{ err error }

func (r *errReader) Read([]byte) (int, error) { return 0, r.err }

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestReaderNoProgress(t *testing.T) {
	g := NewReader(zeroReader{}, DefaultLimits())
	if _, err := g.Read(make([]byte, 8)); err == nil {
		t.Fatal("want an error from a source that never returns data")
	}
}

func TestDroppedConcurrent(t *testing.T) {
	src := &chunkReader{}
	for range 200 {
		src.chunks = append(src.chunks, []byte(csiWithParams(40)+"x"))
	}
	g := NewReader(src, DefaultLimits())
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				_ = g.Dropped()
				_ = g.Stats()
			}
		}
	}()
	out, err := io.ReadAll(g)
	close(stop)
	wg.Wait()
	if err != nil || string(out) != strings.Repeat("x", 200) || g.Stats().Dropped != 200 {
		t.Fatalf("out %q err %v dropped %d", out, err, g.Dropped())
	}
}

func TestLimitsNormalized(t *testing.T) {
	got := Limits{MaxParams: -1, MaxCSILen: 1 << 20, MaxStringLen: 0}.normalized()
	want := Limits{MaxParams: 16, MaxCSILen: 4096, MaxStringLen: 512}
	if got != want {
		t.Fatalf("normalized = %+v, want %+v", got, want)
	}
	if l := (Limits{MaxParams: 99}).normalized(); l.MaxParams != 32 {
		t.Fatalf("MaxParams 99 → %d, want 32", l.MaxParams)
	}
}

// typing is what a player sends: letters, Enter, arrows, a kitty report and a
// mouse click.
var typing = []byte("hello world\r\x1b[A\x1b[D\x1b[97;5:1ujump\x1b[<0;10;5M\x1b[<0;10;5mé")

// loopReader returns the same chunk forever without allocating.
type loopReader struct{ b []byte }

func (r loopReader) Read(p []byte) (int, error) { return copy(p, r.b), nil }

func TestReadDoesNotAllocate(t *testing.T) {
	g := NewReader(loopReader{typing}, DefaultLimits())
	buf := make([]byte, 4096)
	if a := testing.AllocsPerRun(1000, func() {
		if _, err := g.Read(buf); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Fatalf("Read allocates %.1f times per call", a)
	}
}

func BenchmarkReadTyping(b *testing.B) {
	g := NewReader(loopReader{typing}, DefaultLimits())
	buf := make([]byte, 4096)
	b.SetBytes(int64(len(typing)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Read(buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadPlainText(b *testing.B) {
	text := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog "), 23)[:1000]
	g := NewReader(loopReader{text}, DefaultLimits())
	buf := make([]byte, 4096)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Read(buf); err != nil {
			b.Fatal(err)
		}
	}
}
