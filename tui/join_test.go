package tui

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/store/bolt"
)

// A join the room cannot take is explained in words, never with the
// room's internal error or an empty list of free sides.
func TestJoinRefusalsAreExplained(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rooms := lobby.NewRooms(ctx, lobby.RoomsConfig{Games: game.Catalog{pong.Kind{}}})
	r, err := rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	m := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "carol", Name: "carol"}, Online: lobby.NewHub(), Rooms: rooms})

	m.join(joinMsg{room: r, side: 3})
	if want := r.ID() + " is a 1v1 room with no seat 4: its seats are left and right."; m.notice != want {
		t.Fatalf("bottom side of a 1v1: notice %q, want %q", m.notice, want)
	}
	if _, err := r.Join(ctx, game.Player{ID: "alice", Name: "alice"}, 0); err != nil {
		t.Fatal(err)
	}
	m.join(joinMsg{room: r, side: 0})
	if want := "In " + r.ID() + ", left is taken; free: right."; m.notice != want {
		t.Fatalf("a taken side: notice %q, want %q", m.notice, want)
	}
	for _, id := range []game.PlayerID{"bob"} {
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

// A ranked room says who may sit in it, to a stranger and to a player who
// already walked out of it, rather than the room's own error strings.
func TestJoinRankedRefusalsAreExplained(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rooms := lobby.NewRooms(ctx, lobby.RoomsConfig{Games: game.Catalog{pong.Kind{}}})
	ids := []game.PlayerID{"alice", "bob", "dave"}
	var players []lobby.Entry
	for _, id := range ids {
		players = append(players, lobby.Entry{ID: string(id), Name: string(id)})
	}
	r, err := rooms.CreateRanked(lobby.Match{Mode: lobby.RankedMode("pong-ffa4"), Players: players})
	if err != nil {
		t.Fatal(err)
	}
	carol := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "carol", Name: "carol"}, Online: lobby.NewHub(), Rooms: rooms})
	carol.join(joinMsg{room: r, side: -1})
	if want := r.ID() + " is a ranked match: only its players sit in it. Watch it with w."; carol.notice != want {
		t.Fatalf("a stranger: notice %q, want %q", carol.notice, want)
	}
	for _, id := range ids {
		if _, err := r.Join(ctx, game.Player{ID: id, Name: string(id)}, -1); err != nil {
			t.Fatal(err)
		}
	}
	// bob walks out; alice and dave play on.
	if err := r.Leave(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	bob := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "bob", Name: "bob"}, Online: lobby.NewHub(), Rooms: rooms})
	bob.join(joinMsg{room: r, side: -1})
	if want := "The match in " + r.ID() + " has started without you. Watch it with w."; bob.notice != want {
		t.Fatalf("bob back after walking out: notice %q, want %q", bob.notice, want)
	}
}

// A ranked room is not found by id, but its own player, in another
// terminal, gets back to the seat with its id; anyone else is told whose
// room it is rather than that no such room is open.
func TestJoinOwnRankedRoomByID(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rooms := lobby.NewRooms(ctx, lobby.RoomsConfig{Games: game.Catalog{pong.Kind{}}})
	r, err := rooms.CreateRanked(lobby.Match{Mode: lobby.RankedMode("pong-1v1"), Players: []lobby.Entry{{ID: "alice", Name: "alice"}, {ID: "bob", Name: "bob"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []game.PlayerID{"alice", "bob"} {
		if _, err := r.Join(ctx, game.Player{ID: id, Name: string(id)}, -1); err != nil {
			t.Fatal(err)
		}
	}
	carol := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "carol", Name: "carol"}, Online: lobby.NewHub(), Rooms: rooms})
	carol.join(joinMsg{ref: r.ID(), side: -1})
	if want := r.ID() + " is a ranked match: only its players sit in it. Watch it with w."; carol.notice != want || carol.seat() != nil {
		t.Fatalf("a stranger by id: notice %q, want %q", carol.notice, want)
	}
	alice := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "alice", Name: "alice"}, Online: lobby.NewHub(), Rooms: rooms, Out: newVT(80, 24)})
	alice.join(joinMsg{ref: r.ID(), side: -1})
	if alice.seat() == nil || alice.seat().slot != 0 || alice.notice != "" {
		t.Fatalf("alice's second terminal: in %v, notice %q", alice.seat() != nil, alice.notice)
	}
}

// A player whose ranked seat is waiting for them (another terminal
// dropped; the grace runs) and who asks for the queue is taken back to
// that match instead of being queued while it forfeits.
func TestQueueingWhileASeatWaitsRejoinsTheMatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rooms := lobby.NewRooms(ctx, lobby.RoomsConfig{Games: game.Catalog{pong.Kind{}}, Room: game.RoomConfig{Grace: time.Minute}})
	mm, err := lobby.NewMatchmaker(rooms, &lobby.Cooldowns{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := rooms.CreateRanked(lobby.Match{Mode: lobby.RankedMode("pong-1v1"), Players: []lobby.Entry{{ID: "alice", Name: "alice"}, {ID: "bob", Name: "bob"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []game.PlayerID{"alice", "bob"} {
		if _, err := r.Join(ctx, game.Player{ID: id, Name: string(id)}, -1); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Disconnect(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	waitHolding := time.Now().Add(5 * time.Second)
	for {
		if _, ok := rooms.Holding("alice"); ok {
			break
		}
		if time.Now().After(waitHolding) {
			t.Fatal("alice's seat never waited for her")
		}
		time.Sleep(5 * time.Millisecond)
	}
	alice := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "alice", Name: "alice"}, Online: lobby.NewHub(), Rooms: rooms,
		Matchmaker: mm, Store: st, Out: newVT(80, 24)})
	alice.queueFor(lobby.RankedMode("pong-1v1"))
	if alice.seat() == nil || alice.seat().room != r || queuedIn(alice) != nil {
		t.Fatalf("queueing with a seat waiting: in room %v, queued %v, notice %q", alice.seat() != nil, queuedIn(alice) != nil, alice.notice)
	}
}
