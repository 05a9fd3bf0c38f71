package cluster

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
)

// A player on an edge node plays on while his node's renewal of the room
// waits on a slow owner: bob's input through n2's handle reaches the room
// on n1 and the frame acknowledging it comes back to n2 while n1 has not
// yet answered n2's renewal (n1's control requests held by a test hook;
// n2 waits a minute for the answer). Before, the renewal and the inputs
// shared one loop: bob's keys waited for the renewal's answer.
func TestEdgeInputsDoNotWaitOnARenewal(t *testing.T) {
	url := natstest.Start(t)
	games := game.Catalog{pong.Kind{}}
	ctx := t.Context()
	var (
		arm     atomic.Bool
		held    = make(chan struct{})
		release = make(chan struct{})
		once    sync.Once
	)
	defer once.Do(func() { close(release) })
	node := func(name string, lt linkTiming) *lobby.Rooms {
		n := connect(t, url, name)
		rs := lobby.NewRooms(ctx, lobby.RoomsConfig{Games: games, Node: name, Room: game.RoomConfig{Countdown: -1}})
		links, stop, err := n.serveRooms(rs, games, lt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
		rs.SetRemoteRooms(links)
		return rs
	}
	// n1 owns the room; once armed, it sits on the next renewal (an
	// attach from n2) until the test ends.
	rs1 := node("n1", linkTiming{control: func(m ctlMsg) {
		if m.Op == "attach" && m.Node == "n2" && arm.CompareAndSwap(true, false) {
			close(held)
			<-release
		}
	}})
	rs2 := node("n2", linkTiming{renew: 20 * time.Millisecond, renewWait: time.Minute})
	r1, err := rs1.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	rs2.SetRemote("n1", []lobby.RoomInfo{r1.Info()})
	r2, err := rs2.Find(r1.ID())
	if err != nil {
		t.Fatal(err)
	}
	alice, bob := game.Player{ID: "alice", Name: "alice"}, game.Player{ID: "bob", Name: "bob"}
	if _, err := r1.Join(ctx, alice, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Join(ctx, bob, 1); err != nil {
		t.Fatal(err)
	}
	if err := r1.SetReady(ctx, alice.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := r2.SetReady(ctx, bob.ID, true); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the match plays on n2's handle", func() bool { fr, _ := r2.Latest(); return fr.Phase == game.Playing })

	arm.Store(true)
	select {
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("n2 never renewed its handle")
	}
	// n2's renewal is outstanding now, and stays so until the test ends.
	acked := func(r *lobby.Room, seq uint32) bool {
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		for {
			fr, ch := r.Latest()
			if fr.Acks[1] >= seq {
				return true
			}
			select {
			case <-ch:
			case <-c.Done():
				return false
			}
		}
	}
	for seq := uint32(1); seq <= 3; seq++ {
		r2.Submit(bob.ID, game.Input{Slot: 1, Seq: seq, Action: 1})
		if !acked(r1, seq) {
			t.Fatalf("bob's input %d never reached the room on n1 while n2's renewal waited", seq)
		}
		if !acked(r2, seq) {
			t.Fatalf("the frame acknowledging bob's input %d never came back to n2 while its renewal waited", seq)
		}
	}
}
