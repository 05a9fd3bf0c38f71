package cluster

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

// directory is a node's rooms as the test sets them, and what it heard
// of the others'.
type directory struct {
	mu      sync.Mutex
	local   []lobby.RoomInfo
	changed chan struct{}
	remote  map[string][]lobby.RoomInfo
}

func newDirectory() *directory {
	return &directory{changed: make(chan struct{}), remote: map[string][]lobby.RoomInfo{}}
}

func (d *directory) Local() ([]lobby.RoomInfo, <-chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.local), d.changed
}

func (d *directory) SetRemote(node string, infos []lobby.RoomInfo) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(infos) == 0 {
		delete(d.remote, node)
		return
	}
	d.remote[node] = infos
}

func (d *directory) set(infos ...lobby.RoomInfo) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.local = infos
	close(d.changed)
	d.changed = make(chan struct{})
}

func (d *directory) of(node string) []lobby.RoomInfo {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.remote[node]
}

// room is a 1v1 room in play with two players and a score.
func room(id string) lobby.RoomInfo {
	return lobby.RoomInfo{ID: id, Game: "pong", Mode: "1v1", Phase: game.Playing, Started: true, Seats: 2, Label: "1v1 · casual",
		Players: []lobby.SeatInfo{{Slot: 0, ID: "SHA256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", Name: "alice", Connected: true},
			{Slot: 1, ID: "SHA256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", Name: "bob", Connected: true}},
		Standing: []int{3, 5}}
}

// A room opened on one node reaches the other with its node and its
// state (players, phase, score), a room closed leaves, and a node that
// stops takes its rooms with it.
func TestRoomsAcrossNodes(t *testing.T) {
	url := natstest.Start(t)
	d1, d2 := newDirectory(), newDirectory()
	stop1, err := connect(t, url, "n1").ShareRooms(d1, fast)
	if err != nil {
		t.Fatal(err)
	}
	defer stop1()
	stop2, err := connect(t, url, "n2").ShareRooms(d2, fast)
	if err != nil {
		t.Fatal(err)
	}
	d1.set(room("r1@n1"), room("r2@n1"))
	eventually(t, "n2 lists n1's two rooms", func() bool { return len(d2.of("n1")) == 2 })
	got := d2.of("n1")[0]
	if got.ID != "r1@n1" || got.Node != "n1" || !got.Remote || got.Phase != game.Playing || !got.Started || got.Seats != 2 ||
		len(got.Players) != 2 || got.Players[1].Name != "bob" || !slices.Equal(got.Standing, []int{3, 5}) {
		t.Fatalf("n1's room on n2 = %+v", got)
	}
	if len(d1.of("n1")) != 0 {
		t.Fatal("n1 listed its own rooms as another node's")
	}
	d1.set(room("r2@n1"))
	eventually(t, "n2 drops the room n1 closed", func() bool { r := d2.of("n1"); return len(r) == 1 && r[0].ID == "r2@n1" })
	d2.set(room("r1@n2"))
	eventually(t, "n1 lists n2's room", func() bool { return len(d1.of("n2")) == 1 })
	stop2()
	eventually(t, "n1 forgets n2's rooms when it stops", func() bool { return len(d1.of("n2")) == 0 })
}

// BenchmarkRoomDirectory measures a node's directory message with N rooms
// in play: each node sends one a heartbeat (1 s by default) and one when
// rooms open or close (gathered over 50 ms), and every other node
// receives it.
func BenchmarkRoomDirectory(b *testing.B) {
	for _, n := range []int{1, 10, 100, 1000} {
		infos := make([]lobby.RoomInfo, n)
		for i := range infos {
			infos[i] = room(lobby.RoomID(i+1, "node-1"))
		}
		b.Run(fmt.Sprintf("rooms=%d", n), func(b *testing.B) {
			var size int
			for b.Loop() {
				size = len(encodeRooms("node-1", false, infos))
			}
			b.ReportMetric(float64(size), "bytes/msg")
		})
	}
}
