package tui

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/termarena/termarena/chat"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
)

func chatMember(name string) chat.Member { return chat.Member{ID: "SHA256:" + name, Name: name} }

// newChat is a chat without the profanity filter, so tests about the pane
// do not depend on the word list.
func newChat(t testing.TB) *chat.Chat {
	t.Helper()
	f, err := chat.NewFilter(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return chat.New(chat.Config{Filter: f})
}

// chatLobby builds a lobby with chat for member and runs its Init; the
// subscription is closed when the test ends.
func chatLobby(t *testing.T, c *chat.Chat, member chat.Member, d LobbyDeps) *Lobby {
	t.Helper()
	if d.Ctx == nil {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		d.Ctx = ctx
	}
	d.Player = game.Player{ID: game.PlayerID(member.ID), Name: member.Name, Guest: member.Guest}
	if d.Online == nil {
		d.Online = lobby.NewHub()
	}
	d.Chat, d.ChatMember = c, member
	m := NewLobby(d)
	m.Init()
	t.Cleanup(m.closeChat)
	return m
}

// pumpChat does what the program does with the chat command: waits for the
// wake-up and hands it to Update.
func pumpChat(t *testing.T, m *Lobby) {
	t.Helper()
	cmd := m.chat.wait()
	got := make(chan tea.Msg, 1)
	go func() { got <- waited(m.d.Ctx, cmd()) }()
	select {
	case msg := <-got:
		m.Update(msg)
	case <-time.After(5 * time.Second):
		t.Fatal("no chat wake-up")
	}
}

func press(m *Lobby, keys ...string) tea.Cmd {
	var last tea.Cmd
	for _, k := range keys {
		_, last = m.Update(keyPress(k))
	}
	return last
}

// keyPress is the key named k as the terminal sends it.
func keyPress(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case " ":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	return tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
}

// typeText presses one key per rune.
func typeText(m *Lobby, s string) {
	for _, r := range s {
		press(m, string(r))
	}
}

func plain(m *Lobby) string { return ansi.Strip(m.render()) }

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

func TestLobbyChatShowsOthersWithUnreadCount(t *testing.T) {
	c := newChat(t)
	m := chatLobby(t, c, chatMember("alice"), LobbyDeps{})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})

	bob := chatMember("bob")
	bs := c.Join(bob, chat.LobbyChannel)
	defer bs.Close()
	for _, text := range []string{"hi all", "anyone for pong?", "/me waves"} {
		if r := c.Send(bob, chat.LobbyChannel, text, time.Now()); !r.Delivered {
			t.Fatalf("bob's %q not delivered: %+v", text, r.Reply)
		}
	}
	pumpChat(t, m)
	scr := plain(m)
	for _, want := range []string{"bob: hi all", "bob: anyone for pong?", "* bob waves", "3 new", "t to chat"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("lobby lacks %q:\n%s", want, scr)
		}
	}

	// Focusing the pane reads them; what alice says comes back without
	// counting as new.
	press(m, "t")
	if scr := plain(m); strings.Contains(scr, "new") || !strings.Contains(scr, "lobby> ▏") {
		t.Fatalf("typing: unread not cleared or no prompt:\n%s", scr)
	}
	typeText(m, "hello bob")
	press(m, "enter")
	pumpChat(t, m)
	if scr := plain(m); !strings.Contains(scr, "alice: hello bob") || strings.Contains(scr, "new") {
		t.Fatalf("after sending:\n%s", scr)
	}
	if got := bs.Drain(); len(got) == 0 || got[len(got)-1].Text != "hello bob" {
		t.Fatalf("bob got %+v", got)
	}

	// A whisper is marked as one, from either side.
	if r := c.Send(bob, chat.LobbyChannel, "/w alice psst", time.Now()); !r.Delivered {
		t.Fatalf("whisper: %+v", r.Reply)
	}
	pumpChat(t, m)
	if scr := plain(m); !strings.Contains(scr, "from bob (whisper): psst") || !strings.Contains(scr, "1 new") {
		t.Fatalf("whisper:\n%s", scr)
	}
}

func TestChatTypingCapturesKeysAndEscReturns(t *testing.T) {
	c := newChat(t)
	m := chatLobby(t, c, chatMember("alice"), LobbyDeps{})
	press(m, "t")
	if !m.chat.typing {
		t.Fatal("t did not start typing")
	}
	// q, ?, L and enter-less keys are text now.
	for _, k := range []string{"q", "?", "c", "P"} {
		if cmd := press(m, k); isQuit(cmd) || m.quitting {
			t.Fatalf("%q typed in chat quit the lobby", k)
		}
	}
	if m.state != stLobby || m.help {
		t.Fatalf("keys typed in chat changed the screen: state %v help %v", m.state, m.help)
	}
	if got := string(m.chat.input); got != "q?cP" {
		t.Fatalf("input %q", got)
	}
	press(m, "backspace")
	if got := string(m.chat.input); got != "q?c" {
		t.Fatalf("after backspace %q", got)
	}
	// Control characters and bidi controls never reach the input.
	m.Update(tea.KeyPressMsg{Code: 'x', Text: "\x1b[2J\u202e"})
	m.Update(tea.PasteMsg{Content: "a\nb\x07"})
	if got := string(m.chat.input); got != "q?c[2Ja b" {
		t.Fatalf("after hostile keys %q", got)
	}
	// The input stops at the message limit.
	typeText(m, strings.Repeat("x", chat.MaxText+20))
	if n := len(m.chat.input); n != chat.MaxText {
		t.Fatalf("input holds %d runes, want %d", n, chat.MaxText)
	}

	press(m, "esc")
	if m.chat.typing || len(m.chat.input) != 0 {
		t.Fatalf("esc: typing %v input %q", m.chat.typing, string(m.chat.input))
	}
	if !isQuit(press(m, "q")) {
		t.Fatal("q after esc did not quit")
	}
}

func TestChatTypingInRoomDoesNotMovePaddle(t *testing.T) {
	c := newChat(t)
	m := chatLobby(t, c, chatMember("alice"), LobbyDeps{})
	_, fr := match1v1(t, 10)
	room := newFakeRoom(fr)
	view := newTestRoomView(RoomViewConfig{Room: room, Me: "a", Slot: pong.Left, Out: newVT(80, 30),
		Profile: colorprofile.ANSI256, Width: 80, Height: 30, Chat: m.chatFeed()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); view.Run(ctx) }()
	stop := func() {
		cancel()
		<-done
	}
	defer stop()
	m.play = &seatScreen{d: &m.d, host: m, chat: m.chat, id: "r1", slot: pong.Left, view: view, cancel: cancel, done: done}
	m.Update(refreshMsg{}) // syncChat: the session is in room r1 now
	if got := m.chat.sub.Channels(); len(got) != 1 || got[0] != chat.RoomChannel("r1") {
		t.Fatalf("channels in the room: %v", got)
	}

	press(m, "enter")
	if !m.chat.typing {
		t.Fatal("enter did not start typing in the room")
	}
	press(m, "w", "s", "w", "up", "r", "q", "esc")
	if m.seat() == nil {
		t.Fatal("a key typed in chat left the room")
	}
	stop()
	room.mu.Lock()
	n := len(room.inputs)
	room.mu.Unlock()
	if n != 0 || len(view.keys) != 0 {
		t.Fatalf("keys typed in chat reached the paddle: %d submits, %d queued", n, len(view.keys))
	}

	// Out of typing mode, w moves the paddle again.
	press(m, "w")
	if len(view.keys) != 1 {
		t.Fatalf("w after esc: %d keys queued, want 1", len(view.keys))
	}
	m.play = nil // not a lobby room: nothing to disconnect from
}

func TestChatHostileTextRendersInert(t *testing.T) {
	c := newChat(t)
	m := chatLobby(t, c, chatMember("alice"), LobbyDeps{})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})
	hostile := "\x1b[2J\x1b]0;pwned\x07\u202eevil\u2066 \u009b31m\u200bred\r\nline\xff"
	// Through chat, and straight into the pane as if chat had missed it.
	bob := chatMember("bob")
	bs := c.Join(bob, chat.LobbyChannel)
	defer bs.Close()
	c.Send(bob, chat.LobbyChannel, hostile, time.Now())
	pumpChat(t, m)
	m.chat.add(m.chat.format(chat.Message{Kind: chat.Say, From: "mallory\x1b[31m", FromID: "x", Text: hostile}))
	m.chat.publish()

	out := m.render()
	for _, bad := range []string{"\x1b[2J", "\x1b]0", "\x07", "\u202e", "\u2066", "\u009b", "\u200b", "\r", "\xff"} {
		if strings.Contains(out, bad) {
			t.Fatalf("lobby view carries %q", bad)
		}
	}
	if !strings.Contains(ansi.Strip(out), "evil") || !strings.Contains(ansi.Strip(out), "mallory[31m: ") {
		t.Fatalf("the text itself is gone:\n%s", ansi.Strip(out))
	}

	// The room view draws the same lines into its grid.
	_, fr := match1v1(t, 10)
	vt := newVT(80, 30)
	v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(fr), Me: "a", Slot: 0, Out: vt, Profile: colorprofile.ANSI256,
		Width: 80, Height: 30, Chat: m.chatFeed(), Now: func() time.Time { return time.Unix(1000, 0) }})
	v.setFrame(fr, v.cfg.Now())
	v.draw() // the first frame clears the screen on purpose
	m.chat.system("repaint")
	m.chat.publish()
	var frame []byte
	v.cfg.Out = frameCatcher{&frame}
	v.draw()
	if !strings.Contains(string(frame), "evil") {
		t.Fatalf("the pane was not repainted: %q", frame)
	}
	for _, bad := range []string{"\x1b[2J", "\x1b]", "\x07", "\u202e", "\u2066", "\u009b", "\u200b", "\r", "\n", "\xff"} {
		if strings.Contains(string(frame), bad) {
			t.Fatalf("room frame carries %q", bad)
		}
	}
}

// frameCatcher keeps the last frame written.
type frameCatcher struct{ p *[]byte }

func (f frameCatcher) WriteFrame(p []byte) error { *f.p = append((*f.p)[:0], p...); return nil }

func TestChatMutedSeesTimeLeft(t *testing.T) {
	c := newChat(t)
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	alice := chatMember("alice")
	m := chatLobby(t, c, alice, LobbyDeps{})
	m.chat.now = func() time.Time { return clock }
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})

	c.SetMuted(alice.ID, clock.Add(4*time.Minute+12*time.Second), "spam")
	m.Update(refreshMsg{})
	if scr := plain(m); !strings.Contains(scr, "you are muted for 4m12s: spam") {
		t.Fatalf("no mute line:\n%s", scr)
	}
	clock = clock.Add(12 * time.Second)
	m.Update(refreshMsg{})
	if scr := plain(m); !strings.Contains(scr, "you are muted for 4m: spam") {
		t.Fatalf("mute line did not count down:\n%s", scr)
	}
	// Trying to talk says so too, and nothing goes out.
	press(m, "t")
	typeText(m, "let me talk")
	press(m, "enter")
	if scr := plain(m); !strings.Contains(scr, "— you are muted for 4m: spam") {
		t.Fatalf("no refusal:\n%s", scr)
	}
	// The room view shows it as well.
	if cl := m.chat.feed(); cl.status != "you are muted for 4m: spam" {
		t.Fatalf("snapshot status %q", cl.status)
	}
	clock = clock.Add(5 * time.Minute)
	m.Update(refreshMsg{})
	if m.chat.muted != "" || m.chat.feed().status != "" {
		t.Fatalf("mute line %q outlived the mute", m.chat.muted)
	}
}

func TestChatModerationRunsInACommand(t *testing.T) {
	c := newChat(t)
	mod := chatMember("mod")
	mod.Role = chat.Moderator
	var calls atomic.Int32
	var got chat.ModAction
	m := chatLobby(t, c, mod, LobbyDeps{ChatAct: func(a chat.ModAction) string {
		calls.Add(1)
		got = a
		return "bob is muted for 30m"
	}})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})
	bs := c.Join(chatMember("bob"), chat.LobbyChannel)
	defer bs.Close()

	press(m, "t")
	typeText(m, "/mute bob 30m spam")
	cmd := press(m, "enter")
	if calls.Load() != 0 {
		t.Fatal("ChatAct ran inside Update")
	}
	if cmd == nil {
		t.Fatal("no command for the moderation action")
	}
	m.Update(cmd())
	if calls.Load() != 1 || got.Kind != chat.Mute || got.Target != "bob" || got.Duration != 30*time.Minute || got.Reason != "spam" {
		t.Fatalf("ChatAct got %+v (%d calls)", got, calls.Load())
	}
	if scr := plain(m); !strings.Contains(scr, "— bob is muted for 30m") {
		t.Fatalf("no result line:\n%s", scr)
	}
	// A plain player's /mute is refused by chat, with no action.
	p := chatLobby(t, c, chatMember("carol"), LobbyDeps{ChatAct: func(chat.ModAction) string { calls.Add(1); return "" }})
	press(p, "t")
	typeText(p, "/mute bob")
	if cmd := press(p, "enter"); cmd != nil || calls.Load() != 1 {
		t.Fatal("a player's /mute reached ChatAct")
	}
	if scr := plain(p); !strings.Contains(scr, "not allowed: /mute is for moderators") {
		t.Fatalf("no refusal:\n%s", scr)
	}
}

// Issue 20 item 9: a guest's t opens a line that says they cannot chat
// and swallows what they type: "quick question" no longer quits (q) and
// "is anyone here?" no longer opens the help; Enter sends nothing and
// says why.
func TestGuestsTypingFiresNoHotkeys(t *testing.T) {
	c := newChat(t)
	g := chat.Member{ID: "guest:1", Name: "guest-1", Guest: true}
	bob := chatLobby(t, c, chatMember("bob"), LobbyDeps{})
	for _, size := range [][2]int{{80, 24}, {100, 30}} {
		m := chatLobby(t, c, g, LobbyDeps{})
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		press(m, "t")
		for _, line := range []string{"quick question", "is anyone here?"} {
			for _, r := range line {
				if cmd := press(m, string(r)); isQuit(cmd) || m.quitting {
					t.Fatalf("%dx%d: a guest typing %q quit termarena", size[0], size[1], line)
				}
			}
			if m.help || m.state != stLobby {
				t.Fatalf("%dx%d: a guest typing %q changed the screen: help %v state %v", size[0], size[1], line, m.help, m.state)
			}
			if scr := plain(m); !strings.Contains(scr, "not sent (guests cannot chat)> "+line) {
				t.Fatalf("%dx%d: the guest's line does not say it is not sent:\n%s", size[0], size[1], scr)
			}
			press(m, "enter")
			if m.chat.typing {
				t.Fatal("enter left the guest's line open")
			}
			if scr := plain(m); size[1] >= 30 && !strings.Contains(scr, "guests can read but not chat") {
				t.Fatalf("no explanation after enter:\n%s", scr)
			}
			press(m, "t")
		}
		press(m, "esc")
		if m.chat.typing {
			t.Fatal("esc left the guest's line open")
		}
	}
	// What the lobby heard: bob's line arrives, the guest's never did.
	say(t, c, chatMember("bob"), "hello")
	pumpChat(t, bob)
	var heard []string
	for _, l := range bob.chat.lines {
		heard = append(heard, linePlain(l))
	}
	if got := strings.Join(heard, "|"); !strings.Contains(got, "hello") || strings.Contains(got, "question") || strings.Contains(got, "anyone") {
		t.Fatalf("the lobby heard %q", got)
	}
}

func TestChatWaitEndsWithTheSession(t *testing.T) {
	for _, end := range []string{"detach", "ctx", "quit"} {
		t.Run(end, func(t *testing.T) {
			c := newChat(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			m := chatLobby(t, c, chatMember("alice"), LobbyDeps{Ctx: ctx})
			cmd := m.chat.wait()
			got := make(chan tea.Msg, 1)
			go func() { got <- waited(ctx, cmd()) }()
			switch end {
			case "detach":
				m.Detach(context.Background())
			case "ctx":
				cancel()
			case "quit":
				if !isQuit(press(m, "q")) {
					t.Fatal("q did not quit")
				}
			}
			select {
			case msg := <-got:
				if msg != nil {
					t.Fatalf("wait returned %T after the session ended", msg)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the chat wait outlived the session")
			}
			if end != "ctx" {
				if _, ok := <-m.chat.sub.Messages(); ok {
					t.Fatal("subscription still open")
				}
			}
		})
	}
}

func TestScrollbackIsBounded(t *testing.T) {
	c := newChat(t)
	m := chatLobby(t, c, chatMember("alice"), LobbyDeps{})
	for i := range chatScrollback * 2 {
		m.chat.system(strings.Repeat("x", i%7))
	}
	m.chat.publish()
	if n := len(m.chat.lines); n != chatScrollback {
		t.Fatalf("scrollback %d lines", n)
	}
	if n := len(m.chat.feed().lines); n != chatSnapLines {
		t.Fatalf("snapshot %d lines", n)
	}
}

func TestLobbyChatFitsEverySize(t *testing.T) {
	c := newChat(t)
	m := chatLobby(t, c, chatMember("alice"), LobbyDeps{})
	bob := chatMember("bob")
	bs := c.Join(bob, chat.LobbyChannel)
	defer bs.Close()
	c.Send(bob, chat.LobbyChannel, strings.Repeat("long words here ", 17), time.Now())
	c.Send(bob, chat.LobbyChannel, "漢字と絵文字😀 wide", time.Now())
	pumpChat(t, m)
	for _, typing := range []bool{false, true} {
		if typing {
			press(m, "t")
			typeText(m, strings.Repeat("y", 100))
		}
		for _, size := range [][2]int{{40, 12}, {50, 16}, {80, 20}, {80, 24}, {120, 40}, {200, 60}} {
			m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			out := m.render()
			lines := strings.Split(out, "\n")
			if len(lines) > size[1] {
				t.Fatalf("%v: %d lines", size, len(lines))
			}
			for _, l := range lines {
				if w := ansi.StringWidth(l); w > size[0] {
					t.Fatalf("%v: line %d cells wide: %q", size, w, ansi.Strip(l))
				}
			}
			scr := ansi.Strip(out)
			switch {
			case typing && !strings.Contains(scr, "yyyy▏"):
				t.Fatalf("%v: the input line is not visible:\n%s", size, scr)
			case !typing && !strings.Contains(scr, "2 new"):
				t.Fatalf("%v: no unread count:\n%s", size, scr)
			case size[1] >= 24 && !typing && !strings.Contains(scr, "bob: long words"):
				t.Fatalf("%v: no chat lines:\n%s", size, scr)
			}
		}
	}
}

func TestRoomViewChatPaneLayout(t *testing.T) {
	c := newChat(t)
	m := chatLobby(t, c, chatMember("alice"), LobbyDeps{})
	bob := chatMember("bob")
	bs := c.Join(bob, chat.LobbyChannel)
	defer bs.Close()
	c.Send(bob, chat.LobbyChannel, "good luck", time.Now())
	c.Send(bob, chat.LobbyChannel, "have fun", time.Now())
	pumpChat(t, m)

	_, fr := match1v1(t, 90)
	draw := func(w, h int) (*RoomView, *vtWriter) {
		out := newVT(w, h)
		clock := time.Unix(1000, 0)
		v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(fr), Me: "a", Slot: 0, Title: "r1 · 1v1 · casual", Out: out,
			Profile: colorprofile.ANSI256, Width: w, Height: h, Now: func() time.Time { return clock }, Chat: m.chatFeed()})
		v.in.frAt = clock
		v.setFrame(fr, v.cfg.Now())
		v.draw()
		return v, out
	}
	rowOf := func(scr, s string) int {
		for i, l := range strings.Split(scr, "\n") {
			if strings.Contains(l, s) {
				return i
			}
		}
		return -1
	}

	// 80×30: the board keeps its rows and the pane sits below it.
	v, out := draw(80, 30)
	scr := out.screen()
	_, boardRow, _, boardRows := v.boardRect()
	for _, want := range []string{"▸alice 0", "bob 0", "bob: good luck", "bob: have fun", "chat · lobby · 2 new"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("80×30 lacks %q:\n%s", want, scr)
		}
	}
	// The footer's marker is for where the pane does not fit: beside a
	// pane that counts the new lines itself it only repeated it.
	if strings.Contains(scr, "chat (2 new)") {
		t.Fatalf("80×30 shows the marker beside the pane:\n%s", scr)
	}
	if r := rowOf(scr, "bob: have fun"); r < boardRow+boardRows || r >= 29 {
		t.Fatalf("80×30: chat on row %d, board rows %d–%d:\n%s", r, boardRow, boardRow+boardRows-1, scr)
	}
	if p := paddleRows(out, 0); p[0] < 0 {
		t.Fatalf("80×30: no paddle:\n%s", scr)
	}

	// 80×24: no room for the pane; the board is whole and the footer
	// carries the marker.
	v, out = draw(80, 24)
	scr = out.screen()
	if strings.Contains(scr, "good luck") || strings.Contains(scr, "Terminal too small") {
		t.Fatalf("80×24 should drop the pane, not the board:\n%s", scr)
	}
	for _, want := range []string{"▸alice 0", "w/s ↑/↓ move", "chat (2 new) · t"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("80×24 lacks %q:\n%s", want, scr)
		}
	}
	if p := paddleRows(out, 0); p[0] < 0 {
		t.Fatalf("80×24: no paddle:\n%s", scr)
	}
	// Typing without a pane takes the footer.
	press(m, "t")
	typeText(m, "gg")
	v.draw()
	if scr = out.screen(); !strings.Contains(scr, "lobby> gg▏") {
		t.Fatalf("80×24 typing: no input line:\n%s", scr)
	}
	press(m, "esc")

	// Growing the terminal brings the pane back; 76×22 is the board alone.
	out.mu.Lock()
	out.vt.Resize(80, 30)
	out.mu.Unlock()
	v.w, v.h = 80, 30
	v.scr.Resize(80, 30)
	v.mode, v.chat.shown = modeNone, nil
	v.draw()
	if scr = out.screen(); !strings.Contains(scr, "bob: have fun") {
		t.Fatalf("after growing to 80×30:\n%s", scr)
	}
	_, out = draw(76, 22)
	if scr = out.screen(); strings.Contains(scr, "too small") || !strings.Contains(scr, "alice") {
		t.Fatalf("76×22 must still show the board:\n%s", scr)
	}

	// Wide terminals put it beside the board.
	v, out = draw(130, 30)
	scr = out.screen()
	bc, _, bw, _ := v.boardRect()
	r := rowOf(scr, "bob: have fun")
	if r < 0 {
		t.Fatalf("130×30: no pane:\n%s", scr)
	}
	line := strings.Split(scr, "\n")[r]
	if col := utf8.RuneCountInString(line[:strings.Index(line, "bob: have fun")]); col < bc+bw {
		t.Fatalf("130×30: chat at column %d overlaps the board (cols %d–%d)", col, bc, bc+bw-1)
	}
}

func TestRoomViewChatPaneWhileWaiting(t *testing.T) {
	c := newChat(t)
	m := chatLobby(t, c, chatMember("alice"), LobbyDeps{})
	m.chat.system("welcome to r1")
	m.chat.publish()
	fr := &game.Frame{Room: "r1", Phase: game.Waiting, Seats: []game.Seat{
		{Player: game.Player{ID: "a", Name: "alice"}, Taken: true, Connected: true}, {}}}
	out := newVT(80, 24)
	v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(fr), Me: "a", Slot: 0, Title: "r1 · 1v1 · casual", Out: out,
		Profile: colorprofile.ANSI256, Width: 80, Height: 24, Chat: m.chatFeed()})
	v.setFrame(fr, v.cfg.Now())
	v.draw()
	scr := out.screen()
	for _, want := range []string{"r1 · 1v1 · casual", "alice", "— welcome to r1"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("waiting screen lacks %q:\n%s", want, scr)
		}
	}
	// A new line repaints the pane only.
	m.chat.system("bob joined")
	m.chat.publish()
	v.draw()
	if scr := out.screen(); !strings.Contains(scr, "— bob joined") || !strings.Contains(scr, "alice") {
		t.Fatalf("after a new line:\n%s", scr)
	}
}

// liveRooms is a lobby.Rooms for tests, with a casual 1v1 room in it.
func liveRooms(t *testing.T) (*lobby.Rooms, *lobby.Room) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	rooms := lobby.NewRooms(ctx, lobby.RoomsConfig{Games: game.Catalog{pong.Kind{}}})
	r, err := rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	return rooms, r
}

func TestPlayerChatFollowsTheRoom(t *testing.T) {
	c := newChat(t)
	rooms, r := liveRooms(t)
	alice := chatMember("alice")
	m := chatLobby(t, c, alice, LobbyDeps{Rooms: rooms, Out: newVT(80, 30)})
	defer m.Detach(context.Background())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})
	lobbyEar := c.Join(chatMember("lurker"), chat.LobbyChannel)
	defer lobbyEar.Close()

	m.Update(joinMsg{room: r, side: -1})
	if m.seat() == nil {
		t.Fatalf("not in the room: %q", m.notice)
	}
	if got := m.chat.sub.Channels(); len(got) != 1 || got[0] != chat.RoomChannel(r.ID()) {
		t.Fatalf("channels in the room: %v", got)
	}
	press(m, "t")
	typeText(m, "ready?")
	press(m, "enter")
	if got := lobbyEar.Drain(); len(got) != 0 {
		t.Fatalf("the lobby heard the room: %+v", got)
	}
	pumpChat(t, m)
	if cl := m.chat.feed(); len(cl.lines) == 0 || !strings.Contains(linePlain(cl.lines[len(cl.lines)-1]), "alice: ready?") {
		t.Fatalf("the pane lacks our line: %+v", cl.lines)
	}

	press(m, "q") // leave the room
	if m.state != stLobby || m.play != nil {
		t.Fatal("q did not leave the room")
	}
	if got := m.chat.sub.Channels(); len(got) != 1 || got[0] != chat.LobbyChannel {
		t.Fatalf("channels back in the lobby: %v", got)
	}
}

func TestWatchersTalkAmongThemselves(t *testing.T) {
	c := newChat(t)
	rooms, r := liveRooms(t)
	// A player sits in the room and listens to it.
	alice := chatMember("alice")
	if _, err := r.Join(context.Background(), game.Player{ID: game.PlayerID(alice.ID), Name: "alice"}, 0); err != nil {
		t.Fatal(err)
	}
	player := c.Join(alice, chat.RoomChannel(r.ID()))
	defer player.Close()
	other := c.Join(chatMember("dave"), chat.WatchChannel(r.ID()))
	defer other.Close()

	m := chatLobby(t, c, chatMember("carol"), LobbyDeps{Rooms: rooms, Out: newVT(80, 30)})
	defer m.Detach(context.Background())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})
	m.Update(spectateMsg{r.ID()})
	if watchOf(m) == nil {
		t.Fatalf("not watching: %q", m.notice)
	}
	if got := m.chat.sub.Channels(); len(got) != 1 || got[0] != chat.WatchChannel(r.ID()) {
		t.Fatalf("watcher's channels: %v", got)
	}
	press(m, "t")
	typeText(m, "left side is winning")
	press(m, "enter")
	if got := other.Drain(); len(got) != 1 || got[0].Text != "left side is winning" || got[0].Channel != chat.WatchChannel(r.ID()) {
		t.Fatalf("the other watcher got %+v", got)
	}
	if got := player.Drain(); len(got) != 0 {
		t.Fatalf("the player heard the watchers: %+v", got)
	}
	// And what the players say in the room stays there.
	c.Send(alice, chat.RoomChannel(r.ID()), "gl", time.Now())
	pumpChat(t, m)
	for _, l := range m.chat.lines {
		if strings.Contains(linePlain(l), "gl") {
			t.Fatalf("the watcher heard the room: %q", linePlain(l))
		}
	}

	// Back to the chooser: lobby chat again.
	press(m, "q")
	if got := m.chat.sub.Channels(); m.scr != m.chooser || len(got) != 1 || got[0] != chat.LobbyChannel {
		t.Fatalf("after leaving: state %v channels %v", m.state, got)
	}
}

func TestTwoVTwoHasATeamChannel(t *testing.T) {
	c := newChat(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rooms := lobby.NewRooms(ctx, lobby.RoomsConfig{Games: game.Catalog{pong.Kind{}}})
	r, err := rooms.Create("pong", "2v2", false)
	if err != nil {
		t.Fatal(err)
	}
	m := chatLobby(t, c, chatMember("alice"), LobbyDeps{Rooms: rooms, Out: newVT(80, 30)})
	defer m.Detach(context.Background())
	m.Update(joinMsg{room: r, side: pong.Top})
	team := chat.TeamChannel(r.ID(), pong.Top/2)
	if got := m.chat.sub.Channels(); len(got) != 2 || got[0] != chat.RoomChannel(r.ID()) || got[1] != team {
		t.Fatalf("2v2 channels: %v", got)
	}
	mate := c.Join(chatMember("bob"), team)
	defer mate.Close()
	foe := c.Join(chatMember("eve"), chat.TeamChannel(r.ID(), 0), chat.RoomChannel(r.ID()))
	defer foe.Close()
	press(m, "enter")
	m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	typeText(m, "go left")
	press(m, "enter")
	if got := mate.Drain(); len(got) != 1 || got[0].Channel != team {
		t.Fatalf("team mate got %+v", got)
	}
	if got := foe.Drain(); len(got) != 0 {
		t.Fatalf("the other team heard it: %+v", got)
	}
}

func linePlain(l chatLine) string {
	var b strings.Builder
	for _, sg := range l {
		b.WriteString(sg.text)
	}
	return b.String()
}

// TestChatSnapshotIsSafeAcrossGoroutines publishes from one goroutine while
// a room view reads and draws on another, for the race detector.
func TestChatSnapshotIsSafeAcrossGoroutines(t *testing.T) {
	c := newChat(t)
	m := chatLobby(t, c, chatMember("alice"), LobbyDeps{})
	_, fr := match1v1(t, 10)
	v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(fr), Me: "a", Slot: 0, Out: newVT(80, 30),
		Profile: colorprofile.ANSI256, Width: 80, Height: 30, FPS: 120, Chat: m.chatFeed()})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); v.Run(ctx) }()
	for i := range 200 {
		m.chat.system(strings.Repeat("z", i%50))
		m.Update(refreshMsg{})
	}
	cancel()
	wg.Wait()
}

// BenchmarkGameFrameChat80x30 is BenchmarkGameFrame with the chat pane
// below the board: a pane that did not change costs a frame nothing.
func BenchmarkGameFrameChat80x30(b *testing.B) {
	c := chat.New(chat.Config{})
	cs := newChatState(LobbyDeps{Chat: c, ChatMember: chatMember("alice")})
	for i := range 10 {
		cs.add(cs.format(chat.Message{Kind: chat.Say, From: "bob", FromID: "b", Text: strings.Repeat("words ", i)}))
	}
	cs.publish()
	frames := recordedFrames(b, 600)
	cw := &countWriter{}
	now := time.Unix(1000, 0)
	v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(frames[0]), Me: "a", Slot: 0, Out: cw, Profile: colorprofile.ANSI256,
		Width: 80, Height: 30, Now: func() time.Time { return now }, Chat: cs.feed})
	v.setFrame(frames[0], v.cfg.Now())
	v.draw()
	if v.chat.pane.h == 0 {
		b.Fatal("no chat pane at 80×30")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		now = now.Add(time.Second / 30)
		v.setFrame(frames[1+i%(len(frames)-1)], now)
		v.draw()
	}
}

// crlfVT is a terminal emulator as Bubble Tea's output: a player's terminal
// is in raw mode, so a bare \n has to become \r\n (the server's writer does
// the same).
type crlfVT struct{ vt *vtWriter }

func (c crlfVT) Write(p []byte) (int, error) {
	c.vt.mu.Lock()
	defer c.vt.mu.Unlock()
	_, err := c.vt.vt.Write(bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n")))
	return len(p), err
}

// TestChatInARealProgram runs the lobby in a Bubble Tea program: chat
// arrives through the command loop, typing sends, q quits, and no goroutine
// is left behind once the session has ended.
func TestChatInARealProgram(t *testing.T) {
	base := runtime.NumGoroutine()
	c := newChat(t)
	bob := chatMember("bob")
	bs := c.Join(bob, chat.LobbyChannel)
	defer bs.Close()

	ctx, cancel := context.WithCancel(context.Background())
	alice := chatMember("alice")
	m := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: game.PlayerID(alice.ID), Name: alice.Name},
		Online: lobby.NewHub(), Chat: c, ChatMember: alice})
	vt := newVT(80, 24)
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(nil), tea.WithOutput(crlfVT{vt}),
		tea.WithWindowSize(80, 24), tea.WithoutSignalHandler(), tea.WithColorProfile(colorprofile.ANSI256),
		tea.WithEnvironment([]string{"TERM=xterm-256color"}))
	ran := make(chan error, 1)
	go func() { _, err := p.Run(); ran <- err }()

	waitScreen := func(want string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for !strings.Contains(vt.screen(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("screen never showed %q:\n%s", want, vt.screen())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitScreen("Welcome, alice")
	// Init has subscribed by the time the lobby is on screen.
	if r := c.Send(bob, chat.LobbyChannel, "hello from bob", time.Now()); !r.Delivered {
		t.Fatalf("bob: %+v", r.Reply)
	}
	waitScreen("bob: hello from bob")
	waitScreen("1 new")

	for _, k := range []tea.KeyPressMsg{{Code: 't', Text: "t"}, {Code: 'q', Text: "q"}, {Code: 'q', Text: "q"}, {Code: tea.KeyEnter}} {
		p.Send(k)
	}
	waitScreen("alice: qq")
	if got := bs.Drain(); len(got) == 0 || got[len(got)-1].Text != "qq" {
		t.Fatalf("bob got %+v", got)
	}

	p.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	select {
	case err := <-ran:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("q did not end the program")
	}
	cancel() // the server ends the session's context after the program
	m.Detach(context.Background())
	if n := len(c.Who(chat.LobbyChannel)); n != 1 {
		t.Fatalf("%d members still in the lobby, want only bob", n)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
