package inputguard

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// fuzzSrc hands data out in chunks whose sizes cycle through sizes.
type fuzzSrc struct {
	data  []byte
	sizes []int
	i     int
}

func (s *fuzzSrc) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	n := len(s.data)
	if len(s.sizes) > 0 {
		n = s.sizes[s.i%len(s.sizes)]
		s.i++
	}
	n = min(n, len(p), len(s.data))
	copy(p, s.data[:n])
	s.data = s.data[n:]
	return n, nil
}

// chunkSizes turns fuzz bytes into read sizes, mostly small so sequences get
// split, sometimes large.
func chunkSizes(b []byte, small, large int) []int {
	var sizes []int
	for _, c := range b {
		if c&0x80 != 0 {
			sizes = append(sizes, 1+int(c&0x7f)*large/128)
		} else {
			sizes = append(sizes, 1+int(c)%small)
		}
	}
	return sizes
}

// paramsOK checks every CSI and DCS in out against the limits with the
// decoder's own tokeniser, given room for any number of parameters.
func paramsOK(t *testing.T, out []byte, l Limits) {
	t.Helper()
	p := new(ansi.Parser)
	p.SetParamsSize(len(out) + 1)
	p.SetDataSize(0)
	var state byte
	for b := out; len(b) > 0; {
		seq, _, n, ns := ansi.DecodeSequence(b, state, p)
		state = ns
		b = b[n:]
		if ns != ansi.NormalState {
			break // a trailing partial, only possible after a lone ESC
		}
		max := l.MaxParams
		switch {
		case ansi.HasDcsPrefix(seq):
			max = min(max, decoderDCSParams)
		case ansi.HasCsiPrefix(seq):
		default:
			continue
		}
		if got := len(p.Params()); got > max {
			t.Fatalf("Reader emitted %q with %d params, limit %d", seq, got, max)
		}
	}
}

func FuzzReaderNeverPanicsDecoder(f *testing.F) {
	seeds := []string{
		csiWithParams(33),
		csiWithParams(100),
		csiWithParams(32),
		"\x1b[" + strings.Repeat(";", 40) + "m",
		"\x1b[" + strings.Repeat("1:", 40) + "u",
		"\x9b" + strings.TrimPrefix(csiWithParams(33), "\x1b["),
		"\x1bP" + strings.TrimPrefix(csiWithParams(33), "\x1b[") + "q\x1b\\",
		"\x1b]0;" + strings.Repeat("x", 1500) + "\x07",
		"\x1b]0;\x9b" + p33 + "m\x07",
		"\x1b]0;\xe2\x9c\x9b" + p33 + "m\x07",
		"\x1b[1;\x1b[2;\x1b\x1b[3;\x1b]\x1bP\x1b_\x1b[A",
		"\x1b\x1b\x1b[" + p33 + "m",
		"\x90\x98\x9b\x9c\x9d\x9e\x9f\x8f" + p33 + "m",
		"\xf0\x9b" + p33 + "m",
		"\x1b[M\xe2\x9b\x9b" + p33 + "m",
		"\x1b]95;x\x07" + csiWithParams(20),
		"\x1b[0;0;97;1;0;1_\x1b[0;0;98;0;0;1_" + csiWithParams(20),
		"\x1b]11;\x07" + csiWithParams(20),
		"\x1b[200~" + csiWithParams(33) + "\x1b[201~",
		"\x1b [" + p33 + "m",
		string(typing),
	}
	for _, s := range seeds {
		f.Add([]byte(s), []byte{1})
		f.Add([]byte(s), []byte{2, 0x83, 5, 1})
		f.Add([]byte(s), []byte{0xff})
		f.Add([]byte(s), []byte{0xff, 1, 2, 3, 0xfd})
	}
	f.Fuzz(func(t *testing.T, data, split []byte) {
		if len(data) > 2048 { // the decoder is quadratic on some inputs; keep execs fast
			return
		}
		l := DefaultLimits()
		if len(split) > 0 {
			switch split[len(split)-1] % 4 {
			case 1: // the most the decoder survives
				l = Limits{MaxParams: 32, MaxCSILen: 4096, MaxStringLen: 4096}
			case 2:
				l = Limits{MaxParams: 2, MaxCSILen: 8, MaxStringLen: 8}
			}
		}
		unit := max(l.MaxCSILen, l.MaxStringLen)
		srcSizes := chunkSizes(split, 8, 2048)
		readSizes := chunkSizes(bytes.Clone(split[min(1, len(split)):]), 16, 4096)

		// Random source chunks and random Read sizes.
		g := NewReader(&fuzzSrc{data: data, sizes: srcSizes}, l)
		var chunks [][]byte
		var out []byte
		bigReads := true
		for i := 0; ; i++ {
			size := 4096
			if len(readSizes) > 0 {
				size = readSizes[i%len(readSizes)]
			}
			bigReads = bigReads && size >= unit
			buf := make([]byte, size)
			n, err := g.Read(buf)
			if n > 0 {
				chunks = append(chunks, buf[:n])
				out = append(out, buf[:n]...)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}

		if !utf8.Valid(out) {
			t.Fatalf("output is not valid UTF-8: %q", out)
		}
		paramsOK(t, out, l)
		if r := rawTokenize(out); r != nil {
			t.Fatalf("ansi.DecodeSequence panicked on Reader output: %v\n%q", r, out)
		}
		if r := uvDecode(out); r != nil {
			t.Fatalf("uv Decode panicked on Reader output: %v\n%q", r, out)
		}
		// After its ESC timeout the decoder starts afresh at a Read
		// boundary; every chunk must be safe on its own.
		if bigReads {
			for _, c := range chunks {
				if r := rawTokenize(c); r != nil {
					t.Fatalf("ansi.DecodeSequence panicked on chunk %q: %v", c, r)
				}
				if r := uvDecode(c); r != nil {
					t.Fatalf("uv Decode panicked on chunk %q: %v", c, r)
				}
			}
		}

		// The scanner keeps unconsumed input and re-tokenises it from the
		// start, so it may resume at any event boundary Decode produced.
		var d uv.EventDecoder
		for b, checked := out, 0; len(b) > 0 && checked < 64; checked++ {
			n, _ := d.Decode(b)
			b = b[n:]
			if r := rawTokenize(b); r != nil {
				t.Fatalf("ansi.DecodeSequence panicked resuming at %q: %v", b, r)
			}
		}

		// The real thing: Bubble Tea's input loop reading from the Reader,
		// with the ESC timeout never firing and firing all the time.
		for _, timeout := range []time.Duration{time.Hour, time.Nanosecond} {
			g2 := NewReader(&fuzzSrc{data: data, sizes: srcSizes}, l)
			if _, r, stack := streamEvents(g2, timeout); r != nil {
				t.Fatalf("StreamEvents (timeout %v) panicked: %v\n%s", timeout, r, stack)
			}
		}

		// Chunking changes nothing unless an ESC was alone at the end of
		// the available input (and so forwarded as the Esc key).
		if len(data) <= inputBufSize && !escEndsChunk(data, srcSizes) {
			one := NewReader(bytes.NewReader(data), l)
			want, _ := io.ReadAll(one)
			if !bytes.Equal(out, want) || one.Dropped() != g.Dropped() {
				t.Fatalf("chunked output %q (dropped %d) != one-Read output %q (dropped %d)",
					out, g.Dropped(), want, one.Dropped())
			}
		}
	})
}

func escEndsChunk(data []byte, sizes []int) bool {
	if len(sizes) == 0 {
		return false
	}
	pos := 0
	for i := 0; pos < len(data); i++ {
		pos += sizes[i%len(sizes)]
		if pos < len(data) && data[pos-1] == esc {
			return true
		}
	}
	return false
}
