package inputguard

import (
	"bytes"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// A key budget bounds what one session's typing can cost. Every key a
// client sends is decoded and handed to the session's program, which
// updates and draws its screen for it; nothing else limited how fast keys
// came, so one client writing 30 KB at once made 30,000 keys and took ten
// CPU-seconds. The budget is a token bucket of keys in front of the
// decoder, refilled at a rate no person reaches (people type under 20
// keys a second, key repeat is about 30) and holding a second of that rate:
//
//   - Text that comes faster than anyone types (burstRun characters or
//     more in one read, and what follows it within burstGap) is a paste:
//     one the terminal did not bracket, or a script's write. It is handed
//     on as one bracketed paste a read, for one key: the program gets a
//     few pastes instead of thousands of keys, a text field (the chat
//     line) takes them whole up to its limit, and menus ignore a paste
//     instead of firing a hotkey per character ("quick question" no longer
//     quits at its q).
//   - A client's own bracketed paste is one key whatever its length (it is
//     capped at MaxPaste).
//   - Every other key is one key. Beyond the budget keys and pastes are
//     dropped, but Ctrl-C, which always passes.
const (
	// DefaultKeysPerSec is the key budget's rate: twice the fastest key
	// repeat, so that a terminal reporting key releases (kitty's protocol:
	// two events a key) still never meets it.
	DefaultKeysPerSec = 60
)

const (
	ctrlCKey = 0x03
	// burstRun is how many characters in one read make a paste: nobody
	// types that many between two reads (a person's keys come one or two a
	// packet, a few more after a network stall).
	burstRun = 32
	// burstGap: text that comes this soon after a paste is the rest of it
	// (a long paste comes in many reads; its last may be short).
	burstGap = 100 * time.Millisecond
)

// keyBudget is SessionReader's token bucket and what it did.
type keyBudget struct {
	rate   float64 // keys a second; 0: no budget
	tokens float64
	at     time.Time // when tokens was last refilled
	// inPaste: inside a bracketed paste the client sent, whose content is
	// passed whole; skipping: inside one that came over the budget, which
	// is dropped whole.
	inPaste, skipping bool
	// burstUntil: text at the start of a read before then continues a
	// paste.
	burstUntil time.Time
	out        []byte

	dropped atomic.Uint64 // keys dropped over the budget
	pasted  atomic.Uint64 // characters handed on as a paste of ours
}

// LimitKeys sets the session's key budget to perSec keys a second, with a
// second's worth to start with (0 or less: no budget). Call it before the
// first Read.
func (s *SessionReader) LimitKeys(perSec int) {
	s.keys.rate = max(float64(perSec), 0)
	s.keys.tokens = s.keys.rate
	s.keys.at = s.now()
}

// KeysOverBudget reports how many keys the budget dropped, and how many
// characters it handed on as pastes rather than keys (text that came
// faster than anyone types).
func (s *SessionReader) KeysOverBudget() (dropped, pasted uint64) {
	return s.keys.dropped.Load(), s.keys.pasted.Load()
}

// budget applies the key budget to b, a delivery as the Reader and
// limitPaste made it (every sequence whole in it); cont says b continues
// an Esc key delivered last, which the decoder joins to b's first unit.
// The result is b itself when the budget changed nothing.
func (k *keyBudget) budget(b []byte, cont bool, now time.Time) []byte {
	if k.rate <= 0 {
		return b
	}
	k.tokens = min(k.tokens+now.Sub(k.at).Seconds()*k.rate, k.rate)
	k.at = now
	out := k.out[:0]
	changed := false // b up to i is copied to out, and out differs from it
	ctrlC := false   // a Ctrl-C over the budget went out in this delivery
	for i := 0; i < len(b); {
		rest := b[i:]
		n, pass, wrap := 0, true, false
		switch {
		case k.skipping:
			// A paste that came over the budget goes whole.
			n, pass = len(rest), false
			if j := bytes.Index(rest, pasteEnd); j >= 0 {
				n, k.skipping = j+len(pasteEnd), false
			}
		case k.inPaste:
			// A paste's content is part of the one key its start was.
			n = len(rest)
			if j := bytes.Index(rest, pasteEnd); j >= 0 {
				n, k.inPaste = j+len(pasteEnd), false
			}
		case cont && i == 0:
			// The rest of a sequence whose Esc went out already.
			n = escBody(rest)
		default:
			run, units := textRun(rest)
			if units >= burstRun || (i == 0 && units > 0 && now.Before(k.burstUntil)) {
				// More text at once than anyone types: a paste (one the
				// terminal did not bracket, or a script's write), and the
				// rest of one that came a moment ago.
				n, wrap = run, true
				k.burstUntil = now.Add(burstGap)
				if k.take() {
					k.pasted.Add(uint64(units))
				} else {
					pass = false
					k.dropped.Add(uint64(units))
				}
				break
			}
			n, _ = unitLen(rest)
			unit := rest[:n]
			isPaste := bytes.Equal(unit, pasteStart)
			switch {
			case k.take():
				k.inPaste = isPaste
			case n == 1 && unit[0] == ctrlCKey && !ctrlC:
				// Ctrl-C always closes the program; one a read will do.
				ctrlC = true
			default:
				pass = false
				k.skipping = isPaste
				k.dropped.Add(1)
			}
		}
		if (!pass || wrap) && !changed {
			out, changed = append(out, b[:i]...), true
		}
		switch {
		case pass && wrap:
			out = append(out, pasteStart...)
			out = append(out, rest[:n]...)
			out = append(out, pasteEnd...)
		case pass && changed:
			out = append(out, rest[:n]...)
		}
		i += n
	}
	if !changed {
		return b
	}
	k.out = out
	return out
}

// take spends a key's token if there is one.
func (k *keyBudget) take() bool {
	if k.tokens < 1 {
		return false
	}
	k.tokens--
	return true
}

// textRun is the length of the text at the start of b, in bytes and in
// keys.
func textRun(b []byte) (n, units int) {
	for n < len(b) {
		l, text := unitLen(b[n:])
		if !text {
			break
		}
		n += l
		units++
	}
	return n, units
}

// unitLen is the length of the key at the start of b (never 0 for a
// non-empty b), and whether it is text: a printable character, Enter or
// Tab. b is the Reader's output, so every sequence in it is whole; a
// sequence cut short by b's end runs to it.
func unitLen(b []byte) (int, bool) {
	switch c := b[0]; {
	case c == esc:
		if len(b) == 1 {
			return 1, false
		}
		return 1 + escBody(b[1:]), false
	case c == '\r' || c == '\n' || c == '\t':
		return 1, true
	case c < 0x20 || c == 0x7f:
		return 1, false
	default:
		_, n := utf8.DecodeRune(b)
		return n, true
	}
}

// escBody is the length of what follows an ESC in the sequence it starts:
// a CSI to its final byte, a string to its terminator, SS3's one byte, or
// intermediates and a final character (Alt+key).
func escBody(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	switch b[0] {
	case '[':
		for i := 1; i < len(b); i++ {
			if b[i] >= 0x40 && b[i] <= 0x7e {
				return i + 1
			}
		}
		return len(b)
	case ']', 'P', '_', '^', 'X':
		for i := 1; i < len(b); i++ {
			switch {
			case b[i] == bel:
				return i + 1
			case b[i] == esc && i+1 < len(b) && b[i+1] == '\\':
				return i + 2
			}
		}
		return len(b)
	case 'O':
		return min(2, len(b))
	}
	i := 0
	for i < len(b) && b[i] >= 0x20 && b[i] <= 0x2f {
		i++
	}
	if i < len(b) {
		_, n := utf8.DecodeRune(b[i:])
		i += n
	}
	return i
}
