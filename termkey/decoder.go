// Package termkey decodes the keys a player's terminal sends into Bubble
// Tea key messages, with a few hundred bytes of state a session.
//
// Bubble Tea's own reader (ultraviolet) builds a key table of ≈106 KB for
// every program it starts, and a session used to keep one alive for its
// whole life. A terminal sends few kinds of keys: printable text (UTF-8),
// C0 controls (Enter, Tab, Backspace, Esc, Ctrl-letter), Alt as an Esc
// prefix, cursor and editing keys as CSI or SS3 sequences with xterm
// modifiers, the kitty keyboard protocol's CSI-u keys with their press,
// repeat and release events, and bracketed paste. Those are decoded here
// to the same tea.Key values ultraviolet gives (its decoder is the
// reference in the tests); anything else (replies to queries, mouse
// reports, unknown sequences) is dropped whole.
//
// The input has been bounded by inputguard before it reaches the decoder:
// sequences are complete and short, pastes capped.
package termkey

import (
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// Event is one decoded input: a key press (or repeat), a key release (only
// a kitty-protocol terminal reports them), or a bracketed paste.
type Event struct {
	Key     tea.Key
	Release bool
	Paste   bool   // a bracketed paste: Text is its content
	Text    string // the paste's content
}

// Msg is the event as Bubble Tea delivers it to a model.
func (e Event) Msg() tea.Msg {
	switch {
	case e.Paste:
		return tea.PasteMsg{Content: e.Text}
	case e.Release:
		return tea.KeyReleaseMsg(e.Key)
	}
	return tea.KeyPressMsg(e.Key)
}

// maxPending bounds what the decoder keeps of an unfinished sequence or
// paste between two reads; inputguard caps pastes well below it.
const maxPending = 64 << 10

// Decoder turns a byte stream into events. It keeps an unfinished paste or
// escape sequence for the next Decode. Not safe for concurrent use.
type Decoder struct {
	pend    []byte
	inPaste bool
	paste   []byte
}

var (
	pasteStart = []byte("\x1b[200~")
	pasteEnd   = []byte("\x1b[201~")
)

// Decode decodes p (and what an earlier call left unfinished), calling
// emit for each event in order. A lone Esc at the end of p is the Esc key:
// inputguard holds a short escape back until its sequence is whole.
func (d *Decoder) Decode(p []byte, emit func(Event)) {
	buf := p
	if len(d.pend) > 0 {
		buf = append(d.pend, p...)
		d.pend = nil
	}
	for len(buf) > 0 {
		if d.inPaste {
			i := index(buf, pasteEnd)
			if i < 0 {
				// Keep a possible start of the end marker for the next read.
				keep := min(len(buf), len(pasteEnd)-1)
				d.paste = appendCapped(d.paste, buf[:len(buf)-keep])
				d.pend = append([]byte(nil), buf[len(buf)-keep:]...)
				return
			}
			d.paste = appendCapped(d.paste, buf[:i])
			emit(Event{Paste: true, Text: string(d.paste)})
			d.inPaste, d.paste = false, nil
			buf = buf[i+len(pasteEnd):]
			continue
		}
		n, ev, ok := decodeOne(buf)
		if n == 0 { // unfinished sequence: wait for the rest
			if len(buf) < maxPending {
				d.pend = append([]byte(nil), buf...)
			}
			return
		}
		if ok && ev.Paste {
			d.inPaste = true
		} else if ok {
			emit(ev)
		}
		buf = buf[n:]
	}
}

func appendCapped(dst, b []byte) []byte {
	if room := maxPending - len(dst); room < len(b) {
		b = b[:max(room, 0)]
	}
	return append(dst, b...)
}

func index(b, sub []byte) int {
	for i := 0; i+len(sub) <= len(b); i++ {
		if string(b[i:i+len(sub)]) == string(sub) {
			return i
		}
	}
	return -1
}

// decodeOne decodes the event at the start of b: n bytes used (0: b ends
// inside a sequence), and ok when they make an event (a paste start is
// returned as an event with Paste set and no text).
func decodeOne(b []byte) (n int, ev Event, ok bool) {
	c := b[0]
	switch {
	case c == 0x1b:
		if len(b) == 1 {
			return 1, key(tea.Key{Code: tea.KeyEscape}), true
		}
		switch b[1] {
		case '[':
			return csi(b)
		case 'O':
			return ss3(b)
		case ']', 'P', '_', '^', 'X':
			return skipString(b)
		}
		// Alt: Esc before a key.
		n, ev, ok := decodeOne(b[1:])
		if n == 0 {
			return 0, Event{}, false
		}
		if !ok || ev.Paste || ev.Release {
			return 1, key(tea.Key{Code: tea.KeyEscape}), true
		}
		ev.Key.Text = ""
		ev.Key.Mod |= tea.ModAlt
		return n + 1, ev, true
	case c < 0x20 || c == 0x7f || c == ' ':
		return 1, key(control(c)), true
	case c >= 0x80 && c < 0xc0:
		return 1, Event{}, false // a stray continuation byte
	case c < 0x80:
		k := tea.Key{Code: rune(c), Text: runeText(rune(c))}
		if unicode.IsUpper(k.Code) {
			k.Code, k.ShiftedCode, k.Mod = unicode.ToLower(k.Code), k.Code, tea.ModShift
		}
		return 1, key(k), true
	}
	if !utf8.FullRune(b) {
		return 0, Event{}, false
	}
	r, size := utf8.DecodeRune(b)
	if r == utf8.RuneError {
		return 1, Event{}, false
	}
	return size, key(tea.Key{Code: r, Text: string(r)}), true
}

func key(k tea.Key) Event { return Event{Key: k} }

// printable is the printable ASCII characters, space to tilde, in order.
const printable = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"

// runeText is r as a string: a printable ASCII character is a slice of
// printable, not a string allocated for every key typed.
func runeText(r rune) string {
	if r >= ' ' && r <= '~' {
		return printable[r-' ' : r-' '+1]
	}
	return string(r)
}

// control is a C0 control byte (or Space, or DEL) as a key.
func control(c byte) tea.Key {
	switch c {
	case 0:
		return tea.Key{Code: tea.KeySpace, Mod: tea.ModCtrl}
	case 0x08:
		return tea.Key{Code: 'h', Mod: tea.ModCtrl}
	case '\t':
		return tea.Key{Code: tea.KeyTab}
	case '\r':
		return tea.Key{Code: tea.KeyEnter}
	case 0x1b:
		return tea.Key{Code: tea.KeyEscape}
	case 0x7f:
		return tea.Key{Code: tea.KeyBackspace}
	case ' ':
		return tea.Key{Code: tea.KeySpace, Text: " "}
	case '\n':
		return tea.Key{Code: 'j', Mod: tea.ModCtrl}
	}
	if c <= 0x1a {
		return tea.Key{Code: rune(c + 0x60), Mod: tea.ModCtrl}
	}
	return tea.Key{Code: rune(c + 0x40), Mod: tea.ModCtrl}
}

// skipString drops an OSC, DCS, APC, PM or SOS string (a terminal's reply
// to a query): up to BEL or ST.
func skipString(b []byte) (int, Event, bool) {
	for i := 2; i < len(b); i++ {
		switch {
		case b[i] == 0x07:
			return i + 1, Event{}, false
		case b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\':
			return i + 2, Event{}, false
		}
	}
	return 0, Event{}, false
}

// param is one CSI parameter with its colon-separated sub-parameters.
type param struct {
	v [3]int // value and up to two sub-parameters; -1 = absent
	n int
}

func (p param) get(i, def int) int {
	if i >= p.n || p.v[i] < 0 {
		return def
	}
	return p.v[i]
}

// csi decodes ESC [ params intermediates final.
func csi(b []byte) (int, Event, bool) {
	i := 2
	var marker byte
	if i < len(b) && b[i] >= '<' && b[i] <= '?' {
		marker = b[i]
		i++
	}
	var ps [4]param
	np := 0
	cur := param{v: [3]int{-1, -1, -1}, n: 1}
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			if cur.n <= len(cur.v) {
				j := cur.n - 1
				if cur.v[j] < 0 {
					cur.v[j] = 0
				}
				if cur.v[j] < 1<<20 {
					cur.v[j] = cur.v[j]*10 + int(c-'0')
				}
			}
		case c == ':':
			cur.n++
		case c == ';':
			if np < len(ps) {
				ps[np] = cur
			}
			np++
			cur = param{v: [3]int{-1, -1, -1}, n: 1}
		case c >= 0x20 && c <= 0x2f: // an intermediate: no key of ours has one
			marker = c
		case c >= 0x40 && c <= 0x7e:
			if np < len(ps) {
				ps[np] = cur
			}
			np++
			if marker != 0 {
				return i + 1, Event{}, false // a reply (kitty flags, DA, …), a mouse report
			}
			ev, ok := csiKey(c, ps[:min(np, len(ps))])
			return i + 1, ev, ok
		default:
			return i + 1, Event{}, false // not a CSI after all
		}
	}
	return 0, Event{}, false
}

// cursorKeys are the keys of CSI and SS3 sequences with a letter final.
var cursorKeys = map[byte]rune{
	'A': tea.KeyUp, 'B': tea.KeyDown, 'C': tea.KeyRight, 'D': tea.KeyLeft,
	'H': tea.KeyHome, 'F': tea.KeyEnd, 'E': tea.KeyBegin,
	'P': tea.KeyF1, 'Q': tea.KeyF2, 'R': tea.KeyF3, 'S': tea.KeyF4,
}

// tildeKeys are the keys of CSI n ~.
var tildeKeys = map[int]rune{
	1: tea.KeyHome, 2: tea.KeyInsert, 3: tea.KeyDelete, 4: tea.KeyEnd,
	5: tea.KeyPgUp, 6: tea.KeyPgDown, 7: tea.KeyHome, 8: tea.KeyEnd,
	11: tea.KeyF1, 12: tea.KeyF2, 13: tea.KeyF3, 14: tea.KeyF4, 15: tea.KeyF5,
	17: tea.KeyF6, 18: tea.KeyF7, 19: tea.KeyF8, 20: tea.KeyF9, 21: tea.KeyF10,
	23: tea.KeyF11, 24: tea.KeyF12,
}

func csiKey(final byte, ps []param) (Event, bool) {
	switch final {
	case 'u':
		return kitty(ps)
	case 'Z':
		return key(tea.Key{Code: tea.KeyTab, Mod: tea.ModShift}), true
	case '~':
		n := ps[0].get(0, 0)
		if n == 200 {
			return Event{Paste: true}, true
		}
		code, ok := tildeKeys[n]
		if !ok {
			return Event{}, false
		}
		return withEvent(tea.Key{Code: code}, ps)
	}
	code, ok := cursorKeys[final]
	if !ok {
		return Event{}, false
	}
	return withEvent(tea.Key{Code: code}, ps)
}

// withEvent applies an xterm modifier (CSI 1;m X) and a kitty event type
// (CSI 1;m:e X) to a cursor or editing key.
func withEvent(k tea.Key, ps []param) (Event, bool) {
	if len(ps) < 2 {
		return key(k), true
	}
	if m := ps[1].get(0, 1); m > 1 {
		k.Mod = tea.KeyMod(m - 1) // xterm's bits, which Bubble Tea's follow
	}
	ev := key(k)
	switch ps[1].get(1, 1) {
	case 2:
		ev.Key.IsRepeat = true
	case 3:
		ev.Release = true
	}
	return ev, true
}

// kittyMod converts the kitty protocol's modifier bits to Bubble Tea's.
func kittyMod(m int) tea.KeyMod {
	var k tea.KeyMod
	for _, b := range [...]struct {
		bit int
		mod tea.KeyMod
	}{{1, tea.ModShift}, {2, tea.ModAlt}, {4, tea.ModCtrl}, {8, tea.ModSuper}, {16, tea.ModHyper}, {32, tea.ModMeta}, {64, tea.ModCapsLock}, {128, tea.ModNumLock}} {
		if m&b.bit != 0 {
			k |= b.mod
		}
	}
	return k
}

// kitty decodes CSI code[:shifted[:base]] ; mods[:event] ; text u.
func kitty(ps []param) (Event, bool) {
	var k tea.Key
	code := ps[0].get(0, 1)
	switch code {
	case 8, 127:
		k.Code = tea.KeyBackspace
	case 9:
		k.Code = tea.KeyTab
	case 13:
		k.Code = tea.KeyEnter
	case 27:
		k.Code = tea.KeyEscape
	case 0:
		k = tea.Key{Code: tea.KeySpace, Mod: tea.ModCtrl}
	default:
		switch {
		case code < 0x20:
			k = control(byte(code))
		case code >= 57344 && code <= 63743:
			return Event{}, false // kitty's functional keys: modifiers alone, keypad, media
		case !utf8.ValidRune(rune(code)):
			k.Code = utf8.RuneError
		default:
			k.Code = rune(code)
		}
	}
	if s := rune(ps[0].get(1, 0)); s != 0 && unicode.IsPrint(s) {
		k.ShiftedCode = s
	}
	if b := rune(ps[0].get(2, 0)); b != 0 && unicode.IsPrint(b) {
		k.BaseCode = b
	}
	release := false
	if len(ps) > 1 {
		if m := ps[1].get(0, 1); m > 1 {
			k.Mod = kittyMod(m - 1)
		}
		switch ps[1].get(1, 1) {
		case 2:
			k.IsRepeat = true
		case 3:
			release = true
		}
	}
	if len(ps) > 2 {
		for _, t := range ps[2].v[:min(ps[2].n, len(ps[2].v))] {
			if t > 0 && utf8.ValidRune(rune(t)) {
				k.Text += string(rune(t))
			}
		}
	}
	mod := k.Mod &^ tea.ModNumLock
	printMod := mod <= tea.ModShift || mod == tea.ModCapsLock || mod == tea.ModShift|tea.ModCapsLock
	if k.Text == "" && unicode.IsPrint(k.Code) && printMod {
		switch {
		case mod == 0:
			k.Text = runeText(k.Code)
		case k.ShiftedCode != 0:
			k.Text = runeText(k.ShiftedCode)
		case mod.Contains(tea.ModShift) || mod.Contains(tea.ModCapsLock):
			k.Text = runeText(unicode.ToUpper(k.Code))
		default:
			k.Text = runeText(unicode.ToLower(k.Code))
		}
	}
	return Event{Key: k, Release: release}, true
}

// ss3 decodes ESC O final (application cursor keys, F1–F4).
func ss3(b []byte) (int, Event, bool) {
	if len(b) < 3 {
		return 0, Event{}, false
	}
	code, ok := cursorKeys[b[2]]
	if !ok {
		return 3, Event{}, false
	}
	return 3, key(tea.Key{Code: code}), true
}
