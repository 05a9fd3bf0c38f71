package cluster

import (
	"testing"
	"time"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/lobby"
)

// fast makes the tests' nodes beat often, so forgetting one takes a
// fraction of a second rather than three.
var fast = PresenceTiming{Heartbeat: 50 * time.Millisecond, Forget: 300 * time.Millisecond, Settle: 5 * time.Millisecond}

func connect(t *testing.T, url, name string) *Node {
	t.Helper()
	n, err := Connect(url, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	return n
}

// eventually polls cond until it holds, failing after 10s: what another
// node says arrives asynchronously.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func online(h *lobby.Hub) int { n, _ := h.Online(); return n }

func whoNames(h *lobby.Hub) map[string]string {
	who, _ := h.Who()
	out := map[string]string{}
	for _, p := range who {
		out[p.Name] = p.Node + " " + p.Where
	}
	return out
}

// Players on two nodes see each other: the online count and who is
// online (with their node and what they are doing) agree on both; a
// move on one shows on the other; a node stopped cleanly is forgotten at
// once.
func TestPresenceAcrossNodes(t *testing.T) {
	url := natstest.Start(t)
	h1, h2 := lobby.NewNodeHub("n1"), lobby.NewNodeHub("n2")
	stop1, err := connect(t, url, "n1").SharePresence(h1, fast)
	if err != nil {
		t.Fatal(err)
	}
	defer stop1()
	stop2, err := connect(t, url, "n2").SharePresence(h2, fast)
	if err != nil {
		t.Fatal(err)
	}
	moveA, leaveA := h1.Enter(lobby.Presence{ID: "a", Name: "alice", Where: "lobby"}, nil)
	defer leaveA()
	leaveB := h2.Join(lobby.Presence{ID: "b", Name: "bob", Where: "lobby"}, nil)
	defer leaveB()
	eventually(t, "both nodes count 2 online", func() bool { return online(h1) == 2 && online(h2) == 2 })
	if w := whoNames(h2); w["alice"] != "n1 lobby" || w["bob"] != "n2 lobby" {
		t.Fatalf("who on n2 = %v", w)
	}
	moveA("room r3")
	eventually(t, "n2 sees alice playing in r3", func() bool { return whoNames(h2)["alice"] == "n1 room r3" })
	stop2()
	eventually(t, "n1 forgets n2 stopped", func() bool { return online(h1) == 1 })
}

// A node that dies without a word (its NATS connection gone) is forgotten
// by the others within a few heartbeats.
func TestPresenceForgetsADeadNode(t *testing.T) {
	url := natstest.Start(t)
	h1, h2 := lobby.NewNodeHub("n1"), lobby.NewNodeHub("n2")
	stop1, err := connect(t, url, "n1").SharePresence(h1, fast)
	if err != nil {
		t.Fatal(err)
	}
	defer stop1()
	n2 := connect(t, url, "n2")
	stop2, err := n2.SharePresence(h2, fast)
	if err != nil {
		t.Fatal(err)
	}
	defer stop2()
	leaveB := h2.Join(lobby.Presence{ID: "b", Name: "bob", Where: "lobby"}, nil)
	defer leaveB()
	eventually(t, "n1 sees bob", func() bool { return online(h1) == 1 })
	n2.nc.Close() // as if its process were killed: no goodbye
	eventually(t, "n1 forgets the dead n2", func() bool { return online(h1) == 0 })
}
