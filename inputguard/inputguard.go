// Package inputguard owns the first look at every byte a remote client types:
// a Reader that sits between the SSH channel and Bubble Tea and bounds escape
// sequences before Bubble Tea's decoder sees them.
//
// Why it exists (measured against bubbletea v2.0.10, ultraviolet
// v0.0.0-20260811164956-006e29f97886 and x/ansi v0.11.8): Bubble Tea's input
// goroutine runs uv.TerminalReader.StreamEvents, and every batch of input it
// reads goes first through eventScanner.deserializeWin32Input, which tokenises
// the whole buffer with ansi.DecodeSequence and a pooled ansi.Parser that has
// room for 32 parameters. DecodeSequence indexes that array without a bound
// check, so "ESC [" followed by 33 ';'-separated numbers (or 32 separators and
// one more digit) panics with "index out of range [32] with length 32". No
// recover covers that goroutine, so one client kills the whole server.
//
// The Reader's contract, which is what keeps the decoder safe no matter where
// it happens to resume parsing (Bubble Tea re-parses its pending buffer from
// the start after every read, and afresh after its 50 ms ESC timeout):
//
//   - Every escape sequence it forwards is complete, well formed by the same
//     grammar ansi.DecodeSequence uses, within Limits, and never split
//     across Read calls (as long as the caller's buffer can hold it; Bubble
//     Tea reads 4096 bytes and the limits are capped there). A sequence
//     that breaks a limit is dropped whole, up to its terminator however
//     many Reads later that comes. A malformed one (an ESC or control byte
//     before the final byte, CAN/SUB in a string) is dropped and parsing
//     restarts at the byte that broke it, so a new ESC starts a new sequence.
//   - The one exception is an ESC that ends the available input: it is the
//     Esc key and is forwarded at once, because Bubble Tea can only tell it
//     from a sequence start with its own timer. Whatever follows is still
//     parsed as following that ESC, since the decoder will join the two; if
//     it is dropped, the ESC has already gone out as a key press. Only once
//     the decoder has finished that ESC as a key on its own (its timer ran
//     out first, which the Reader learns from the escTimedOut hook, see
//     SessionReader) does what follows start afresh.
//   - Its output is valid UTF-8: text, and the data inside OSC/DCS/APC/PM/SOS
//     strings, that is not valid UTF-8 is dropped. That removes every 8-bit
//     C1 byte that is not part of a character, which matters because both
//     ansi.DecodeSequence and uv.EventDecoder.Decode treat a raw 0x9B, 0x90,
//     0x9D, 0x9E, 0x9F or 0x98 as a sequence introducer (and Decode 0x8F
//     too). Those 8-bit sequences are parsed with the grammar of their 7-bit
//     forms and dropped whole, so their parameters do not leak as typed text.
//     UTF-8-encoded C1 code points (C2 9B) are ordinary characters to both
//     decoders and pass.
//   - It never forwards a sequence that makes the decoder lose track of byte
//     positions or stall: CSI/DCS whose final byte is a bare '_' and OSC 95
//     (deserializeWin32Input swallows them as Windows key records and then
//     miscounts how much of the buffer it consumed), an X10 mouse report
//     ("CSI M" plus three raw bytes) unless those bytes are printable ASCII,
//     and an OSC of the form "digits;" with no data (parseOsc reports it as
//     UnknownEvent, which makes the scanner wait for more input forever while
//     input keeps arriving).
//
// The scanner also waits whenever an ESC-prefixed event of at most two bytes
// (Alt+key, or ESC itself) is followed by more input, and keeps its whole
// pending buffer until 50 ms pass without input; and it grows a bracketed
// paste without bound. No byte filter can fix those without holding input
// back for a moment: SessionReader (session.go) does, and is what sessions
// read.
package inputguard

import (
	"errors"
	"io"
	"sync/atomic"
)

// Limits bounds what a single escape sequence may look like. Zero or
// negative fields take the default.
type Limits struct {
	// MaxParams bounds the count of ';' and ':' separated CSI parameter
	// fields. Values above 32 are clamped to 32 because the decoder's
	// parameter array has exactly 32 slots; DCS is further held to 16, the
	// size of ultraviolet's parseDcs array, because past it parseDcs stops
	// mid-sequence and the rest of the string would be parsed as keys.
	MaxParams int
	// MaxCSILen bounds the bytes of one CSI, SS3 or plain ESC sequence,
	// introducer and final byte included (at most 4096).
	MaxCSILen int
	// MaxStringLen bounds the bytes of one OSC, DCS, APC, SOS or PM string,
	// introducer and terminator included (at most 4096).
	MaxStringLen int
}

// DefaultLimits fits every sequence a real terminal sends in response to
// what Bubble Tea asks for (kitty keyboard reports, SGR mouse, DA/DECRPM,
// colour and XTVERSION replies); OSC 52 clipboard replies longer than 512
// bytes are dropped.
func DefaultLimits() Limits {
	return Limits{MaxParams: 16, MaxCSILen: 64, MaxStringLen: 512}
}

const (
	decoderParams    = 32   // ansi.Parser params array, used by deserializeWin32Input
	decoderDCSParams = 16   // ultraviolet parseDcs params array
	maxSeqLen        = 4096 // the longest unit Limits allow (Bubble Tea's read size once)
	inputBufSize     = 1024
)

func (l Limits) normalized() Limits {
	d := DefaultLimits()
	if l.MaxParams <= 0 {
		l.MaxParams = d.MaxParams
	}
	l.MaxParams = min(l.MaxParams, decoderParams)
	if l.MaxCSILen <= 0 {
		l.MaxCSILen = d.MaxCSILen
	}
	l.MaxCSILen = min(l.MaxCSILen, maxSeqLen)
	if l.MaxStringLen <= 0 {
		l.MaxStringLen = d.MaxStringLen
	}
	l.MaxStringLen = min(l.MaxStringLen, maxSeqLen)
	return l
}

// Stats is a snapshot of what a Reader has filtered.
type Stats struct {
	// Dropped counts escape sequences dropped (over a limit, malformed,
	// cancelled or 8-bit) and bytes dropped as invalid UTF-8.
	Dropped uint64
}

type state uint8

const (
	stGround state = iota
	stUTF8         // ground, part of a multi-byte character held in buf
	stEsc          // ESC and any intermediates held in buf
	stCSI
	stX10 // a complete "CSI M", collecting its three payload bytes
	stSS3
	stDCSHead // DCS parameters up to its final byte
	stString  // OSC/DCS/APC/PM/SOS data
	stStringEsc
	stDiscardCSI
	stDiscardSS3
	stDiscardEsc
	stDiscardStr
)

// String kinds: only OSC may end with BEL, in ansi.DecodeSequence and in
// ultraviolet's parsers alike.
const (
	kindOSC uint8 = iota + 1
	kindDCS
	kindOther // APC, PM, SOS
)

const (
	esc = 0x1b
	bel = 0x07
	can = 0x18
	sub = 0x1a
	st8 = 0x9c
)

// errNoProgress mirrors bufio: a source that keeps returning (0, nil) would
// otherwise spin the caller's read loop forever.
var errNoProgress = errors.New("inputguard: source returned no data and no error 100 times")

// Reader bounds escape sequences read from an untrusted terminal. Read is
// not safe for concurrent use; Dropped and Stats are.
type Reader struct {
	src    io.Reader
	lim    Limits
	dcsMax int

	in     []byte
	ir, iw int
	err    error

	// out is the caller's buffer during Read; pend holds a unit that did not
	// fit in it, so a sequence or character is never split across Reads.
	out  []byte
	pend []byte
	pr   int

	// buf is the unit being assembled. For 7-bit sequences buf[0] is always
	// the ESC, even when escOut says it has already been forwarded.
	buf    []byte
	st     state
	escOut bool
	// lastEsc: the last byte forwarded is an ESC the decoder will join to
	// whatever is forwarded next. After a drop the Reader must resume in
	// that state, not in ground, or dropping bytes could splice that ESC
	// onto text the Reader never checked as a sequence.
	lastEsc bool
	kind    uint8
	phase   uint8 // CSI/DCS header: 0 prefix allowed, 1 parameters, 2 intermediates
	seps    int
	bare    bool // no prefix or intermediate byte: the final alone is the command
	x10     uint8
	// UTF-8 validation, for held characters and for string data alike.
	need   uint8
	lo, hi byte
	escPen bool // an ESC inside a discarded string, waiting for '\'

	// escTimedOut, if set, is asked when input arrives while the Reader
	// holds what follows an ESC it has already forwarded: true means the
	// decoder has taken that ESC as a key on its own, so the decoder will
	// not join it to what comes now. It may sleep. The Reader itself keeps
	// no clock.
	escTimedOut func() bool

	dropped atomic.Uint64
}

// NewReader wraps r. A Reader costs about 1.2 KiB: its input buffer and
// room for a key's sequence. A longer unit (a string of up to
// MaxStringLen) grows its buffers while it passes, and Read lets them go
// once it has gone out, so a session holds what its keys need between
// reads; Read does not allocate otherwise.
func NewReader(r io.Reader, l Limits) *Reader {
	l = l.normalized()
	return &Reader{
		src:    r,
		lim:    l,
		dcsMax: min(l.MaxParams, decoderDCSParams),
		in:     make([]byte, inputBufSize),
		buf:    make([]byte, 0, keepUnit),
		// A step emits at most one unit plus an ESC and one byte.
		pend: make([]byte, 0, keepUnit+4),
	}
}

// keepUnit is the room a Reader keeps for the unit it assembles: every
// key's sequence (MaxCSILen's default); what a longer string grew is let
// go after it (shrink).
const keepUnit = 64

// shrink lets go of what a long unit grew, once it has gone out.
func (g *Reader) shrink() {
	if cap(g.buf) > keepUnit && len(g.buf) == 0 {
		g.buf = make([]byte, 0, keepUnit)
	}
	if cap(g.pend) > keepUnit+4 && g.pr == len(g.pend) {
		g.pend, g.pr = make([]byte, 0, keepUnit+4), 0
	}
}

// Dropped returns how many sequences (and invalid UTF-8 bytes) were dropped.
func (g *Reader) Dropped() uint64 { return g.dropped.Load() }

// Stats returns a snapshot of the counters.
func (g *Reader) Stats() Stats { return Stats{Dropped: g.dropped.Load()} }

// Read returns as soon as it has something to return; it blocks on the source
// only when everything read so far is held or dropped.
func (g *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	g.out = p[:0:len(p)] // never write past len(p), whatever its capacity
	n, err := g.read()
	g.out = nil // do not keep the caller's buffer alive
	g.shrink()
	return n, err
}

func (g *Reader) read() (int, error) {
	empty := 0
	for {
		// A unit held back from the previous Read goes first, alone if need
		// be, so it is split only when it is larger than p itself.
		g.drainPend()
		if g.pr < len(g.pend) {
			return len(g.out), nil
		}
		g.process()
		if g.ir == g.iw && g.err != nil {
			g.finish()
		}
		if len(g.out) > 0 {
			return len(g.out), nil
		}
		if g.pr < len(g.pend) {
			continue
		}
		if g.err != nil {
			return 0, g.err
		}
		n, err := g.src.Read(g.in)
		if n > 0 && g.escOut && len(g.buf) > 0 && g.escTimedOut != nil && g.escTimedOut() {
			g.endEsc()
		}
		g.ir, g.iw = 0, n
		if err != nil {
			g.err = err
		} else if n == 0 {
			if empty++; empty >= 100 {
				return 0, errNoProgress
			}
		}
	}
}

func (g *Reader) drainPend() {
	if g.pr == len(g.pend) {
		return
	}
	n := copy(g.out[len(g.out):cap(g.out)], g.pend[g.pr:])
	g.out = g.out[:len(g.out)+n]
	g.pr += n
	if g.pr == len(g.pend) {
		g.pend, g.pr = g.pend[:0], 0
	}
}

func (g *Reader) process() {
	for g.ir < g.iw && g.pr == len(g.pend) && len(g.out) < cap(g.out) {
		if g.st == stGround {
			if n := asciiRun(g.in[g.ir:g.iw], cap(g.out)-len(g.out)); n > 0 {
				g.out = append(g.out, g.in[g.ir:g.ir+n]...)
				g.ir += n
				g.lastEsc = false
				continue
			}
		}
		c := g.in[g.ir]
		g.ir++
		g.step(c)
	}
	// The Esc key: Bubble Tea tells it from the start of a sequence with its
	// own timeout, which it can only do if it sees the ESC now. The state
	// stays "after ESC" so whatever follows is still bounded as a sequence.
	if g.ir == g.iw && g.st == stEsc && len(g.buf) == 1 && !g.escOut {
		g.emitByte(esc)
		g.escOut = true
	}
}

// endEsc forgets that the held unit follows a forwarded ESC, because the
// decoder has finished that ESC as the Esc key: it now reads what follows
// afresh, so the Reader must too, or a 'P' typed after a pause would open a
// DCS that swallows every key after it. What was held after the ESC is read
// again from ground. Only called with out and pend empty (before new input
// is processed), so the order of output is kept.
func (g *Reader) endEsc() {
	// A key's sequence is copied on the stack; a longer unit (rare: a
	// string after an Esc key) on the heap, rather than a 4 KiB array
	// that grew the stack of every session's reading goroutine.
	var small [keepUnit]byte
	held := append(small[:0], g.buf[1:]...)
	g.buf = g.buf[:0]
	g.st, g.escOut, g.lastEsc, g.escPen, g.need = stGround, false, false, false, 0
	for _, c := range held {
		g.step(c)
	}
}

// asciiRun is the length of the leading run of b, at most limit bytes, that
// ground state forwards byte for byte: ASCII other than ESC.
func asciiRun(b []byte, limit int) int {
	b = b[:min(len(b), limit)]
	for i, c := range b {
		if c >= 0x80 || c == esc {
			return i
		}
	}
	return len(b)
}

// finish runs once the source has failed and all its bytes are processed: a
// partial unit can never complete, and forwarding it would leave the decoder
// mid-sequence.
func (g *Reader) finish() {
	switch g.st {
	case stGround:
	case stEsc:
		if len(g.buf) > 1 {
			g.dropped.Add(1)
		}
	case stDiscardCSI, stDiscardSS3, stDiscardEsc, stDiscardStr:
	default:
		g.dropped.Add(1)
	}
	g.buf = g.buf[:0]
	g.st, g.escOut, g.escPen, g.need = stGround, false, false, 0
}

// emit never splits b across Reads unless b is larger than the caller's
// whole buffer.
func (g *Reader) emit(b []byte) {
	g.lastEsc = false
	if g.pr == len(g.pend) && len(b) <= cap(g.out)-len(g.out) {
		g.out = append(g.out, b...)
		return
	}
	g.pend = append(g.pend, b...)
}

func (g *Reader) emitByte(c byte) {
	g.lastEsc = c == esc
	if g.pr == len(g.pend) && len(g.out) < cap(g.out) {
		g.out = append(g.out, c)
		return
	}
	g.pend = append(g.pend, c)
}

func (g *Reader) step(c byte) {
	switch g.st {
	case stGround:
		g.ground(c)
	case stUTF8:
		g.utf8(c)
	case stEsc:
		g.escape(c)
	case stCSI, stDCSHead:
		g.header(c)
	case stX10:
		g.x10Payload(c)
	case stSS3:
		g.ss3(c)
	case stString:
		g.str(c)
	case stStringEsc:
		g.strEsc(c)
	case stDiscardCSI:
		switch {
		case c >= 0x20 && c <= 0x3f:
		case c >= 0x40 && c <= 0x7e:
			g.revert()
		default:
			g.revert()
			g.step(c)
		}
	case stDiscardSS3:
		switch {
		case c >= '0' && c <= '9':
		case c >= 0x21 && c <= 0x7e:
			g.revert()
		default:
			g.revert()
			g.step(c)
		}
	case stDiscardEsc:
		switch {
		case c >= 0x20 && c <= 0x2f:
		case c >= 0x30 && c <= 0x7e:
			g.revert()
		default:
			g.revert()
			g.step(c)
		}
	case stDiscardStr:
		g.discardStr(c)
	}
}

func (g *Reader) ground(c byte) {
	switch {
	case c == esc:
		g.buf = append(g.buf[:0], esc)
		g.st, g.escOut = stEsc, false
	case c < 0x80:
		g.emitByte(c)
	case c < 0xc0:
		g.stray(c)
	default:
		need, lo, hi, ok := utf8Lead(c)
		if !ok {
			g.dropped.Add(1)
			g.revert()
			return
		}
		g.buf = append(g.buf[:0], c)
		g.st, g.need, g.lo, g.hi = stUTF8, need, lo, hi
	}
}

// stray handles a byte 0x80-0xBF that is not part of a character. The
// decoder reads six of them (and 0x8F) as sequence introducers, so they are
// consumed with the grammar of their 7-bit form to drop the sequence whole.
func (g *Reader) stray(c byte) {
	g.dropped.Add(1)
	switch c {
	case 0x9b:
		g.st = stDiscardCSI
	case 0x8f:
		g.st = stDiscardSS3
	case 0x90:
		g.discardString(kindDCS)
	case 0x9d:
		g.discardString(kindOSC)
	case 0x98, 0x9e, 0x9f:
		g.discardString(kindOther)
	default:
		g.revert()
	}
}

func (g *Reader) utf8(c byte) {
	if c >= g.lo && c <= g.hi {
		g.buf = append(g.buf, c)
		g.need--
		g.lo, g.hi = 0x80, 0xbf
		if g.need == 0 {
			g.emit(g.buf)
			g.buf = g.buf[:0]
			g.st = stGround
		}
		return
	}
	// The decoders resynchronise one byte after a broken lead, so the held
	// continuation bytes are read again on their own, where an 0x9B is a CSI.
	var tail [3]byte
	k := copy(tail[:], g.buf[1:])
	g.dropped.Add(1)
	g.revert()
	for _, t := range tail[:k] {
		g.step(t)
	}
	g.step(c)
}

func (g *Reader) escape(c byte) {
	switch {
	case c >= 0x20 && c <= 0x2f:
		if !g.push(c, g.lim.MaxCSILen) {
			g.overflow(stDiscardEsc)
			g.step(c)
		}
	case isIntroducer(c) && len(g.buf) > 1:
		// ansi.DecodeSequence still opens a CSI/DCS/string after
		// intermediates; no terminal sends that, so drop it whole.
		g.buf = g.buf[:0]
		g.dropped.Add(1)
		switch c {
		case '[':
			g.st = stDiscardCSI
		case 'P':
			g.discardString(kindDCS)
		case ']':
			g.discardString(kindOSC)
		default:
			g.discardString(kindOther)
		}
	case c == '[':
		if g.push(c, g.lim.MaxCSILen) {
			g.st, g.phase, g.seps, g.bare = stCSI, 0, 0, true
		} else {
			g.overflow(stDiscardCSI)
		}
	case c == 'P':
		if g.push(c, g.lim.MaxStringLen) {
			g.st, g.kind, g.phase, g.seps, g.bare = stDCSHead, kindDCS, 0, 0, true
		} else {
			g.overflowString(kindDCS)
		}
	case c == ']' || c == 'X' || c == '^' || c == '_':
		kind := kindOther
		if c == ']' {
			kind = kindOSC
		}
		if g.push(c, g.lim.MaxStringLen) {
			g.st, g.kind, g.need = stString, kind, 0
		} else {
			g.overflowString(kind)
		}
	case c == 'O' && len(g.buf) == 1:
		if g.push(c, g.lim.MaxCSILen) {
			g.st = stSS3
		} else {
			g.overflow(stDiscardSS3)
		}
	case c >= 0x30 && c <= 0x7e:
		if g.push(c, g.lim.MaxCSILen) {
			g.complete()
		} else {
			g.overflow(stDiscardEsc)
			g.step(c)
		}
	case len(g.buf) == 1:
		// ESC before a control, DEL or non-ASCII byte is Alt+that key to
		// the decoder, and both decoders restart at the byte after the ESC.
		if !g.escOut {
			g.emitByte(esc)
		}
		g.buf = g.buf[:0]
		g.st, g.escOut = stGround, false
		g.step(c)
	default:
		g.abort(c)
	}
}

func isIntroducer(c byte) bool {
	switch c {
	case '[', 'P', ']', 'X', '^', '_':
		return true
	}
	return false
}

// header parses a CSI, or a DCS up to the final byte that opens its data,
// with ansi.DecodeSequence's grammar: prefix bytes only first, then digits
// and separators, then intermediates, then one final byte. Anything else ends
// the sequence in the decoder too.
func (g *Reader) header(c byte) {
	dcs := g.st == stDCSHead
	limit, maxParams := g.lim.MaxCSILen, g.lim.MaxParams
	if dcs {
		limit, maxParams = g.lim.MaxStringLen, g.dcsMax
	}
	switch {
	case c >= 0x3c && c <= 0x3f && g.phase == 0:
		g.bare = false
	case c >= 0x30 && c <= 0x3b && g.phase <= 1:
		g.phase = 1
		if c == ';' || c == ':' {
			g.seps++
			if g.seps >= maxParams {
				g.headerOverflow(dcs, c)
				return
			}
		}
	case c >= 0x20 && c <= 0x2f:
		g.phase = 2
		g.bare = false
	case c >= 0x40 && c <= 0x7e:
		if !g.push(c, limit) {
			g.headerOverflow(dcs, c)
			return
		}
		g.final(dcs, c)
		return
	default:
		g.abort(c)
		return
	}
	if !g.push(c, limit) {
		g.headerOverflow(dcs, c)
	}
}

func (g *Reader) headerOverflow(dcs bool, c byte) {
	if dcs {
		g.overflowString(kindDCS)
		g.step(c)
		return
	}
	g.overflow(stDiscardCSI)
	g.step(c)
}

func (g *Reader) final(dcs bool, c byte) {
	// deserializeWin32Input treats any command that is exactly '_' as a
	// Windows key record and swallows it, after which its byte accounting no
	// longer matches the buffer. We never enable win32-input-mode.
	if g.bare && c == '_' {
		if dcs {
			g.buf = g.buf[:0]
			g.dropped.Add(1)
			g.discardString(kindDCS)
			return
		}
		g.drop()
		return
	}
	if dcs {
		g.st, g.need = stString, 0
		return
	}
	if g.bare && c == 'M' {
		// parseCsi consumes three raw bytes after a bare CSI M (X10 mouse)
		// that ansi.DecodeSequence reads as ordinary input; only printable
		// ASCII means the same thing to both.
		if len(g.buf)+3 > g.lim.MaxCSILen {
			g.drop()
			return
		}
		g.st, g.x10 = stX10, 0
		return
	}
	g.complete()
}

func (g *Reader) x10Payload(c byte) {
	if c < 0x20 || c > 0x7e {
		g.abort(c)
		return
	}
	g.buf = append(g.buf, c)
	if g.x10++; g.x10 == 3 {
		g.complete()
	}
}

// ss3 follows ultraviolet's parseSs3: digits, then one GL byte.
func (g *Reader) ss3(c byte) {
	switch {
	case c >= '0' && c <= '9':
		if !g.push(c, g.lim.MaxCSILen) {
			g.overflow(stDiscardSS3)
			g.step(c)
		}
	case c >= 0x21 && c <= 0x7e:
		if g.push(c, g.lim.MaxCSILen) {
			g.complete()
		} else {
			g.overflow(stDiscardSS3)
			g.step(c)
		}
	default:
		g.abort(c)
	}
}

func (g *Reader) str(c byte) {
	if c == st8 {
		// An 8-bit ST ends the string for ansi.DecodeSequence even inside a
		// character; a string that uses it is dropped like other 8-bit forms.
		g.drop()
		return
	}
	if g.need > 0 {
		if c < g.lo || c > g.hi {
			g.overflowString(g.kind)
			g.step(c)
			return
		}
		g.need--
		g.lo, g.hi = 0x80, 0xbf
	} else {
		switch {
		case c == bel && g.kind == kindOSC:
			if g.push(c, g.lim.MaxStringLen) {
				g.finishString(1)
			} else {
				g.overflowString(g.kind)
				g.step(c)
			}
			return
		case c == can || c == sub:
			g.abort(c)
			return
		case c == esc:
			if g.push(c, g.lim.MaxStringLen) {
				g.st = stStringEsc
			} else {
				g.overflowString(g.kind)
				g.step(c)
			}
			return
		case c >= 0x80:
			// Invalid data would reach the decoder as keys if it ever
			// resumed inside the string (after its ESC timeout).
			need, lo, hi, ok := utf8Lead(c)
			if !ok {
				g.overflowString(g.kind)
				g.step(c)
				return
			}
			g.need, g.lo, g.hi = need, lo, hi
		}
	}
	if !g.push(c, g.lim.MaxStringLen) {
		g.overflowString(g.kind)
		g.step(c)
	}
}

func (g *Reader) strEsc(c byte) {
	if c == '\\' {
		if g.push(c, g.lim.MaxStringLen) {
			g.finishString(2)
		} else {
			g.overflowString(g.kind)
			g.step(c)
		}
		return
	}
	// Any other byte cancels the string and the ESC starts a new sequence.
	g.buf = g.buf[:len(g.buf)-1]
	g.abort(esc)
	g.step(c)
}

func (g *Reader) finishString(termLen int) {
	if g.kind == kindOSC {
		body := g.buf[2 : len(g.buf)-termLen]
		if oscCommand(body) == '_' || isDigitsSemicolon(body) {
			g.drop()
			return
		}
	}
	g.complete()
}

// oscCommand computes the command the way ansi.DecodeSequence does,
// including int wrap-around, so no digit string can alias 95 unnoticed.
func oscCommand(body []byte) int {
	cmd, digits := 0, false
	for _, d := range body {
		if d < '0' || d > '9' {
			break
		}
		cmd = cmd*10 + int(d-'0')
		digits = true
	}
	if !digits {
		return -1
	}
	return cmd
}

// isDigitsSemicolon reports an OSC that ultraviolet's parseOsc returns as
// UnknownEvent although it is complete.
func isDigitsSemicolon(body []byte) bool {
	if len(body) == 0 || body[len(body)-1] != ';' {
		return false
	}
	for _, d := range body[:len(body)-1] {
		if d < '0' || d > '9' {
			return false
		}
	}
	return true
}

func (g *Reader) discardStr(c byte) {
	if g.escPen {
		g.escPen = false
		if c == '\\' {
			g.revert()
			return
		}
		g.revert()
		g.step(esc)
		g.step(c)
		return
	}
	switch {
	case c == esc:
		g.escPen = true
	case c == st8, c == bel && g.kind == kindOSC:
		g.revert()
	case c == can || c == sub:
		g.revert()
		g.step(c)
	}
}

func (g *Reader) discardString(kind uint8) {
	g.st, g.kind, g.escPen = stDiscardStr, kind, false
}

// push appends c to the held unit unless that would make it longer than
// limit bytes, which keeps memory per Reader fixed.
func (g *Reader) push(c byte, limit int) bool {
	if len(g.buf) >= limit {
		return false
	}
	g.buf = append(g.buf, c)
	return true
}

// complete forwards the held unit; if its ESC went out earlier, only the rest.
func (g *Reader) complete() {
	b := g.buf
	if g.escOut {
		b = b[1:]
	}
	g.emit(b)
	g.buf = g.buf[:0]
	g.st, g.escOut = stGround, false
}

// drop discards the held unit.
func (g *Reader) drop() {
	g.buf = g.buf[:0]
	g.dropped.Add(1)
	g.revert()
}

// abort drops a malformed partial sequence and reads c afresh: an ESC starts
// a new sequence, a control character is delivered as a key.
func (g *Reader) abort(c byte) {
	g.drop()
	g.step(c)
}

// overflow drops the held unit; the discard state then swallows the rest of
// the sequence up to its final byte, so none of it reaches the decoder.
func (g *Reader) overflow(discard state) {
	g.buf = g.buf[:0]
	g.dropped.Add(1)
	g.st = discard
}

func (g *Reader) overflowString(kind uint8) {
	g.buf = g.buf[:0]
	g.dropped.Add(1)
	g.need = 0
	g.discardString(kind)
}

// revert puts the Reader in the state the decoder is in after the bytes
// actually forwarded, as if the dropped ones had never arrived.
func (g *Reader) revert() {
	g.buf = g.buf[:0]
	g.need, g.escPen = 0, false
	if g.lastEsc {
		g.buf = append(g.buf, esc)
		g.st, g.escOut = stEsc, true
		return
	}
	g.st, g.escOut = stGround, false
}

// utf8Lead returns how many continuation bytes a lead byte needs and the
// range of the first one, rejecting overlong forms, surrogates and code
// points past U+10FFFF exactly as unicode/utf8 does.
func utf8Lead(c byte) (need uint8, lo, hi byte, ok bool) {
	switch {
	case c >= 0xc2 && c <= 0xdf:
		return 1, 0x80, 0xbf, true
	case c == 0xe0:
		return 2, 0xa0, 0xbf, true
	case c == 0xed:
		return 2, 0x80, 0x9f, true
	case c >= 0xe1 && c <= 0xef:
		return 2, 0x80, 0xbf, true
	case c == 0xf0:
		return 3, 0x90, 0xbf, true
	case c >= 0xf1 && c <= 0xf3:
		return 3, 0x80, 0xbf, true
	case c == 0xf4:
		return 3, 0x80, 0x8f, true
	}
	return 0, 0, 0, false
}
