package tui

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/termarena/termarena/chat"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
)

// benchLobby is a lobby as a player finds it on a busy server: 80×24, chat
// with a page of lines, and a list of rooms.
func benchLobby(b *testing.B, w, h int) *Lobby {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	rooms := lobby.NewRooms(ctx, lobby.RoomsConfig{Games: game.Catalog{pong.Kind{}}})
	for range 6 {
		if _, err := rooms.Create("pong", "1v1", false); err != nil {
			b.Fatal(err)
		}
	}
	c := newChat(b)
	bob := chatMember("bob")
	bs := c.Join(bob, chat.LobbyChannel)
	b.Cleanup(bs.Close)
	for i := range 5 {
		c.Send(bob, chat.LobbyChannel, "a line of lobby chat, long enough to wrap once or twice at eighty columns "+string(rune('a'+i)), time.Now().Add(time.Duration(i)*time.Minute))
	}
	alice := chatMember("alice")
	m := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: game.PlayerID(alice.ID), Name: alice.Name},
		Online: lobby.NewHub(), Rooms: rooms, Chat: c, ChatMember: alice})
	m.Init()
	b.Cleanup(m.closeChat)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	listed, _ := rooms.List()
	m.home.list(listed, nil)
	if m.chat != nil {
		m.chat.drain()
	}
	return m
}

// benchKeys runs Update and View for each key in turn, as Bubble Tea does
// for every key a client sends.
func benchKeys(b *testing.B, m *Lobby, keys []tea.KeyPressMsg) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		m.Update(keys[i%len(keys)])
		_ = m.View()
	}
}

// BenchmarkLobbyKey is a key that changes nothing on the lobby screen (a
// letter no menu uses): what a flood of typed text costs.
func BenchmarkLobbyKey(b *testing.B) {
	m := benchLobby(b, 80, 24)
	benchKeys(b, m, []tea.KeyPressMsg{{Code: 'x', Text: "x"}})
}

// BenchmarkLobbyKeyMove moves the room list's selection up and down.
func BenchmarkLobbyKeyMove(b *testing.B) {
	m := benchLobby(b, 80, 24)
	benchKeys(b, m, []tea.KeyPressMsg{{Code: tea.KeyDown}, {Code: tea.KeyUp}})
}

// BenchmarkLobbyChatKey types into the lobby's chat line (and deletes, so
// the line stays short).
func BenchmarkLobbyChatKey(b *testing.B) {
	m := benchLobby(b, 80, 24)
	m.Update(tea.KeyPressMsg{Code: 't', Text: "t"})
	benchKeys(b, m, []tea.KeyPressMsg{{Code: 'x', Text: "x"}, {Code: tea.KeyBackspace}})
}

// uncached is the lobby's screen drawn from scratch.
func uncached(m *Lobby) string {
	memo, boxed := m.memo, m.boxed
	m.memo, m.boxed = frameMemo{}, boxMemo{}
	s := m.render()
	m.memo, m.boxed = memo, boxed
	return s
}

// The lobby keeps its last screen for keys that change nothing, but never
// shows a stale one: after every kind of change (a key, chat typing and
// arriving, the room list, the size, a notice) the screen is what drawing
// it afresh gives.
func TestLobbyScreenMemoIsNeverStale(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rooms := lobby.NewRooms(ctx, lobby.RoomsConfig{Games: game.Catalog{pong.Kind{}}})
	c := newChat(t)
	bob := chatMember("bob")
	bs := c.Join(bob, chat.LobbyChannel)
	defer bs.Close()
	m := chatLobby(t, c, chatMember("alice"), LobbyDeps{Ctx: ctx, Rooms: rooms})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})
	step := 0
	check := func(what string) {
		t.Helper()
		step++
		got := m.View().Content
		if want := uncached(m); got != want {
			t.Fatalf("step %d (%s): the lobby showed a stale screen:\n%s\nwant:\n%s", step, what, ansi.Strip(got), ansi.Strip(want))
		}
	}
	check("start")
	press(m, "x")
	check("a key no menu uses")
	for range 3 {
		if _, err := rooms.Create("pong", "1v1", false); err != nil {
			t.Fatal(err)
		}
	}
	list, _ := rooms.List()
	m.Update(roomsMsg{rooms: list})
	check("rooms listed")
	press(m, "down")
	check("selection moved")
	press(m, "down", "down", "down")
	check("selection at the end")
	c.Send(bob, chat.LobbyChannel, "hello", time.Now())
	pumpChat(t, m)
	check("a chat line arrived")
	press(m, "t")
	check("chat opened")
	typeText(m, "hi bob")
	check("typing")
	m.Update(tea.PasteMsg{Content: " and all"})
	check("a paste")
	press(m, "enter")
	pumpChat(t, m)
	check("sent")
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	check("resized")
	m.Update(NoticeMsg{Text: "server restarts at 18:00"})
	check("a notice")
	press(m, "?")
	check("help")
	press(m, "esc")
	check("help closed")
	m.Update(tea.WindowSizeMsg{Width: 30, Height: 10})
	check("too small")
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	check("back to 80×24")
}

// A key that changes nothing on the lobby screen (a typed letter no menu
// uses: what a flood of text is made of) does not draw the screen again:
// it costs a fraction of drawing it (bug: every key redrew the whole
// lobby, 0.3–1 ms of CPU, so one 30 KB paste took 10 CPU-seconds).
func TestLobbyKeyThatChangesNothingDoesNotRedraw(t *testing.T) {
	c := newChat(t)
	bob := chatMember("bob")
	bs := c.Join(bob, chat.LobbyChannel)
	defer bs.Close()
	m := chatLobby(t, c, chatMember("alice"), LobbyDeps{})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	c.Send(bob, chat.LobbyChannel, "a line of chat long enough to wrap at the pane's width, twice over maybe", time.Now())
	pumpChat(t, m)
	key := tea.KeyPressMsg{Code: 'x', Text: "x"}
	fresh := testing.AllocsPerRun(20, func() { m.Update(key); _ = uncached(m) })
	noop := testing.AllocsPerRun(20, func() { m.Update(key); _ = m.View() })
	if noop > fresh/4 {
		t.Fatalf("a key that changes nothing made %.0f allocations, drawing the screen afresh %.0f: it was redrawn", noop, fresh)
	}
}
