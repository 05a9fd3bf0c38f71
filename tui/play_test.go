package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

// Back from a game the rooms list has its cursor on the room the player
// left, though the list changed meanwhile: the menus keep which room was
// picked, not a line number, and hold no list while the game is up.
func TestBackFromAGameTheCursorIsOnTheRoomLeft(t *testing.T) {
	rooms := testRooms(t)
	var rs []*lobby.Room
	for range 3 {
		r, err := rooms.Create("pong", "1v1", false)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	// bob waits in the middle one, so it stays open after alice leaves.
	if _, err := rs[1].Join(t.Context(), game.Player{ID: "bob", Name: "bob"}, -1); err != nil {
		t.Fatal(err)
	}
	m := NewLobby(LobbyDeps{Ctx: t.Context(), Player: game.Player{ID: "alice", Name: "alice"}, Online: lobby.NewHub(),
		Rooms: rooms, Out: newVT(80, 24)})
	defer m.Detach(context.Background())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	picked := func() string {
		for _, l := range strings.Split(ansi.Strip(m.render()), "\n") {
			if _, after, ok := strings.Cut(l, "▸ "); ok {
				return strings.Fields(after)[0]
			}
		}
		return ""
	}
	press(m, "down")
	if got := picked(); got != rs[1].ID() {
		t.Fatalf("cursor on %q, want %s", got, rs[1].ID())
	}
	press(m, "enter")
	if s := m.seat(); s == nil || s.room != rs[1] {
		t.Fatalf("enter did not seat alice in %s: %q", rs[1].ID(), m.notice)
	}
	if len(m.home.rooms) != 0 || m.memo.out != "" {
		t.Fatalf("during the game the menus hold %d rooms and a %d-byte frame", len(m.home.rooms), len(m.memo.out))
	}
	rs[0].Close() // the room above hers closes while she plays
	deadline := time.Now().Add(5 * time.Second)
	for {
		if l, _ := rooms.List(); len(l) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("r1 did not close")
		}
		time.Sleep(10 * time.Millisecond)
	}
	press(m, "q")
	if m.play != nil {
		t.Fatal("q did not leave the room")
	}
	if got := picked(); got != rs[1].ID() {
		t.Fatalf("back in the lobby the cursor is on %q, want %s (the room left)", got, rs[1].ID())
	}
}

// Back from a room the player created (c, enter) the cursor is on that
// room, not on the one it was on before she created it: in the tour the
// creator of r3 came back from the match on r1.
func TestBackFromARoomYouCreatedTheCursorIsOnIt(t *testing.T) {
	rooms := testRooms(t)
	for range 2 { // r1 and r2 above hers
		if _, err := rooms.Create("pong", "1v1", false); err != nil {
			t.Fatal(err)
		}
	}
	m := NewLobby(LobbyDeps{Ctx: t.Context(), Player: game.Player{ID: "alice", Name: "alice"}, Online: lobby.NewHub(),
		Rooms: rooms, Out: newVT(80, 24)})
	defer m.Detach(context.Background())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	press(m, "c", "enter")
	s := m.seat()
	if s == nil {
		t.Fatalf("c, enter did not seat alice in a new room: %q", m.notice)
	}
	mine := s.room
	// bob sits down too, so her room stays open after she leaves.
	if _, err := mine.Join(t.Context(), game.Player{ID: "bob", Name: "bob"}, -1); err != nil {
		t.Fatal(err)
	}
	press(m, "q")
	if m.play != nil {
		t.Fatal("q did not leave the room")
	}
	for _, l := range strings.Split(ansi.Strip(m.render()), "\n") {
		if _, after, ok := strings.Cut(l, "▸ "); ok {
			if got := strings.Fields(after)[0]; got != mine.ID() {
				t.Fatalf("back in the lobby the cursor is on %q, want %s (the room she created and left)", got, mine.ID())
			}
			return
		}
	}
	t.Fatalf("no cursor in the lobby:\n%s", ansi.Strip(m.render()))
}
