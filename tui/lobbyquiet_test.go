package tui

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/termarena/termarena/chat"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

// driveLobby runs m as Bubble Tea does (each command on a goroutine of its
// own, each message through Update) for settle+watch, and returns the
// messages Update was given after settle. The commands still parked when
// it returns end with ctx.
func driveLobby(ctx context.Context, m *Lobby, settle, watch time.Duration) []tea.Msg {
	msgs := make(chan tea.Msg, 64)
	var run func(tea.Cmd)
	run = func(cmd tea.Cmd) {
		if cmd == nil {
			return
		}
		go func() {
			msg := cmd()
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					run(c)
				}
				return
			}
			if msg == nil {
				return
			}
			select {
			case msgs <- msg:
			case <-ctx.Done():
			}
		}()
	}
	run(m.Init())
	settled := time.After(settle)
	end := time.After(settle + watch)
	var after []tea.Msg
	quiet := false
	for {
		select {
		case msg := <-msgs:
			if quiet {
				after = append(after, msg)
			}
			_, cmd := m.Update(msg)
			run(cmd)
		case <-settled:
			quiet = true
		case <-end:
			return after
		}
	}
}

// An idle lobby wakes for nothing: with a room open, chat on and nobody
// doing anything, its model is given no message at all — no clock ticks
// (issue 21: a one-second refresh redrew 1,000 idle lobbies' whole screens
// and took a core).
func TestIdleLobbyGetsNoMessages(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hub := lobby.NewHub()
	defer hub.Join(lobby.Presence{ID: "alice", Name: "alice", Since: time.Now()}, func(lobby.Notice) {})()
	rooms := testRooms(t)
	if _, err := rooms.Create("pong", "1v1", false); err != nil {
		t.Fatal(err)
	}
	c := newChat(t)
	m := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "alice", Name: "alice"}, Online: hub, Rooms: rooms,
		Chat: c, ChatMember: chat.Member{ID: "alice", Name: "alice"}})
	defer m.Detach(context.Background())
	// Settled: the room, new to the rooms' follower, has been looked at
	// once (Rooms.Shown: once a second).
	if got := driveLobby(ctx, m, 1500*time.Millisecond, 3*time.Second); len(got) != 0 {
		t.Fatalf("an idle lobby was given %d messages in 3 s: %#v", len(got), got)
	}
}

// A lobby on the queue's page ticks once a second, the clock it shows,
// and stops ticking when the page goes.
func TestQueuePageTicksWhileShown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mm, _ := testMatchmaker(t)
	m := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "alice", Name: "alice"}, Online: lobby.NewHub(), Matchmaker: mm})
	m.Init()
	tk, err := mm.Join("pong-1v1", "alice", "alice", 1500)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := newQueuePage(ctx, mm, m, tk)
	m.scr, m.state = p, stMenu
	if _, cmd := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24}); !ticks(t, cmd) {
		t.Fatal("the queue's page is on screen and the lobby armed no clock")
	}
	if _, cmd := m.Update(refreshMsg{}); !ticks(t, cmd) {
		t.Fatal("the queue's clock stopped after a tick")
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if m.state == stMenu {
		t.Fatal("esc did not leave the queue")
	}
	if _, cmd := m.Update(refreshMsg{}); ticks(t, cmd) {
		t.Fatal("the clock ticks on after the queue's page went")
	}
}

// ticks says whether cmd (or a batch in it) delivers a refreshMsg.
func ticks(t *testing.T, cmd tea.Cmd) bool {
	for _, msg := range runCmd(t, cmd) {
		if _, ok := msg.(refreshMsg); ok {
			return true
		}
	}
	return false
}
