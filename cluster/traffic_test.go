package cluster

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/lobby"
)

// TestMeasureSharedTraffic measures what presence and the room directory
// cost each node on NATS, at the default 1 s heartbeat, with N sessions
// and N/2 rooms in play on every node of a 3-node cluster: the bytes each
// node sends and receives a second (NATS delivers each node's message to
// every node, itself included), with whole lists every heartbeat (as
// builds before deltas, and a cluster with such a node in it) and with
// deltas, at rest and with 10 sessions a second moving on each node. A
// figure, not a check: it runs only with TERMARENA_MEASURE=1 (README's
// "what a fourth node costs").
//
//	TERMARENA_MEASURE=1 go test ./cluster/ -run TestMeasureSharedTraffic -v
func TestMeasureSharedTraffic(t *testing.T) {
	if os.Getenv("TERMARENA_MEASURE") == "" {
		t.Skip("a measurement: TERMARENA_MEASURE=1 runs it")
	}
	const nodes, window = 3, 5 * time.Second
	for _, whole := range []bool{true, false} {
		for _, n := range []int{0, 100, 1000} {
			for _, moving := range []bool{false, true} {
				measureShared(t, nodes, n, whole, moving, window)
			}
		}
	}
}

func measureShared(t *testing.T, nodes, n int, whole, moving bool, window time.Duration) {
	url := natstest.Start(t)
	tm := PresenceTiming{wholeOnly: whole}
	var (
		ns    []*Node
		moves [][]func(string)
	)
	for i := range nodes {
		name := fmt.Sprintf("node-%d", i+1)
		node := connect(t, url, name)
		node.Advertise(name + ".example.com:2222")
		h := lobby.NewNodeHub(name)
		var mv []func(string)
		for s := range n {
			move, _ := h.Enter(lobby.Presence{ID: fmt.Sprintf("SHA256:%043d", i*100000+s), Name: fmt.Sprintf("player%d", i*100000+s),
				Addr: "203.0.113.7:51234", Where: "room r3@" + name, Since: time.Now()}, nil)
			mv = append(mv, move)
		}
		moves = append(moves, mv)
		d := newDirectory()
		infos := make([]lobby.RoomInfo, n/2)
		for r := range infos {
			infos[r] = room(lobby.RoomID(r+1, name))
		}
		d.set(infos...)
		stopP, err := node.SharePresence(h, tm)
		if err != nil {
			t.Fatal(err)
		}
		stopR, err := node.ShareRooms(d, tm)
		if err != nil {
			t.Fatal(err)
		}
		defer stopP()
		defer stopR()
		ns = append(ns, node)
	}
	time.Sleep(2 * time.Second) // past the first messages
	before := ns[0].Stats()
	end := time.Now().Add(window)
	for i := 0; time.Now().Before(end); i++ {
		time.Sleep(100 * time.Millisecond)
		if moving && n > 0 {
			for _, mv := range moves {
				mv[i%n](fmt.Sprintf("room r%d@x", i))
			}
		}
	}
	after := ns[0].Stats()
	sec := window.Seconds()
	kind, doing := "deltas", "at rest"
	if whole {
		kind = "whole lists"
	}
	if moving {
		doing = "10 moves a second a node"
	}
	t.Logf("%s, %d nodes, %d sessions and %d rooms a node, %s: a node sends %.0f B/s (%.1f msgs/s), receives %.0f B/s (%.1f msgs/s)",
		kind, nodes, n, n/2, doing, float64(after.OutBytes-before.OutBytes)/sec, float64(after.OutMsgs-before.OutMsgs)/sec,
		float64(after.InBytes-before.InBytes)/sec, float64(after.InMsgs-before.InMsgs)/sec)
}
