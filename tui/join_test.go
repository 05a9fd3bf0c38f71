package tui

import (
	"context"
	"testing"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
)

// A join the room cannot take is explained in words, never with the
// room's internal error or an empty list of free sides.
func TestJoinRefusalsAreExplained(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rooms := lobby.NewRooms(ctx, lobby.RoomsConfig{})
	r, err := rooms.Create(pong.OneVOne, false)
	if err != nil {
		t.Fatal(err)
	}
	m := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "carol", Name: "carol"}, Online: lobby.NewHub(), Rooms: rooms})

	m.join(joinMsg{room: r, side: 3})
	if want := r.ID() + " is a 1v1 room: it has no bottom side."; m.notice != want {
		t.Fatalf("bottom side of a 1v1: notice %q, want %q", m.notice, want)
	}
	for _, id := range []game.PlayerID{"alice", "bob"} {
		if _, err := r.Join(ctx, game.Player{ID: id, Name: string(id)}, -1); err != nil {
			t.Fatal(err)
		}
	}
	for _, side := range []int{0, -1} {
		m.join(joinMsg{room: r, side: side})
		if want := "Room " + r.ID() + " is full."; m.notice != want {
			t.Fatalf("side %d of a full room: notice %q, want %q", side, m.notice, want)
		}
	}
}
