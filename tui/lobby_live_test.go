package tui

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

// runCmd runs cmd as Bubble Tea would and returns the messages it (and
// any batch in it) produced, giving each blocking command up to 5 s.
func runCmd(t *testing.T, cmd tea.Cmd) []tea.Msg {
	t.Helper()
	if cmd == nil {
		return nil
	}
	got := make(chan tea.Msg, 1)
	go func() { got <- waited(context.Background(), cmd()) }()
	var msg tea.Msg
	select {
	case msg = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("command did not return within 5 s")
	}
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, runCmd(t, c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// waited is msg as the session's driver delivers it: a wait the command
// handed over is waited for (until ctx ends) and its message returned.
func waited(ctx context.Context, msg tea.Msg) tea.Msg {
	if w, ok := msg.(WaitMsg); ok {
		return w.block(ctx)()
	}
	return msg
}

func onlineIn(msgs []tea.Msg) (onlineMsg, bool) {
	for _, m := range msgs {
		if o, ok := m.(onlineMsg); ok {
			return o, true
		}
	}
	return onlineMsg{}, false
}

// A player in a game does not follow the lobby's online count (every
// change would wake every player in every game); back in the lobby they
// see the count as it is now, and follow it again.
func TestLobbyFiguresPauseDuringAGameAndResume(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hub := lobby.NewHub()
	join := func(name string) func() {
		return hub.Join(lobby.Presence{ID: name, Name: name, Since: time.Now()}, func(lobby.Notice) {})
	}
	defer join("alice")()
	m := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "alice", Name: "alice"}, Online: hub})
	m.Init()

	m.play = &stubScreen{} // a game screen is up
	defer join("bob")()
	n, next := hub.Online()
	if _, cmd := m.Update(onlineMsg{n, next}); cmd != nil {
		t.Fatalf("in a game, a change of the online count armed a command: %v", runCmd(t, cmd))
	}
	if _, cmd := m.Update(refreshMsg{}); func() bool { _, ok := onlineIn(runCmd(t, cmd)); return ok }() {
		t.Fatal("in a game, a refresh re-read the online count")
	}

	defer join("carol")() // while alice plays: 3 online
	m.play = nil
	_, cmd := m.Update(refreshMsg{})
	o, ok := onlineIn(runCmd(t, cmd))
	if !ok || o.n != 3 {
		t.Fatalf("back in the lobby: re-read %+v (found %v), want 3 online", o, ok)
	}
	_, cmd = m.Update(o)
	if m.online != 3 || cmd == nil {
		t.Fatalf("online %d, watcher %v: want 3 and a watcher", m.online, cmd != nil)
	}
	later := make(chan []tea.Msg, 1)
	go func() { later <- runCmd(t, cmd) }()
	defer join("dave")()
	if o, ok := onlineIn(<-later); !ok || o.n != 4 {
		t.Fatalf("after dave joined the lobby saw %+v, want 4 online", o)
	}
}

// On a busy server a lobby re-reads the online count less often, so that
// logins cost all lobbies together a bounded number of redraws a second:
// at a thousand online, every 4 s; at a few, after a second as before.
func TestLobbyFollowsTheCountLessOftenWhenBusy(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hub := lobby.NewHub()
	m := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "alice", Name: "alice"}, Online: hub})
	m.Init()
	for _, c := range []struct {
		online   int
		min, max time.Duration
	}{{3, 900 * time.Millisecond, 1100 * time.Millisecond}, {1000, 3900 * time.Millisecond, 4100 * time.Millisecond}} {
		_, cmd := m.Update(onlineMsg{c.online, make(chan struct{})})
		if cmd == nil {
			t.Fatalf("%d online: the lobby does not follow the count", c.online)
		}
		w, ok := cmd().(WaitMsg)
		if !ok {
			t.Fatalf("%d online: the lobby's follow is not a wait", c.online)
		}
		if gap := time.Until(w.NotBefore); gap < c.min || gap > c.max {
			t.Errorf("%d online: the next read is %v away, want %v–%v", c.online, gap.Round(time.Millisecond), c.min, c.max)
		}
	}
}
