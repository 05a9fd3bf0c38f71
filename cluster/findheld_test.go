package cluster

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
)

// seatNode is a node that claims its name and serves its rooms, as
// app.Assemble wires one.
func seatNode(t *testing.T, url, name string) (*lobby.Rooms, *RoomLinks) {
	t.Helper()
	n := connect(t, url, name)
	stopName, err := n.ClaimName(context.Background(), NameTiming{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rooms := lobby.NewRooms(ctx, lobby.RoomsConfig{Games: game.Catalog{pong.Kind{}}, Node: name, Room: game.RoomConfig{Countdown: time.Millisecond}})
	links, stop, err := n.ServeRooms(rooms, rooms.Games())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(); cancel(); stopName() })
	return rooms, links
}

// Every node is asked at once which of its rooms holds a player's dropped
// seat: the node running it names it, a private room too, and an asker
// with nothing to find stops once every live node that answers has said
// so, without waiting for its deadline on a node of an older build,
// which never answers (its name says so).
func TestFindHeldAsksEveryLiveNode(t *testing.T) {
	url := natstest.Start(t)
	_, links1 := seatNode(t, url, "n1")
	rooms2, _ := seatNode(t, url, "n2")
	seatNode(t, url, "n3")
	older := connect(t, url, "n4") // claims its name, answers nothing
	stopOlder, err := older.ClaimName(context.Background(), NameTiming{})
	if err != nil {
		t.Fatal(err)
	}
	defer stopOlder()

	r, err := rooms2.Create("pong", "1v1", true)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for slot, id := range []game.PlayerID{"bob", "ann"} {
		if _, err := r.Join(ctx, game.Player{ID: id, Name: string(id)}, slot); err != nil {
			t.Fatal(err)
		}
		if err := r.SetReady(ctx, id, true); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the match to start", func() bool { fr, _ := r.Latest(); return fr.Phase == game.Playing })
	if err := r.Disconnect(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "bob's seat in grace", func() bool { fr, _ := r.Latest(); return fr.Seats[0].Taken && !fr.Seats[0].Connected })
	eventually(t, "n1 to know n2 and n3 answer", func() bool { nodes, _ := links1.n.seatNodes(); return len(nodes) == 2 })

	deadline, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	got, err := links1.FindHeld(deadline, "bob")
	if err != nil || !slices.Equal(got, []string{r.ID()}) {
		t.Fatalf("FindHeld(bob) = %v, %v; want [%s]", got, err, r.ID())
	}
	got, err = links1.FindHeld(deadline, "carol")
	if err != nil || len(got) != 0 || deadline.Err() != nil {
		t.Fatalf("FindHeld(carol) = %v, %v (deadline %v); want nothing, answered by n2 and n3 before the deadline", got, err, deadline.Err())
	}
}
