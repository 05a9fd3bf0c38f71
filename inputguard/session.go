package inputguard

import (
	"bytes"
	"io"
	"sync/atomic"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
)

// Two ways remaining past the Reader's byte-level limits, both measured
// against the pinned ultraviolet:
//
//   - The event scanner waits for more input whenever the front of its
//     buffer is an ESC-prefixed event of at most two bytes (the Esc key,
//     or Alt+key), and re-scans the whole buffer from the start after every
//     read until 50 ms pass with no input at all. A client that types Alt+a
//     and then streams keeps that buffer growing and makes every read
//     re-scan it: quadratic CPU (800 KiB after "ESC a" took 10.8 s).
//   - Inside a bracketed paste it appends every byte to its paste buffer
//     until the end marker, which a client need never send.
//
// A third thing needs time as well: the Reader forwards an Esc key at once
// and parses what follows it as part of one sequence with it, which is
// what the scanner does too, but only until the scanner's own ESC timeout
// has finished the ESC as a key. After that, Esc followed by 'P' (or '[',
// ']', 'O', 'X', '^', '_', space, '/') is two keys to the scanner but a
// sequence start to the Reader, which then holds every key after it. So
// SessionReader tells the Reader when the scanner has timed the Esc key
// out (see escTimedOut).
//
// SessionReader breaks both. After it delivers input holding a short ESC
// unit, it delivers nothing more until the scanner's ESC timeout has passed,
// so the scanner flushes everything it holds in one pass and never re-scans
// a growing buffer; that delays a key typed within 60 ms after Esc or
// Alt+key by at most that, and a flood of such units by that per read. And it ends a paste that passes MaxPaste bytes itself, dropping the
// rest of it.
const (
	// EscQuiet is how long input after a short ESC unit is held: the
	// scanner's 50 ms ESC timeout and a margin for scheduling.
	EscQuiet = 60 * time.Millisecond
	// MaxPaste bounds one bracketed paste; chat lines are far shorter.
	MaxPaste = 64 << 10

	// EscTimeout is the scanner's ESC timeout: input that comes at least
	// this long after the program asked for more following an Esc key
	// finds that Esc already delivered as a key (ultraviolet's
	// DefaultEscTimeout, which Bubble Tea does not change).
	EscTimeout = uv.DefaultEscTimeout
	// EscSettle is when the Reader starts afresh after an Esc key. Such
	// input that comes between EscTimeout and EscSettle is held until
	// EscSettle. The margin is for the scanner's goroutine to get scheduled
	// after its timer fires: the other way round (the Reader starting
	// afresh while the scanner still joins the bytes to the ESC) would let
	// an unchecked sequence reach the decoder, so it is generous; the cost
	// is at most 50 ms on a key typed 50-100 ms after Esc.
	EscSettle = 2 * EscTimeout
)

var (
	pasteStart = []byte("\x1b[200~")
	pasteEnd   = []byte("\x1b[201~")
)

// SessionReader is what a session's TUI reads: a Reader (which bounds every
// escape sequence) plus the two limits above, which depend on time and on
// state across sequences.
type SessionReader struct {
	src *Reader
	// raw is what the Reader delivers: room for the most one Read gives,
	// its input buffer and a unit held from before, so sequences stay
	// whole (limitPaste and the key budget rely on it) and a burst costs
	// the budget as many deliveries as it did. buf is raw after
	// limitPaste, which may add an end marker: it grows with a long
	// delivery (a paste) and is let go after it. They were 4 KiB each,
	// 8 KiB of every session for a few bytes a key.
	raw  []byte
	buf  []byte
	held []byte // processed input not yet delivered (in buf or the budget's out)
	lone bool   // the last byte delivered is an Esc key the next bytes may extend
	// escAsked: when the program asked for input after that Esc key, which
	// is after its scanner took the key and started its timer.
	escAsked time.Time
	// quiet: input after a short ESC unit waits until then.
	quiet time.Time

	inPaste  bool
	pasted   int
	skipping bool // past MaxPaste: dropping up to the client's end marker

	now   func() time.Time
	sleep func(time.Duration)

	keys keyBudget

	// lastRead is when bytes last came from the client, as nanoseconds
	// since base (monotonic): read on other goroutines, so an atomic.
	base     time.Time
	lastRead atomic.Int64
}

// NewSessionReader bounds a session's input: escape sequences to l, then
// the scanner stall and paste size.
func NewSessionReader(r io.Reader, l Limits) *SessionReader {
	src := NewReader(r, l)
	unit := max(src.lim.MaxCSILen, src.lim.MaxStringLen, 4)
	s := &SessionReader{src: src, raw: make([]byte, inputBufSize+unit+4), buf: make([]byte, 0, keepUnit),
		now: time.Now, sleep: time.Sleep, base: time.Now()}
	s.src.escTimedOut = s.escTimedOut
	return s
}

// escTimedOut tells the Reader, when input arrives after an Esc key that
// ended a delivery, whether the scanner has finished that key by its
// timeout. That holds only if the Esc key was the whole of its delivery
// (Read sees to it), or the scanner may have spent the time handing the
// keys before it to a busy program and start its timer only now.
func (s *SessionReader) escTimedOut() bool {
	if !s.lone {
		return false
	}
	d := s.now().Sub(s.escAsked)
	if d < EscTimeout {
		return false
	}
	if d < EscSettle {
		s.sleep(EscSettle - d)
	}
	s.lone = false
	return true
}

// LastRead is when input last arrived from the client (zero before any):
// what a key's latency is measured from.
func (s *SessionReader) LastRead() time.Time {
	d := s.lastRead.Load()
	if d == 0 {
		return time.Time{}
	}
	return s.base.Add(time.Duration(d))
}

// Read delivers input as the Reader does, possibly in smaller pieces and
// up to EscQuiet later.
func (s *SessionReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(s.held) == 0 && s.lone {
		s.escAsked = s.now()
	}
	for len(s.held) == 0 {
		n, err := s.src.Read(s.raw)
		if n == 0 {
			return 0, err
		}
		s.lastRead.Store(int64(max(time.Since(s.base), 1)))
		// With data, the source returns its error again on the next
		// Read, which is when the caller sees it.
		s.buf = s.limitPaste(s.raw[:n], s.buf[:0])
		s.held = s.keys.budget(s.buf, s.lone, s.now())
	}
	if d := s.quiet.Sub(s.now()); d > 0 {
		s.sleep(d)
	}
	n := copy(p, s.held)
	if n > 1 && n == len(s.held) && p[n-1] == esc {
		// An Esc key goes out on its own, so that the scanner has no keys
		// to hand over with it and starts its timer as it takes it.
		n--
	}
	if hasShortEsc(p[:n], s.lone) {
		// The scanner now waits for input that would extend the unit;
		// give it none until its timeout has flushed everything, units
		// and all that came after them, in one pass.
		s.quiet = s.now().Add(EscQuiet)
	}
	s.held = s.held[n:]
	if len(s.held) == 0 {
		// A long delivery (a paste) is out: let go of what it grew.
		if cap(s.buf) > keepUnit {
			s.buf = make([]byte, 0, keepUnit)
		}
		if cap(s.keys.out) > keepUnit {
			s.keys.out = nil
		}
	}
	// The Reader forwards an ESC as the last byte only as the Esc key,
	// which the bytes after it may still extend into a sequence.
	s.lone = p[n-1] == esc
	return n, nil
}

// hasShortEsc reports whether b holds a complete ESC unit of at most two
// bytes: ESC followed by one byte that starts no longer sequence. lone says
// b continues an Esc key delivered before it.
func hasShortEsc(b []byte, lone bool) bool {
	if len(b) == 0 {
		return false
	}
	if lone && shortFinal(b[0]) {
		return true
	}
	for i := 0; ; i++ {
		j := bytes.IndexByte(b[i:], esc)
		if j < 0 {
			return false
		}
		i += j
		if i+1 < len(b) && shortFinal(b[i+1]) {
			return true
		}
	}
}

// shortFinal reports whether ESC c is an event of at most two bytes to the
// scanner (Alt+c, Esc twice, or a two-byte escape such as a string
// terminator), rather than the start of a CSI, SS3, string or intermediate
// sequence, or an Alt+character in UTF-8.
func shortFinal(c byte) bool {
	switch {
	case c >= 0x80, c >= 0x20 && c <= 0x2f:
		return false
	}
	switch c {
	case '[', 'O', ']', 'P', '_', '^', 'X':
		return false
	}
	return true
}

// limitPaste appends b to dst, counting the bytes of a bracketed paste:
// past MaxPaste it ends the paste with its own end marker and drops the
// rest up to the client's. Markers are never split across Reads, because
// the Reader forwards every sequence whole.
func (s *SessionReader) limitPaste(b, dst []byte) []byte {
	for len(b) > 0 {
		switch {
		case s.skipping:
			j := bytes.Index(b, pasteEnd)
			if j < 0 {
				return dst
			}
			b = b[j+len(pasteEnd):]
			s.skipping = false
		case s.inPaste:
			end := bytes.Index(b, pasteEnd)
			if end < 0 {
				end = len(b)
			}
			take := min(end, MaxPaste-s.pasted)
			dst = append(dst, b[:take]...)
			s.pasted += take
			b = b[take:]
			switch {
			case take < end || (s.pasted == MaxPaste && len(b) == 0):
				// Over the limit (or at it with more to come): close
				// the paste here and drop the rest of it.
				dst = append(dst, pasteEnd...)
				s.inPaste, s.skipping = false, true
			case len(b) > 0: // the client's end marker
				dst = append(dst, pasteEnd...)
				b = b[len(pasteEnd):]
				s.inPaste = false
			}
		default:
			j := bytes.Index(b, pasteStart)
			if j < 0 {
				return append(dst, b...)
			}
			dst = append(dst, b[:j+len(pasteStart)]...)
			b = b[j+len(pasteStart):]
			s.inPaste, s.pasted = true, 0
		}
	}
	return dst
}
