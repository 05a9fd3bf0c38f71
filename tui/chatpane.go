package tui

import (
	"context"
	"fmt"
	"hash/fnv"
	"image/color"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/termarena/termarena/chat"
	"github.com/termarena/termarena/sanitize"
)

// The chat pane's state belongs to the Bubble Tea Update: the subscription,
// the scrollback and the input line. The room view, which draws on its own
// goroutine, only ever sees an immutable snapshot published through an
// atomic pointer, so neither side waits for the other.

const (
	// chatScrollback bounds what one session remembers: a busy lobby must
	// not grow a session's memory.
	chatScrollback = 200
	// chatSnapLines is how many lines a snapshot carries: more than any
	// pane shows, few enough that publishing one is a small copy.
	chatSnapLines = 64
	// chatLobbyRows is the tallest the lobby pane gets on an ordinary
	// terminal (a tall one gets a third of its height): chat is beside the
	// menu, not the point of it.
	chatLobbyRows = 10
	// chatLobbyWidth is the width the lobby pane asks for when the menu
	// box is narrower, so lines are not cut at 40 columns.
	chatLobbyWidth = 64
	// chatFullRows is the least height that holds a header and three lines;
	// below it the pane shrinks to one line (the prompt or a marker).
	chatFullRows = 4
	// bannerFor is how long a notice from the server (an announcement, a
	// moderator's warning) stays across the top of a game screen, where
	// the chat pane may not be shown at all.
	bannerFor = 8 * time.Second
)

// muteEndedText is the pane's own notice when the player's mute runs out
// (chat itself says so when a moderator lifts one).
const muteEndedText = "your mute has ended: you can chat again"

// chatStyle says how a piece of a chat line looks; each screen maps it to
// its own styles (lipgloss in the lobby, palette entries in the room view).
type chatStyle uint8

const (
	csText chatStyle = iota
	csDim
	csSystem
	csModeration
	csWhisper
	csSelf
	csTeam
	csName0 // csName0+i: a name's colour, chosen by hashing the name
)

const chatNameColors = 8

// chatNameColor is the i-th colour names are drawn in. None is the green of
// your own name, the amber of moderation or the magenta of whispers.
func chatNameColor(i int) color.Color {
	switch i {
	case 0:
		return lipgloss.Color("#F472B6")
	case 1:
		return lipgloss.Color("#38BDF8")
	case 2:
		return lipgloss.Color("#A78BFA")
	case 3:
		return lipgloss.Color("#FB923C")
	case 4:
		return lipgloss.Color("#2DD4BF")
	case 5:
		return lipgloss.Color("#FB7185")
	case 6:
		return lipgloss.Color("#818CF8")
	default:
		return lipgloss.Color("#93C5FD")
	}
}

// nameStyle picks a name's colour from the name alone, so everyone sees
// bob in the same colour in every session and across reconnects.
func nameStyle(name string) chatStyle {
	h := fnv.New32a()
	_, _ = h.Write([]byte(strings.ToLower(name)))
	return csName0 + chatStyle(h.Sum32()%chatNameColors)
}

// chatSeg is a run of text in one style; the text is sanitised.
type chatSeg struct {
	text string
	st   chatStyle
}

// chatLine is one formatted message. It is never modified once built, so
// snapshots share lines with the scrollback.
type chatLine []chatSeg

// ChatLines is a snapshot of the chat pane for the room view: built by the
// lobby model whenever something on the pane changes, never modified after,
// and compared by pointer so an unchanged pane costs a frame nothing.
type ChatLines struct {
	lines  []chatLine // oldest first
	header string     // "chat · room r3 · 2 new · t/enter to type"
	prompt string     // the input line while typing ("" otherwise)
	typing bool
	status string // the reader's own mute, with the time left
	marker string // the footer's note when the pane does not fit
	// scroll is how many rows above the newest the pane shows (0: the
	// newest, live). geo is where the pane that draws it reports its size.
	scroll int
	geo    *atomic.Uint64
	// banner is a notice for the top of a game screen until bannerUntil.
	banner      string
	bannerUntil time.Time
}

type (
	// chatMsg wakes the model when its subscription has messages.
	chatMsg struct{ sub *chat.Sub }
	// chatActMsg carries what ChatAct said about a moderation action.
	chatActMsg struct {
		line string
		auto bool
	}
)

// chatState is one session's chat.
type chatState struct {
	c   *chat.Chat
	me  chat.Member
	act func(chat.ModAction) string
	// local takes the commands the lobby answers itself (/challenge…:
	// chatcommands.go) before chat sees the line; ok false passes it on.
	local func(text string) (cmd tea.Cmd, ok bool)
	ctx   context.Context
	now   func() time.Time

	sub    *chat.Sub
	closed bool
	joined time.Time
	missed uint64

	main   chat.ChannelKey // where typed text goes
	team   chat.ChannelKey // a 2v2 team's channel, or ""
	toTeam bool
	where  string // main's label: "lobby", "room r3", "watch r3"
	hint   string // how to start typing where the player is

	lines []chatLine
	// away holds the lobby's lines while the player is elsewhere, so the
	// lobby pane comes back as it was: the pane shows one channel's lines
	// under its name, never the previous channel's.
	away   []chatLine
	unread int
	typing bool
	input  []rune
	cut    bool // the input reached chat.MaxText and the player was told
	muted  string
	// muteUntil is when the mute shown ends (zero: until lifted), so
	// that the pane can tell a mute that ran out from one lifted early,
	// which chat announces itself.
	muteUntil time.Time

	// scroll is how many rows back from the newest the player has paged
	// (0: live); below counts lines that arrived meanwhile. The pane that
	// draws the chat reports its size in geo, so a page is what is on
	// screen and new lines keep the rows in view where they were.
	scroll int
	below  int
	geo    atomic.Uint64
	wrap   chatWrapper

	banner      string
	bannerUntil time.Time

	dirty bool
	snap  atomic.Pointer[ChatLines]
	// added counts lines ever added: with the slice's length and array it
	// tells the lobby's cached screen (frameMemo) whether lines changed.
	added uint64
}

func newChatState(d LobbyDeps) *chatState {
	ctx := d.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	cs := &chatState{c: d.Chat, me: d.ChatMember, act: d.ChatAct, ctx: ctx, now: time.Now,
		main: chat.LobbyChannel, where: "lobby", hint: "t to chat"}
	cs.snap.Store(&ChatLines{})
	return cs
}

// join subscribes the session; called once, from Init.
func (cs *chatState) join() tea.Cmd {
	if cs.sub != nil || cs.closed {
		return nil
	}
	cs.joined = cs.now()
	cs.sub = cs.c.Join(cs.me, chat.LobbyChannel)
	cs.refreshMute()
	cs.dirty = true
	return cs.wait()
}

// wait returns a command that blocks until the subscription has messages.
// It ends when the subscription is closed or the session ends, so it never
// outlives the session.
func (cs *chatState) wait() tea.Cmd {
	sub, ctx := cs.sub, cs.ctx
	if sub == nil || cs.closed {
		return nil
	}
	return waitFor(WaitMsg{Until: sub.Messages(), Stop: ctx.Done(), Then: func(ok bool) tea.Msg {
		if !ok {
			return nil
		}
		return chatMsg{sub}
	}})
}

func (cs *chatState) close() {
	if cs.closed {
		return
	}
	cs.closed = true
	if cs.sub != nil {
		cs.sub.Close()
	}
}

// drain takes what arrived into the scrollback.
func (cs *chatState) drain() {
	msgs := cs.sub.Drain()
	if n := cs.sub.Missed(); n > cs.missed {
		cs.system(fmt.Sprintf("%d messages were skipped (this session fell behind)", n-cs.missed))
		cs.missed = n
	}
	for _, msg := range msgs {
		switch {
		case msg.Channel == "" || msg.Channel == chat.WhisperChannel || msg.Channel == cs.main || msg.Channel == cs.team:
		case msg.Channel == chat.LobbyChannel:
			// Said in the lobby before the player left it, read after.
			cs.away = appendBounded(cs.away, cs.format(msg))
			continue
		default:
			continue // a room or watch channel the player has left
		}
		cs.add(cs.format(msg))
		if !cs.typing && msg.FromID != cs.me.ID && !msg.Time.Before(cs.joined) {
			cs.unread++
		}
		if msg.Kind == chat.Moderation || msg.Kind == chat.Notice {
			cs.refreshMute() // a mute or unmute is announced this way
		}
	}
}

func (cs *chatState) add(l chatLine) {
	if cs.scroll > 0 {
		// Scrolled back: the rows in view stay where they are.
		if w, _, grid := cs.geometry(); w > 0 {
			cs.wrap.grid = grid
			cs.scroll += len(cs.wrap.wrap(nil, l, w))
		}
		cs.below++
	}
	cs.lines = append(cs.lines, l)
	if over := len(cs.lines) - chatScrollback; over > 0 {
		cs.lines = slices.Delete(cs.lines, 0, over)
	}
	cs.added++
	cs.dirty = true
}

// system adds a line from the server or the pane itself.
func (cs *chatState) system(text string) {
	cs.add(chatLine{{"— " + sanitize.Text(text, 0), csSystem}})
}

// format turns a message into a line. Every piece is sanitised again here:
// chat already did, but the pane is what stands between a stranger's text
// and the player's terminal, so it does not rely on that.
func (cs *chatState) format(msg chat.Message) chatLine {
	text := sanitize.Text(msg.Text, 0)
	from := sanitize.Text(msg.From, 0)
	self := msg.FromID != "" && msg.FromID == cs.me.ID
	name := chatSeg{from, nameStyle(from)}
	if self {
		name.st = csSelf
	}
	var l chatLine
	if msg.Channel != "" && msg.Channel == cs.team {
		l = append(l, chatSeg{"[team] ", csTeam})
	}
	switch msg.Kind {
	case chat.System, chat.Notice:
		return append(l, chatSeg{"— " + text, csSystem})
	case chat.Moderation:
		return append(l, chatSeg{"— " + text, csModeration})
	case chat.Whisper:
		if self {
			to := sanitize.Text(msg.To, 0)
			return append(l, chatSeg{"to ", csWhisper}, chatSeg{to, nameStyle(to)}, chatSeg{" (whisper): ", csWhisper}, chatSeg{text, csText})
		}
		return append(l, chatSeg{"from ", csWhisper}, name, chatSeg{" (whisper): ", csWhisper}, chatSeg{text, csText})
	case chat.Me:
		return append(l, chatSeg{"* ", csText}, name, chatSeg{" " + text, csText})
	}
	return append(l, name, chatSeg{": ", csDim}, chatSeg{text, csText})
}

// setChannels moves the subscription to where the player is now; nothing
// happens when that is where it already is.
func (cs *chatState) setChannels(main, team chat.ChannelKey, where, hint string) {
	if cs.hint != hint {
		cs.hint, cs.dirty = hint, true
	}
	if cs.sub == nil || cs.closed || (main == cs.main && team == cs.team) {
		return
	}
	chans := []chat.ChannelKey{main}
	if team != "" {
		chans = append(chans, team)
	}
	cs.sub.SetChannels(chans...)
	if main != cs.main {
		// The pane shows what was said where the header says, and counts
		// only that as new: the lobby's lines wait for the player's
		// return, a room's go with the room.
		if cs.main == chat.LobbyChannel {
			cs.away, cs.lines = cs.lines, nil
		} else {
			cs.lines = nil
		}
		if main == chat.LobbyChannel {
			cs.lines, cs.away = cs.away, nil
		}
		cs.unread = 0
	}
	cs.main, cs.team, cs.where = main, team, where
	cs.toTeam = cs.toTeam && team != ""
	cs.live() // the header says where chat is now; a line saying so is noise
}

// appendBounded appends l, keeping the newest chatScrollback lines.
func appendBounded(lines []chatLine, l chatLine) []chatLine {
	lines = append(lines, l)
	if over := len(lines) - chatScrollback; over > 0 {
		lines = slices.Delete(lines, 0, over)
	}
	return lines
}

// target is the channel typed text goes to.
func (cs *chatState) target() chat.ChannelKey {
	if cs.toTeam && cs.team != "" {
		return cs.team
	}
	return cs.main
}

// tick is the pane's once-a-second work: the mute's time left, and
// dropping a banner whose time is up (the view stops showing it by
// itself; this spares it the check).
// counting says whether the pane shows something that runs out on the
// clock: a mute with an end (its countdown) or a banner. Only then does
// the lobby tick (Lobby.wantsClock); a mute or unmute itself is announced
// by chat, which wakes the session.
func (cs *chatState) counting() bool {
	return (cs.muted != "" && !cs.muteUntil.IsZero()) || cs.banner != ""
}

func (cs *chatState) tick() {
	cs.refreshMute()
	if cs.banner != "" && !cs.now().Before(cs.bannerUntil) {
		cs.banner, cs.dirty = "", true
	}
}

// refreshMute reads the player's mute; the line counts down, so it is
// re-read every second.
func (cs *chatState) refreshMute() {
	line, now := "", cs.now()
	until, reason, ok := cs.c.Muted(cs.me.ID, now)
	if ok {
		line = "you are muted until a moderator lifts it"
		if !until.IsZero() {
			line = "you are muted for " + chat.FormatDuration(until.Sub(now))
		}
		if reason != "" {
			line += ": " + sanitize.Text(reason, 0)
		}
	}
	if line == cs.muted {
		return
	}
	if !ok && cs.muted != "" && !cs.muteUntil.IsZero() && !now.Before(cs.muteUntil) {
		// It ran out. A mute lifted early is announced by chat itself.
		cs.add(chatLine{{"— " + muteEndedText, csSystem}})
	}
	cs.muted, cs.muteUntil, cs.dirty = line, until, true
}

// start opens the input line. A guest gets one too, though nothing they
// type is sent: people type after t whether or not chat takes their
// words, and without a line to take them "quick question" would quit
// (q) and "is anyone here?" open the help. The prompt says why.
func (cs *chatState) start() {
	cs.typing, cs.unread, cs.dirty = true, 0, true
}

// key handles a key while typing: every key is the input's, none reaches
// the game or the menus.
func (cs *chatState) key(k tea.KeyPressMsg) tea.Cmd {
	cs.dirty = true
	switch k.String() {
	case "enter":
		return cs.send()
	case "esc":
		cs.typing, cs.input, cs.cut = false, cs.input[:0], false
		cs.live()
	case "pgup", "pgdown", "end":
		cs.scrollKey(k.String())
	case "backspace", "ctrl+h":
		if n := len(cs.input); n > 0 {
			cs.input = cs.input[:n-1]
		}
	case "ctrl+u":
		cs.input, cs.cut = cs.input[:0], false
	case "tab":
		if cs.team != "" {
			cs.toTeam = !cs.toTeam
		}
	default:
		if k.Mod&(tea.ModCtrl|tea.ModAlt) == 0 {
			cs.insert(k.Text)
		}
	}
	return nil
}

// insert appends printable runes up to the message limit. Graphic runes
// exclude every control, separator and format character sanitize removes,
// so what is typed is what chat will keep.
func (cs *chatState) insert(s string) {
	for _, r := range s {
		if len(cs.input) >= chat.MaxText {
			if !cs.cut {
				// A paste cut without a word reads as a bug: say so, once
				// per message.
				cs.cut = true
				cs.system(fmt.Sprintf("a message holds %d characters: the rest of what you typed or pasted was not kept", chat.MaxText))
			}
			return
		}
		switch r {
		case '\n', '\r', '\t':
			r = ' '
		}
		if unicode.IsGraphic(r) && r != utf8.RuneError {
			cs.input = append(cs.input, r)
		}
	}
	cs.dirty = true
}

// send says the input line. Chat.Send only touches memory; a moderation
// action it returns goes to ChatAct, which writes to the store, in a
// command.
func (cs *chatState) send() tea.Cmd {
	text := string(cs.input)
	cs.typing, cs.input, cs.cut, cs.dirty = false, cs.input[:0], false, true
	cs.live()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if cs.me.Guest {
		cs.system(chat.GuestRefusal + " (your line was not sent)")
		return nil
	}
	if cs.local != nil {
		if cmd, ok := cs.local(text); ok {
			return cmd
		}
	}
	res := cs.c.Send(cs.me, cs.target(), text, cs.now())
	for _, r := range res.Reply {
		cs.add(cs.format(r))
	}
	cs.refreshMute()
	a := res.Action
	if a == nil {
		return nil
	}
	if cs.act == nil {
		if !a.Auto {
			cs.system("moderation is not available on this server")
		}
		return nil
	}
	act, action := cs.act, *a
	return func() tea.Msg { return chatActMsg{line: act(action), auto: action.Auto} }
}

// live returns the pane to the newest lines.
func (cs *chatState) live() {
	if cs.scroll != 0 || cs.below != 0 {
		cs.scroll, cs.below, cs.dirty = 0, 0, true
	}
}

// setGeometry records the size of a pane's rows of text: w cells by h
// rows, measured as the grid draws (grid) or as lipgloss does.
func setGeometry(geo *atomic.Uint64, w, h int, grid bool) {
	if geo == nil {
		return
	}
	v := uint64(uint32(w))<<32 | uint64(uint32(h))<<1
	if grid {
		v |= 1
	}
	if geo.Load() != v {
		geo.Store(v)
	}
}

// geometry is the size last recorded with setGeometry.
func (cs *chatState) geometry() (w, h int, grid bool) {
	v := cs.geo.Load()
	return int(v >> 32), int(uint32(v) >> 1), v&1 == 1
}

// scrollKey pages the pane: pgup back by a pane's rows less one (so one
// row stays for context), pgdown forward, end to the newest. It reports
// whether the key did anything: without a pane on screen the key is not
// chat's.
func (cs *chatState) scrollKey(key string) bool {
	w, h, grid := cs.geometry()
	if w <= 0 || h <= 0 {
		return false
	}
	page := max(h-1, 1)
	switch key {
	case "pgup":
		cs.wrap.grid = grid
		top := max(cs.wrap.count(cs.lines, w)-h, 0)
		cs.scroll = min(cs.scroll+page, top)
	case "pgdown":
		cs.scroll = max(cs.scroll-page, 0)
	case "end":
		cs.scroll = 0
	default:
		return false
	}
	if cs.scroll == 0 {
		cs.below = 0
	}
	cs.dirty = true
	return true
}

// announce puts a server notice across the top of the game screen for a
// while: chat is easy to miss during a game, and at 80×24 the pane is
// not even shown.
func (cs *chatState) announce(text string) {
	cs.banner = sanitize.Text(text, 0)
	cs.bannerUntil = cs.now().Add(bannerFor)
	cs.dirty = true
}

// label names where typed text goes, for the prompt.
func (cs *chatState) label() string {
	if cs.target() == cs.team && cs.team != "" {
		return "team"
	}
	return cs.where
}

func (cs *chatState) header() string {
	h := "chat · " + cs.where
	if cs.team != "" {
		h += " + team"
	}
	if cs.scroll > 0 {
		// Short: it has to fit a pane beside the board.
		h += " · ↑ history"
		if cs.below > 0 {
			h += fmt.Sprintf(" · %d new ↓", cs.below)
		}
		return h + " · end: live"
	}
	if cs.unread > 0 {
		h += fmt.Sprintf(" · %d new", cs.unread)
	}
	switch {
	case cs.typing && cs.me.Guest:
		return h + " · guests cannot chat: enter or esc back"
	case cs.typing && cs.team != "":
		return h + " · enter send · tab team/all · esc back"
	case cs.typing:
		return h + " · enter send · esc back"
	}
	return h + " · " + cs.hint
}

func (cs *chatState) prompt() string {
	if cs.me.Guest {
		return "not sent (guests cannot chat)> " + string(cs.input) + "▏"
	}
	return cs.label() + "> " + string(cs.input) + "▏"
}

// marker is the one-line note shown where the pane does not fit.
func (cs *chatState) marker() string {
	if cs.unread > 0 {
		return fmt.Sprintf("chat (%d new) · t", cs.unread)
	}
	return "t chat"
}

// publish hands the room view a new snapshot when the pane changed.
func (cs *chatState) publish() {
	if !cs.dirty {
		return
	}
	cs.dirty = false
	n := min(len(cs.lines), chatSnapLines)
	if cs.scroll > 0 {
		n = len(cs.lines) // paging back may reach the oldest
	}
	cl := &ChatLines{
		lines:       slices.Clone(cs.lines[len(cs.lines)-n:]),
		header:      cs.header(),
		typing:      cs.typing,
		status:      cs.muted,
		marker:      cs.marker(),
		scroll:      cs.scroll,
		geo:         &cs.geo,
		banner:      cs.banner,
		bannerUntil: cs.bannerUntil,
	}
	if cs.typing {
		cl.prompt = cs.prompt()
	}
	cs.snap.Store(cl)
}

// feed is what the room view calls each frame: one atomic load.
func (cs *chatState) feed() *ChatLines { return cs.snap.Load() }

// render draws the lobby pane in at most w×h cells (and at most maxH
// rows): a header, the newest lines and the input or mute line when there
// is room for three lines, one line (the input, the mute or an unread
// marker) when there is not.
func (cs *chatState) render(w, h, maxH int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	var foot []string
	if cs.muted != "" {
		foot = append(foot, style(colWarn).Render(sanitize.Truncate(cs.muted, w)))
	}
	if cs.typing {
		foot = append(foot, lipgloss.NewStyle().Bold(true).Foreground(colText).Render(tail(cs.prompt(), w)))
	}
	if h < chatFullRows {
		setGeometry(&cs.geo, 0, 0, false) // no rows to page through
		line := style(colDim).Render(sanitize.Truncate(cs.marker(), w))
		if len(foot) > 0 {
			line = foot[len(foot)-1]
		}
		return lipgloss.NewStyle().Width(w).Render(line)
	}
	h = min(h, maxH)
	rows := make([]string, 0, h)
	rows = append(rows, style(colDim).Render(rule(cs.header(), w)))
	n := max(h-1-len(foot), 0)
	cs.wrap.grid = false
	body, _ := cs.wrap.rows(cs.lines, w, n, cs.scroll)
	setGeometry(&cs.geo, w, n, false)
	for range n - len(body) {
		rows = append(rows, "") // lines sit on the input, newest last
	}
	for _, l := range body {
		rows = append(rows, renderChatLine(l, w))
	}
	rows = append(rows, foot...)
	return lipgloss.NewStyle().Width(w).Render(strings.Join(rows, "\n"))
}

// rule is a header line "─ text ───…" exactly w cells wide.
func rule(text string, w int) string {
	s := sanitize.Truncate("─ "+text+" ", w)
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s += strings.Repeat("─", pad)
	}
	return s
}

// tail keeps the end of s (where the cursor is) in w cells.
func tail(s string, w int) string {
	if over := ansi.StringWidth(s) - w; over > 0 {
		return ansi.TruncateLeft(s, over+1, "…")
	}
	return s
}

// renderChatLine styles a line cut to w cells with sanitize.Truncate. The
// segments are sanitised, so the cut text is a prefix of their
// concatenation and can be split back along them.
func renderChatLine(l chatLine, w int) string {
	var plain strings.Builder
	for _, sg := range l {
		plain.WriteString(sg.text)
	}
	full := plain.String()
	cut := sanitize.Truncate(full, w)
	keep, ell := len(cut), ""
	if cut != full {
		keep, ell = len(strings.TrimSuffix(cut, "…")), "…"
	}
	var b strings.Builder
	last := csText
	for _, sg := range l {
		if keep <= 0 {
			break
		}
		t := sg.text[:min(len(sg.text), keep)]
		keep -= len(t)
		b.WriteString(chatLipStyle(sg.st).Render(t))
		last = sg.st
	}
	if ell != "" {
		b.WriteString(chatLipStyle(last).Render(ell))
	}
	return b.String()
}

func chatLipStyle(st chatStyle) lipgloss.Style {
	switch {
	case st == csDim:
		return style(colDim)
	case st == csSystem:
		return style(colDim).Italic(true)
	case st == csModeration:
		return style(colWarn)
	case st == csWhisper:
		return style(colWhisper).Italic(true)
	case st == csSelf:
		return lipgloss.NewStyle().Bold(true).Foreground(colGood)
	case st == csTeam:
		return style(colAccent)
	case st >= csName0 && st < csName0+chatNameColors:
		return style(chatNameColor(int(st - csName0)))
	}
	return style(colText)
}

// chatFeed is the room view's Chat hook, or nil without chat (the view
// then draws exactly what it drew before chat existed).
func (m *Lobby) chatFeed() func() *ChatLines {
	if m.chat == nil {
		return nil
	}
	return m.chat.feed
}

func (m *Lobby) closeChat() {
	if m.chat != nil {
		m.chat.close()
	}
}

// syncChat puts the subscription where the player is: a room's players
// talk in the room (and a 2v2 team in its own channel), watchers only among
// themselves (a ranked room's players must not hear them, and the rule is
// the same for every room so nobody has to guess), everyone else in the
// lobby.
func (m *Lobby) syncChat() {
	if m.play != nil {
		m.play.chatAt(m.chat)
		return
	}
	m.chat.setChannels(chat.LobbyChannel, "", "lobby", "t to chat")
}

// gameScreen reports whether a game screen is up (a seat, a watch, a
// replay): news goes to its banner, as it shows no notice line.
func (m *Lobby) gameScreen() bool { return m.play != nil }

// startsChat reports whether key s opens the input line on the menu page
// shown: only t does (Enter joins the selected room; on a game screen
// chatKey decides). The join-code screen takes every letter, t included,
// and the create dialog and the ranked picker are modal: their keys are
// theirs and the games' modes' (light cycles' ranked mode is t), which
// CheckModeKeys keeps apart.
func (m *Lobby) startsChat(s string) bool {
	if _, ok := m.scr.(modal); ok && m.state == stMenu {
		return false
	}
	return s == "t"
}
