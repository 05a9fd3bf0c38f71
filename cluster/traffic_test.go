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
// every node, itself included). A figure, not a check: it runs only with
// TERMARENA_MEASURE=1 (README's "what a fourth node costs").
//
//	TERMARENA_MEASURE=1 go test ./cluster/ -run TestMeasureSharedTraffic -v
func TestMeasureSharedTraffic(t *testing.T) {
	if os.Getenv("TERMARENA_MEASURE") == "" {
		t.Skip("a measurement: TERMARENA_MEASURE=1 runs it")
	}
	const nodes, window = 3, 5 * time.Second
	for _, n := range []int{0, 100, 1000} {
		url := natstest.Start(t)
		var ns []*Node
		for i := range nodes {
			name := fmt.Sprintf("node-%d", i+1)
			node := connect(t, url, name)
			node.Advertise(name + ".example.com:2222")
			h := lobby.NewNodeHub(name)
			for s := range n {
				h.Join(lobby.Presence{ID: fmt.Sprintf("SHA256:%043d", i*100000+s), Name: fmt.Sprintf("player%d", i*100000+s),
					Addr: "203.0.113.7:51234", Where: "room r3@" + name, Since: time.Now()}, nil)
			}
			d := newDirectory()
			infos := make([]lobby.RoomInfo, n/2)
			for r := range infos {
				infos[r] = room(lobby.RoomID(r+1, name))
			}
			d.set(infos...)
			stopP, err := node.SharePresence(h, PresenceTiming{})
			if err != nil {
				t.Fatal(err)
			}
			stopR, err := node.ShareRooms(d, PresenceTiming{})
			if err != nil {
				t.Fatal(err)
			}
			defer stopP()
			defer stopR()
			ns = append(ns, node)
		}
		time.Sleep(2 * time.Second) // past the first messages
		before := ns[0].Stats()
		time.Sleep(window)
		after := ns[0].Stats()
		sec := window.Seconds()
		t.Logf("%d nodes, %d sessions and %d rooms a node: a node sends %.0f B/s (%.1f msgs/s), receives %.0f B/s (%.1f msgs/s)",
			nodes, n, n/2, float64(after.OutBytes-before.OutBytes)/sec, float64(after.OutMsgs-before.OutMsgs)/sec,
			float64(after.InBytes-before.InBytes)/sec, float64(after.InMsgs-before.InMsgs)/sec)
	}
}
