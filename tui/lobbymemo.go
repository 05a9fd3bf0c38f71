package tui

import "charm.land/lipgloss/v2"

// frameMemo is the lobby's last boxed screen and what it was drawn from.
// Bubble Tea asks for the view after every message, each key included, and
// boxing, centring and the chat pane are most of a lobby key's cost (0.3–1
// ms), while most keys a flood or a typist sends (text no menu uses, a key
// into a list's end) leave the screen as it was. The body is still built
// each time; it is cheap, and comparing it is what makes the memo safe.
type frameMemo struct {
	ok   bool
	body string
	w, h int
	chat paneSig
	geo  uint64 // the pane's geometry as the drawing reported it
	out  string
}

// paneSig is everything the lobby's chat pane is drawn from, but its size,
// which follows from the body and the terminal.
type paneSig struct {
	added          uint64
	n              int
	first          *chatLine // the lines' array: replaced lines show here
	header, marker string
	prompt, muted  string
	typing         bool
	scroll         int
}

func (cs *chatState) sig() paneSig {
	s := paneSig{added: cs.added, n: len(cs.lines), header: cs.header(), marker: cs.marker(),
		muted: cs.muted, typing: cs.typing, scroll: cs.scroll}
	if len(cs.lines) > 0 {
		s.first = &cs.lines[0]
	}
	if cs.typing {
		s.prompt = cs.prompt()
	}
	return s
}

// frame boxes a screen's body and centres it, drawing it again only when
// the body, the terminal's size or the chat pane changed.
func (m *Lobby) frame(body string) string {
	var sig paneSig
	if m.chat != nil {
		sig = m.chat.sig()
	}
	if c := &m.memo; c.ok && c.w == m.w && c.h == m.h && c.chat == sig && c.body == body {
		if m.chat != nil {
			// A room's pane may have reported its own size since: the
			// lobby's is on screen again.
			m.chat.geo.Store(c.geo)
		}
		return c.out
	}
	out := m.drawFrame(body)
	m.memo = frameMemo{ok: true, body: body, w: m.w, h: m.h, chat: sig, out: out}
	if m.chat != nil {
		m.memo.geo = m.chat.geo.Load()
	}
	return out
}

// boxMemo is the last body drawBox boxed, so that typing into the chat
// line, which changes the pane below the box, does not box the menu again.
type boxMemo struct {
	boxBody, boxOut string
	boxW, boxH      int // the box's size, boxSize the terminal's
	boxSize         [2]int
}

// box is drawBox's box for body, and its width and height.
func (m *Lobby) box(body string) (string, int, int) {
	c := &m.boxed
	if c.boxOut == "" || c.boxSize != [2]int{m.w, m.h} || c.boxBody != body {
		out := m.drawBox(body)
		*c = boxMemo{boxBody: body, boxOut: out, boxW: lipgloss.Width(out), boxH: lipgloss.Height(out), boxSize: [2]int{m.w, m.h}}
	}
	return c.boxOut, c.boxW, c.boxH
}
