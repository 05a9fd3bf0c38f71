package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/termarena/termarena/chat"
	"github.com/termarena/termarena/game"
)

// rightHalf marks the cell a wide rune's right half takes.
const rightHalf rune = -1

// wideCells reads the emulator as a terminal that draws wide runes two
// cells wide shows it. vt10x draws every rune one cell wide, but the grid
// addresses the cell after a wide rune absolutely, so every rune lands in
// its column and the cell after a wide rune is its right half.
func wideCells(out *vtWriter) [][]rune {
	out.mu.Lock()
	defer out.mu.Unlock()
	w, h := out.vt.Size()
	rows := make([][]rune, h)
	for y := range h {
		rows[y] = make([]rune, w)
		for x := 0; x < w; x++ {
			r := out.vt.Cell(x, y).Char
			if r == 0 {
				r = ' '
			}
			rows[y][x] = r
			if ansi.StringWidthWc(string(r)) == 2 && x+1 < w {
				x++
				rows[y][x] = rightHalf
			}
		}
	}
	return rows
}

// wideText is one row of wideCells as text.
func wideText(row []rune) string {
	var b strings.Builder
	for _, r := range row {
		if r != rightHalf {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func wideScreen(out *vtWriter) string {
	var rows []string
	for _, r := range wideCells(out) {
		rows = append(rows, wideText(r))
	}
	return strings.Join(rows, "\n")
}

// paneText is the text of the pane's rows below its header, trimmed, one
// row a line, with a check that no row has half a wide rune at the pane's
// edges.
func paneText(t *testing.T, v *RoomView, out *vtWriter) []string {
	t.Helper()
	p := v.chat.pane
	if p.h == 0 {
		t.Fatal("no chat pane")
	}
	var rows []string
	cells := wideCells(out)
	for y := p.y + 1; y < p.y+p.h; y++ {
		row := cells[y][p.x : p.x+p.w]
		if row[0] == rightHalf || (p.x+p.w < len(cells[y]) && cells[y][p.x+p.w] == rightHalf) {
			t.Fatalf("row %d has half a wide rune at the pane's edge: %q", y, wideText(cells[y]))
		}
		rows = append(rows, strings.TrimRight(wideText(row), " "))
	}
	return rows
}

// roomWithChat is a room view at w×h drawing m's chat on a fixed clock.
func roomWithChat(t *testing.T, m *Lobby, w, h int, clock *time.Time) (*RoomView, *vtWriter) {
	t.Helper()
	_, fr := match1v1(t, 90)
	out := newVT(w, h)
	v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(fr), Me: "a", Slot: 0, Title: "r1 · 1v1 · casual", Out: out,
		Profile: colorprofile.ANSI256, Width: w, Height: h, Now: func() time.Time { return *clock }, Chat: m.chatFeed()})
	v.in.frAt = *clock
	v.setFrame(fr, *clock)
	v.draw()
	return v, out
}

func say(t *testing.T, c *chat.Chat, from chat.Member, texts ...string) {
	t.Helper()
	for _, text := range texts {
		if r := c.Send(from, chat.LobbyChannel, text, time.Now()); !r.Delivered {
			t.Fatalf("%s's %q not delivered: %+v", from.Name, text, r.Reply)
		}
	}
}

// TestRoomChatPaneDrawsWideRunes: CJK and emoji in the room's chat pane are
// drawn as themselves, two cells each, and a line that does not fit wraps
// between wide runes, never through one.
func TestRoomChatPaneDrawsWideRunes(t *testing.T) {
	long := strings.Repeat("漢字かな", 12) + "😀"
	for _, size := range [][2]int{{80, 30}, {200, 50}} {
		c := newChat(t)
		m := chatLobby(t, c, chatMember("alice"), LobbyDeps{})
		bob := chatMember("bob")
		bs := c.Join(bob, chat.LobbyChannel)
		defer bs.Close()
		say(t, c, bob, "漢字と絵文字😀 ok", long)
		pumpChat(t, m)
		clock := time.Unix(1000, 0)
		v, out := roomWithChat(t, m, size[0], size[1], &clock)
		rows := paneText(t, v, out)
		all := strings.Join(rows, "\n")
		if !strings.Contains(all, "bob: 漢字と絵文字😀 ok") || strings.Contains(all, "?") {
			t.Fatalf("%v: wide runes not drawn:\n%s", size, wideScreen(out))
		}
		// The long line is all there, over the rows it needs.
		if got := joinFrom(rows, "bob: 漢字かな"); got != "bob: "+long {
			t.Fatalf("%v: the long line is not wrapped whole: %q\n%s", size, got, all)
		}
	}
}

// joinFrom joins the rows from the one starting with prefix to the end,
// each trimmed: a wrapped line as one string.
func joinFrom(rows []string, prefix string) string {
	for i, r := range rows {
		if strings.HasPrefix(r, prefix) {
			var b strings.Builder
			for _, r := range rows[i:] {
				b.WriteString(strings.TrimSpace(r))
			}
			return b.String()
		}
	}
	return ""
}

// TestUnmuteClearsTheMuteLineAndSaysSo: when a moderator lifts a mute, the
// "you are muted" line goes at once, in the lobby and on the game screen,
// and the player is told they can chat again; a mute that runs out says
// so too.
func TestUnmuteClearsTheMuteLineAndSaysSo(t *testing.T) {
	c := newChat(t)
	clock := time.Unix(1000, 0)
	alice := chatMember("alice")
	m := chatLobby(t, c, alice, LobbyDeps{})
	m.chat.now = func() time.Time { return clock }
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})
	c.SetMuted(alice.ID, clock.Add(10*time.Minute), "caps")
	m.Update(refreshMsg{})
	v, out := roomWithChat(t, m, 80, 30, &clock)
	if scr := wideScreen(out); !strings.Contains(scr, "you are muted for 10m: caps") {
		t.Fatalf("no mute line in the game:\n%s", scr)
	}

	c.LiftMute(alice.ID, clock) // what admin unmute and /unmute come down to
	pumpChat(t, m)
	v.draw()
	scr := wideScreen(out)
	if strings.Contains(scr, "you are muted") || !strings.Contains(scr, chat.UnmutedText) {
		t.Fatalf("after the unmute, the game screen shows:\n%s", scr)
	}
	if lobby := plain(m); strings.Contains(lobby, "you are muted") || !strings.Contains(lobby, chat.UnmutedText) {
		t.Fatalf("after the unmute, the lobby shows:\n%s", lobby)
	}
	// Talking works again.
	press(m, "t")
	typeText(m, "sorry")
	press(m, "enter")
	pumpChat(t, m)
	if lobby := plain(m); !strings.Contains(lobby, "alice: sorry") {
		t.Fatalf("could not talk after the unmute:\n%s", lobby)
	}

	// A mute that runs out: the line goes and the player is told, once.
	c.SetMuted(alice.ID, clock.Add(time.Minute), "")
	m.Update(refreshMsg{})
	clock = clock.Add(time.Minute)
	m.Update(refreshMsg{})
	m.Update(refreshMsg{})
	v.draw()
	scr = wideScreen(out)
	if strings.Contains(scr, "you are muted") || strings.Count(scr, muteEndedText) != 1 {
		t.Fatalf("after the mute ran out, the game screen shows:\n%s", scr)
	}
}

func pressKey(m *Lobby, code rune) { m.Update(tea.KeyPressMsg{Code: code}) }

// lobbyPane is the lobby's chat pane below its header, each row trimmed.
func lobbyPane(t *testing.T, m *Lobby) (header string, rows []string) {
	t.Helper()
	lines := strings.Split(plain(m), "\n")
	for i, l := range lines {
		if strings.Contains(l, "─ chat ·") {
			for _, r := range lines[i+1:] {
				rows = append(rows, strings.TrimSpace(r))
			}
			return l, rows
		}
	}
	t.Fatalf("no chat pane:\n%s", plain(m))
	return "", nil
}

const longSay = "this message is long enough that it cannot fit on one row of any pane, " +
	"so it has to wrap at the spaces between its words and every word must still be read whole"

// TestChatWrapsInsteadOfCutting: a long message is wrapped at its spaces in
// the lobby pane and the room pane, an over-long word is broken where the
// row ends, and nothing is cut off.
func TestChatWrapsInsteadOfCutting(t *testing.T) {
	word := strings.Repeat("abcdefghij", 9)
	c := newChat(t)
	m := chatLobby(t, c, chatMember("alice"), LobbyDeps{})
	bob := chatMember("bob")
	bs := c.Join(bob, chat.LobbyChannel)
	defer bs.Close()
	cjk := strings.Repeat("漢字かな", 9) + "😀"
	say(t, c, bob, cjk, longSay, word)
	pumpChat(t, m)
	// wide: the pane is tall enough to show the wide message too (the
	// pane under the board at 80×30 is not; TestRoomChatPaneDrawsWideRunes
	// covers it there).
	check := func(where string, rows []string, width int, wide bool) {
		t.Helper()
		for _, r := range rows {
			if n := ansi.StringWidth(r); n > width {
				t.Fatalf("%s: a row is %d cells wide, the pane %d: %q", where, n, width, r)
			}
		}
		if got := joinBetween(rows, "bob: 漢", "bob: this", ""); wide && got != "bob: "+cjk {
			t.Fatalf("%s: the wide message reads %q\n%s", where, got, strings.Join(rows, "\n"))
		}
		if got := strings.Join(strings.Fields(joinBetween(rows, "bob: this", "bob: "+word[:5], " ")), " "); got != "bob: "+longSay {
			t.Fatalf("%s: the long message reads %q\n%s", where, got, strings.Join(rows, "\n"))
		}
		if got := joinBetween(rows, "bob: "+word[:5], "", ""); got != "bob: "+word {
			t.Fatalf("%s: the long word reads %q\n%s", where, got, strings.Join(rows, "\n"))
		}
	}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		_, rows := lobbyPane(t, m)
		check(fmt.Sprintf("lobby %dx%d", size[0], size[1]), rows, min(size[0], chatLobbyWidth), true)
	}
	for _, size := range [][2]int{{80, 30}, {200, 50}} {
		clock := time.Unix(1000, 0)
		v, out := roomWithChat(t, m, size[0], size[1], &clock)
		check(fmt.Sprintf("room %dx%d", size[0], size[1]), paneText(t, v, out), v.chat.pane.w, size[0] > 80)
	}
}

// joinBetween joins the rows from the one starting with from up to the one
// starting with to (or the end), each trimmed, with sep between: a wrapped
// message as one text.
func joinBetween(rows []string, from, to, sep string) string {
	var parts []string
	for _, r := range rows {
		if len(parts) > 0 && to != "" && strings.HasPrefix(r, to) {
			break
		}
		if len(parts) > 0 || strings.HasPrefix(r, from) {
			parts = append(parts, strings.TrimSpace(r))
		}
	}
	return strings.Join(parts, sep)
}

// TestChatScrollsBack: PgUp pages back through what was said, with a marker
// while scrolled; new messages do not move the rows in view; End (or
// leaving the input line) returns to the newest.
func TestChatScrollsBack(t *testing.T) {
	setup := func(t *testing.T) (*chat.Chat, *Lobby, chat.Member) {
		c := newChat(t)
		m := chatLobby(t, c, chatMember("alice"), LobbyDeps{})
		bob := chatMember("bob")
		bs := c.Join(bob, chat.LobbyChannel)
		t.Cleanup(bs.Close)
		for i := 1; i <= 80; i++ { // two seconds apart: flood control lets them through
			if r := c.Send(bob, chat.LobbyChannel, fmt.Sprintf("line %02d", i), time.Now().Add(time.Duration(i)*2*time.Second)); !r.Delivered {
				t.Fatalf("line %d: %+v", i, r.Reply)
			}
		}
		pumpChat(t, m)
		return c, m, bob
	}
	type pane func() (header string, rows []string)
	run := func(t *testing.T, c *chat.Chat, m *Lobby, bob chat.Member, view pane) {
		t.Helper()
		_, rows := view()
		if !strings.Contains(strings.Join(rows, "\n"), "bob: line 80") {
			t.Fatalf("live pane lacks the newest line:\n%s", strings.Join(rows, "\n"))
		}
		pressKey(m, tea.KeyPgUp)
		header, back := view()
		if !strings.Contains(header, "↑ history") || strings.Contains(strings.Join(back, "\n"), "line 80") {
			t.Fatalf("after pgup: %s\n%s", header, strings.Join(back, "\n"))
		}
		// Someone talks: the rows in view stay, the marker counts it.
		if r := c.Send(bob, chat.LobbyChannel, "fresh news", time.Now().Add(time.Hour)); !r.Delivered {
			t.Fatalf("fresh news: %+v", r.Reply)
		}
		pumpChat(t, m)
		header, still := view()
		if strings.Join(still, "\n") != strings.Join(back, "\n") || !strings.Contains(header, "1 new ↓") {
			t.Fatalf("a new message moved the view: %s\n%s\nwas\n%s", header, strings.Join(still, "\n"), strings.Join(back, "\n"))
		}
		for range 40 {
			pressKey(m, tea.KeyPgUp)
		}
		if _, top := view(); !strings.Contains(strings.Join(top, "\n"), "bob: line 01") {
			t.Fatalf("pgup never reaches the oldest line:\n%s", strings.Join(top, "\n"))
		}
		pressKey(m, tea.KeyPgDown)
		pressKey(m, tea.KeyEnd)
		header, rows = view()
		if strings.Contains(header, "history") || !strings.Contains(strings.Join(rows, "\n"), "bob: fresh news") {
			t.Fatalf("after end: %s\n%s", header, strings.Join(rows, "\n"))
		}
		// Paging while typing, then leaving the input line, is live too.
		press(m, "t")
		pressKey(m, tea.KeyPgUp)
		if header, _ := view(); !strings.Contains(header, "↑ history") {
			t.Fatalf("pgup while typing: %s", header)
		}
		press(m, "esc")
		if header, rows := view(); strings.Contains(header, "history") || !strings.Contains(strings.Join(rows, "\n"), "fresh news") {
			t.Fatalf("after esc: %s\n%s", header, strings.Join(rows, "\n"))
		}
	}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("lobby %dx%d", size[0], size[1]), func(t *testing.T) {
			c, m, bob := setup(t)
			m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			press(m, "t") // in the lobby chat pages while the input line is open
			run(t, c, m, bob, func() (string, []string) { return lobbyPane(t, m) })
		})
	}
	for _, size := range [][2]int{{80, 30}, {200, 50}} {
		t.Run(fmt.Sprintf("room %dx%d", size[0], size[1]), func(t *testing.T) {
			c, m, bob := setup(t)
			clock := time.Unix(1000, 0)
			v, out := roomWithChat(t, m, size[0], size[1], &clock)
			m.play = &stubScreen{chat: m.chat} // the keys reach the game screen
			run(t, c, m, bob, func() (string, []string) {
				v.draw()
				rows := wideCells(out)
				return wideText(rows[v.chat.pane.y]), paneText(t, v, out)
			})
		})
	}
}

// TestChatSaysNothingWhenItSwitchesChannel: going into a room and back
// changes the pane's header, without a line about it in the scrollback.
func TestChatSaysNothingWhenItSwitchesChannel(t *testing.T) {
	c := newChat(t)
	rooms, r := liveRooms(t)
	m := chatLobby(t, c, chatMember("alice"), LobbyDeps{Rooms: rooms, Out: newVT(80, 30)})
	defer m.Detach(context.Background())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})
	m.Update(joinMsg{room: r, side: -1})
	if m.seat() == nil {
		t.Fatalf("not in the room: %q", m.notice)
	}
	if h := m.chat.feed().header; !strings.Contains(h, "room "+r.ID()) {
		t.Fatalf("the header does not say where chat is: %q", h)
	}
	press(m, "q")
	if h, _ := lobbyPane(t, m); !strings.Contains(h, "chat · lobby") {
		t.Fatalf("back in the lobby, the header says %q", h)
	}
	for _, l := range m.chat.lines {
		if s := linePlain(l); strings.Contains(s, "chat: ") {
			t.Fatalf("a channel switch left a line: %q", s)
		}
	}
}

// TestAnnouncementBannerDuringAGame: a server notice (admin announce) is
// shown across the top of the game screen for a while, even where the
// chat pane does not fit, then the HUD comes back.
func TestAnnouncementBannerDuringAGame(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		c := newChat(t)
		m := chatLobby(t, c, chatMember("alice"), LobbyDeps{})
		clock := time.Unix(1000, 0)
		m.chat.now = func() time.Time { return clock }
		v, out := roomWithChat(t, m, size[0], size[1], &clock)
		m.Update(NoticeMsg{Text: "Announcement: restart at 18:00"})
		clock = clock.Add(time.Second)
		v.draw()
		top := wideText(wideCells(out)[0])
		if !strings.Contains(top, "Announcement: restart at 18:00") {
			t.Fatalf("%v: no banner:\n%s", size, wideScreen(out))
		}
		clock = clock.Add(bannerFor)
		v.draw()
		top = wideText(wideCells(out)[0])
		if strings.Contains(top, "Announcement") || !strings.Contains(top, "alice") {
			t.Fatalf("%v: after the banner the top row is %q", size, top)
		}
	}
}

// TestChatWrapKeepsEveryCluster: at every width, in both measures, wrapping
// keeps every cluster that draws something, in order, loses only spaces,
// and never makes a row wider than the pane.
func TestChatWrapKeepsEveryCluster(t *testing.T) {
	l := chatLine{{"bob", csName0}, {": ", csDim}, {"a  quick 漢字😀 e\u0301tude " + strings.Repeat("x", 40) + " end  ", csText}}
	var want strings.Builder
	for _, sg := range l {
		want.WriteString(strings.ReplaceAll(sg.text, " ", ""))
	}
	for _, grid := range []bool{false, true} {
		cw := chatWrapper{grid: grid}
		for w := 1; w <= 60; w++ {
			rows := cw.wrap(nil, l, w)
			var got strings.Builder
			for _, r := range rows {
				n := 0
				for _, sg := range r {
					if grid {
						for _, c := range gridRunes(nil, sg.text) {
							n += int(c.w)
						}
					} else {
						n += ansi.StringWidth(sg.text)
					}
					got.WriteString(strings.ReplaceAll(sg.text, " ", ""))
				}
				if n > w {
					t.Fatalf("grid %v, width %d: row %q is %d cells", grid, w, linePlain(r), n)
				}
			}
			exp := want.String()
			if w < 2 { // a wide rune fits no row
				exp = strings.NewReplacer("漢", "", "字", "", "😀", "").Replace(exp)
			}
			if grid {
				exp = strings.ReplaceAll(exp, "\u0301", "") // the grid drops combining marks
			}
			if got.String() != exp {
				t.Fatalf("grid %v, width %d: rows hold %q, want %q", grid, w, got.String(), exp)
			}
		}
	}
}

// Issue 20 item 8: the pane shows only what was said on the channel its
// header names. Joining a room leaves the lobby's lines behind (and out
// of the "new" count), a lobby line still waiting to be read when the
// player left does not turn up under the room's name, and back in the
// lobby its lines are there again without the room's.
func TestChatPaneShowsOnlyTheChannelItNames(t *testing.T) {
	c := newChat(t)
	rooms, r := liveRooms(t)
	m := chatLobby(t, c, chatMember("alice"), LobbyDeps{Rooms: rooms, Out: newVT(80, 30)})
	defer m.Detach(context.Background())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})
	bob, carol := chatMember("bob"), chatMember("carol")
	for _, who := range []chat.Member{bob, carol} {
		sub := c.Join(who, chat.LobbyChannel)
		defer sub.Close()
		if who == carol {
			sub.SetChannels(chat.RoomChannel(r.ID()))
		}
	}
	say(t, c, bob, "lobby one")
	pumpChat(t, m)
	say(t, c, bob, "lobby two") // not yet read when alice joins
	m.Update(joinMsg{room: r, side: -1})
	if m.seat() == nil {
		t.Fatalf("not in the room: %q", m.notice)
	}
	if _, err := r.Join(context.Background(), game.Player{ID: game.PlayerID(carol.ID), Name: "carol"}, -1); err != nil {
		t.Fatal(err)
	}
	if res := c.Send(carol, chat.RoomChannel(r.ID()), "room line", time.Now()); !res.Delivered {
		t.Fatalf("carol's line: %+v", res.Reply)
	}
	pumpChat(t, m)
	cl := m.chat.feed()
	var room []string
	for _, l := range cl.lines {
		room = append(room, linePlain(l))
	}
	if got := strings.Join(room, "|"); strings.Contains(got, "lobby") || !strings.Contains(got, "carol: room line") {
		t.Fatalf("the pane under %q shows %q", cl.header, got)
	}
	if !strings.Contains(cl.header, "1 new") {
		t.Fatalf("the room's header counts other channels' lines as new: %q", cl.header)
	}
	press(m, "q")
	header, rows := lobbyPane(t, m)
	pane := strings.Join(rows, "|")
	if !strings.Contains(pane, "bob: lobby one") || !strings.Contains(pane, "bob: lobby two") || strings.Contains(pane, "room line") {
		t.Fatalf("back in the lobby, under %q:\n%s", header, pane)
	}
}

// Issue 20: a long paste was cut at the message limit without a word.
// The pane says so, once per message.
func TestChatSaysALongPasteWasCut(t *testing.T) {
	m := chatLobby(t, newChat(t), chatMember("alice"), LobbyDeps{})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	press(m, "t")
	m.Update(tea.PasteMsg{Content: strings.Repeat("word ", 100)})
	typeText(m, "more")
	if n := len(m.chat.input); n != chat.MaxText {
		t.Fatalf("input holds %d runes, want %d", n, chat.MaxText)
	}
	note := fmt.Sprintf("a message holds %d characters: the rest of what you typed or pasted was not kept", chat.MaxText)
	_, rows := lobbyPane(t, m)
	if got := strings.Count(strings.Join(rows, " "), "the rest of what you typed"); got != 1 || !strings.Contains(strings.Join(rows, " "), note[:40]) {
		t.Fatalf("the cut is told %d times, want once:\n%s", got, strings.Join(rows, "\n"))
	}
	press(m, "enter")
	press(m, "t")
	typeText(m, "short")
	if _, rows := lobbyPane(t, m); strings.Count(strings.Join(rows, " "), "the rest of what you typed") != 1 {
		t.Fatalf("a short message after the cut one is told it was cut:\n%s", strings.Join(rows, "\n"))
	}
}
