package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/service"
)

func whoIn(msgs []tea.Msg) (whoMsg, bool) {
	for _, m := range msgs {
		if w, ok := m.(whoMsg); ok {
			return w, true
		}
	}
	return whoMsg{}, false
}

// The lobby names who is online and what each is doing, counts guests,
// shows the ranked queues someone waits in (and their counts in the mode
// chooser), and follows a player moving; all within 80×24.
func TestLobbyShowsWhoIsOnline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, rooms, hub := testStore(t), testRooms(t), lobby.NewHub()
	mm, err := lobby.NewMatchmaker(rooms, &lobby.Cooldowns{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(st, rooms).WithOnline(hub, mm)
	enter := func(id, name string, guest bool, where string) func(string) {
		move, leave := hub.Enter(lobby.Presence{ID: id, Name: name, Guest: guest, Where: where, Since: time.Now()}, nil)
		t.Cleanup(leave)
		return move
	}
	enter("a", "alice", false, "room r3")
	bobMoves := enter("b", "bob", false, "lobby")
	enter("g", "guest-1", true, "lobby")
	m := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "b", Name: "bob"}, Online: hub, Rooms: rooms,
		Matchmaker: mm, Store: st, Who: svc})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	msg, ok := whoIn(runCmd(t, m.readWho()))
	if !ok {
		t.Fatal("the lobby does not read who is online")
	}
	_, next := m.Update(msg)
	screen := plain(m)
	for _, want := range []string{"3 players online: alice (playing r3), 1 guest"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("lobby lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "ranked queues") {
		t.Fatalf("an empty queue line is shown:\n%s", screen)
	}

	// Bob queues: the watcher wakes, the line says so and the queue count
	// appears.
	bobMoves("queue pong-1v1")
	if _, err := mm.Join("pong-1v1", "b", "bob", 1500); err != nil {
		t.Fatal(err)
	}
	msg, ok = whoIn(runCmd(t, next))
	if !ok {
		t.Fatal("the lobby did not follow bob's move")
	}
	m.Update(msg)
	screen = plain(m)
	for _, want := range []string{"● in ranked queues: pong-1v1 1/2"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("lobby lacks %q:\n%s", want, screen)
		}
	}
	m.Update(tea.KeyPressMsg{Code: 'P', Text: "P"})
	if screen = plain(m); !strings.Contains(screen, "pong-1v1 (1/2)") {
		t.Fatalf("the mode chooser lacks the queue's count:\n%s", screen)
	}
	checkFits(t, screen, 80, 24)
}

// Many players: the line names those that fit and counts the rest,
// never cutting a name or leaving 80 columns.
func TestLobbyOnlineLineFits(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hub := lobby.NewHub()
	for i := range 30 {
		name := fmt.Sprintf("player%02d", i)
		_, leave := hub.Enter(lobby.Presence{ID: name, Name: name, Where: "watching r12"}, nil)
		t.Cleanup(leave)
	}
	m := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "player00", Name: "player00"}, Online: hub, Rooms: testRooms(t),
		Who: service.New(testStore(t), nil).WithOnline(hub, nil)})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	msg, _ := whoIn(runCmd(t, m.readWho()))
	m.Update(msg)
	screen := plain(m)
	if !strings.Contains(screen, "30 players online: player01 (watching r12), +28 more") {
		t.Fatalf("the online line:\n%s", screen)
	}
	checkFits(t, screen, 80, 24)
}

func checkFits(t *testing.T, screen string, w, h int) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	if len(lines) > h {
		t.Errorf("%d lines, more than %d:\n%s", len(lines), h, screen)
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > w {
			t.Errorf("a line of %d columns: %q", ansi.StringWidth(l), l)
		}
	}
}

// TestLobbyHoldsNoListingDuringAGame: while a game screen is up the lobby
// keeps no listing of who is online once it changes (each player in a
// game held the version of his last read: as many listings of every
// player as versions), and the lobby's first picture after the game names
// the players as it did before.
func TestLobbyHoldsNoListingDuringAGame(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hub := lobby.NewHub()
	for _, name := range []string{"alice", "bob"} {
		_, leave := hub.Enter(lobby.Presence{ID: name, Name: name, Where: "lobby"}, nil)
		t.Cleanup(leave)
	}
	m := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "bob", Name: "bob"}, Online: hub, Rooms: testRooms(t),
		Who: service.New(testStore(t), nil).WithOnline(hub, nil)})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	msg, _ := whoIn(runCmd(t, m.readWho()))
	_, next := m.Update(msg)
	if screen := plain(m); !strings.Contains(screen, "alice (lobby)") {
		t.Fatalf("the online line:\n%s", screen)
	}

	m.play = &stubScreen{} // bob's game screen is up
	_, leave := hub.Enter(lobby.Presence{ID: "carol", Name: "carol", Where: "lobby"}, nil)
	t.Cleanup(leave)
	msg, ok := whoIn(runCmd(t, next))
	if !ok {
		t.Fatal("the lobby did not follow carol's arrival")
	}
	if _, cmd := m.Update(msg); cmd != nil {
		if _, ok := whoIn(runCmd(t, cmd)); ok {
			t.Fatal("the lobby follows who is online under a game screen")
		}
	}
	if m.people.who.Players != nil {
		t.Fatalf("during the game the lobby holds a listing of %d players", len(m.people.who.Players))
	}

	m.play = nil // back from the game: the next message draws the lobby
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if screen := plain(m); !strings.Contains(screen, "alice (lobby), carol (lobby)") {
		t.Fatalf("back from the game, the online line:\n%s", screen)
	}
}
