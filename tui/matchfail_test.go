package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/store/bolt"
)

// A ranked match the matchmaker formed but could not make a room for (a
// server error: the ticket delivers no room) takes the player from the
// queue screen back to the lobby with a line saying so, instead of trying
// to join a room that does not exist.
func TestMatchWithNoRoomSaysServerError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rooms := lobby.NewRooms(ctx, lobby.RoomsConfig{Games: game.Catalog{pong.Kind{}}})
	mm, err := lobby.NewMatchmaker(rooms, &lobby.Cooldowns{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	alice := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "alice", Name: "alice"}, Online: lobby.NewHub(), Rooms: rooms,
		Matchmaker: mm, Store: st, Out: newVT(80, 24)})
	alice.queueFor(lobby.RankedMode("pong-1v1"))
	if queuedIn(alice) == nil {
		t.Fatalf("not queued: %q", alice.notice)
	}
	alice.Update(matchedMsg{nil})
	if alice.state != stLobby || alice.seat() != nil || queuedIn(alice) != nil {
		t.Fatalf("after a match with no room: state %v, in a room %v, queued %v", alice.state, alice.seat() != nil, queuedIn(alice) != nil)
	}
	if got := alice.render(); !strings.Contains(got, "could not start because of a server error") {
		t.Fatalf("the lobby does not say why:\n%s", got)
	}
}
