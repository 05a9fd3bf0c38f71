package cluster

import (
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/lobby"
)

// deltaTiming beats fast and sends whole lists only when asked (and at
// the start): what reaches the other nodes after that came as deltas.
var deltaTiming = PresenceTiming{Heartbeat: 50 * time.Millisecond, Forget: 300 * time.Millisecond, Settle: 5 * time.Millisecond, Full: time.Hour}

// sharing is one node sharing its presence and rooms.
type sharing struct {
	node *Node
	hub  *lobby.Hub
	dir  *directory
}

func startSharing(t *testing.T, url, name string, tm PresenceTiming) *sharing {
	t.Helper()
	s := &sharing{node: connect(t, url, name), hub: lobby.NewNodeHub(name), dir: newDirectory()}
	stopP, err := s.node.SharePresence(s.hub, tm)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopP)
	stopR, err := s.node.ShareRooms(s.dir, tm)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopR)
	return s
}

// within polls cond until it holds, failing after d.
func within(t *testing.T, d time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > d {
			t.Fatalf("not within %v: %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
}

// roomsOf is a directory's rooms as another node shows them: id, players
// and score, in order.
func roomsOf(infos []lobby.RoomInfo) []string {
	var out []string
	for _, ri := range infos {
		out = append(out, fmt.Sprintf("%s %d %v", ri.ID, len(ri.Players), ri.Standing))
	}
	return out
}

// Thirty logins, moves and logouts and room changes on n1 reach n2 and
// n3 as deltas: a second after the last, who is online and n1's rooms
// read the same on all three nodes (whole lists go out only at the
// start here).
func TestPresenceAndRoomsAsDeltasMatchOnEveryNode(t *testing.T) {
	url := natstest.Start(t)
	n1, n2, n3 := startSharing(t, url, "n1", deltaTiming), startSharing(t, url, "n2", deltaTiming), startSharing(t, url, "n3", deltaTiming)
	defer n2.hub.Join(lobby.Presence{ID: "b", Name: "bob", Where: "lobby"}, nil)()
	defer n3.hub.Join(lobby.Presence{ID: "c", Name: "carol", Where: "lobby"}, nil)()
	within(t, 10*time.Second, "every node counts bob and carol", func() bool {
		return online(n1.hub) == 2 && online(n2.hub) == 2 && online(n3.hub) == 2
	})
	var (
		leaves []func()
		moves  []func(string)
		rooms  []lobby.RoomInfo
	)
	for i := range 30 {
		switch {
		case i%5 == 4: // a logout
			leaves[0]()
			leaves, moves = leaves[1:], moves[1:]
		case i%5 == 3: // a move into a room, which opens or scores
			moves[len(moves)-1](fmt.Sprintf("room r%d@n1", i))
			if i%2 == 1 {
				rooms = append(rooms, room(lobby.RoomID(i, "n1")))
			} else {
				rooms[0].Standing = []int{i, 1}
			}
			n1.dir.set(slices.Clone(rooms)...)
		default: // a login
			move, leave := n1.hub.Enter(lobby.Presence{ID: fmt.Sprintf("guest-%d", i), Name: fmt.Sprintf("p%d", i), Where: "lobby", Since: time.Now()}, nil)
			moves, leaves = append(moves, move), append(leaves, leave)
		}
		time.Sleep(time.Duration(i%4) * 3 * time.Millisecond)
	}
	defer func() {
		for _, leave := range leaves {
			leave()
		}
	}()
	want, wantRooms := whoNames(n1.hub), roomsOf(rooms)
	for _, n := range []*sharing{n2, n3} {
		took := within(t, time.Second, "n1's changes reach "+n.node.Name(), func() bool {
			return maps.Equal(whoNames(n.hub), want) && slices.Equal(roomsOf(n.dir.of("n1")), wantRooms)
		})
		t.Logf("%s matches n1 %v after its last change (%d online, %d rooms)", n.node.Name(), took.Round(time.Millisecond), len(want), len(rooms))
	}
}

// A delta lost on its way to n2 is repaired by n2 asking n1 for its
// whole list (the only whole lists here are the start's and the asked
// ones): n2 shows what it had meanwhile, then the login it missed.
func TestALostDeltaIsRepairedByAskingForTheWhole(t *testing.T) {
	url := natstest.Start(t)
	var arm, dropped atomic.Bool
	lossy := deltaTiming
	lossy.drop = func(d deltaMsg) bool {
		return d.Node == "n1" && d.Set != nil && arm.Load() && dropped.CompareAndSwap(false, true)
	}
	n1, n2 := startSharing(t, url, "n1", deltaTiming), startSharing(t, url, "n2", lossy)
	defer n1.hub.Join(lobby.Presence{ID: "a", Name: "alice", Where: "lobby"}, nil)()
	within(t, 10*time.Second, "n2 sees alice", func() bool { return online(n2.hub) == 1 })
	arm.Store(true)
	defer n1.hub.Join(lobby.Presence{ID: "d", Name: "dave", Where: "lobby"}, nil)()
	within(t, 10*time.Second, "n2 lost the delta with dave", dropped.Load)
	if w := whoNames(n2.hub); w["alice"] == "" {
		t.Fatalf("n2 stopped showing alice when it lost a delta: %v", w)
	}
	took := within(t, 10*time.Second, "n2 sees dave after all", func() bool { return whoNames(n2.hub)["dave"] == "n1 lobby" })
	t.Logf("the lost delta repaired %v after it was dropped", took.Round(time.Millisecond))
	if w := whoNames(n2.hub); len(w) != 2 {
		t.Fatalf("who on n2 after the repair = %v", w)
	}
}

// A node of an older build, which sends and reads whole lists only,
// still sees the players of a node that sends deltas, long after it
// would forget a node it no longer heard, and its changes; and that node
// sees the old one's players.
func TestAnOlderNodeReadingWholeListsStillSeesEveryone(t *testing.T) {
	url := natstest.Start(t)
	// Forget over a second: a loaded test host may hold a message up
	// longer than the other tests' 300 ms.
	tm := deltaTiming
	tm.Forget = 1500 * time.Millisecond
	old := tm
	old.wholeOnly = true
	n1, n3 := startSharing(t, url, "n1", tm), startSharing(t, url, "n3", old)
	defer n1.hub.Join(lobby.Presence{ID: "a", Name: "alice", Where: "lobby"}, nil)()
	defer n3.hub.Join(lobby.Presence{ID: "c", Name: "carol", Where: "lobby"}, nil)()
	n1.dir.set(room("r1@n1"))
	within(t, 10*time.Second, "n1 and the old n3 see each other", func() bool {
		return online(n1.hub) == 2 && online(n3.hub) == 2 && len(n3.dir.of("n1")) == 1
	})
	time.Sleep(2 * tm.Forget) // an old node forgets a node silent for Forget
	if online(n3.hub) != 2 || len(n3.dir.of("n1")) != 1 {
		t.Fatalf("the old n3 forgot n1: %v, rooms %v", whoNames(n3.hub), n3.dir.of("n1"))
	}
	defer n1.hub.Join(lobby.Presence{ID: "d", Name: "dave", Where: "lobby"}, nil)()
	within(t, 10*time.Second, "the old n3 sees dave's login on n1", func() bool { return whoNames(n3.hub)["dave"] == "n1 lobby" })
	if w := whoNames(n1.hub); w["carol"] != "n3 lobby" {
		t.Fatalf("who on n1 = %v", w)
	}
}

// At rest, what a node sends for presence does not grow with its
// sessions: with 200 online it sends as little as with none, a number a
// beat (whole lists at the start and every Full only). Before, it sent
// its whole list every heartbeat: about 200 B a session a beat.
func TestPresenceAtRestCostsTheSameWithManySessions(t *testing.T) {
	rest := func(sessions int) float64 {
		url := natstest.Start(t)
		n := connect(t, url, "n1")
		h := lobby.NewNodeHub("n1")
		for i := range sessions {
			h.Join(lobby.Presence{ID: fmt.Sprintf("SHA256:%043d", i), Name: fmt.Sprintf("player%d", i), Addr: "203.0.113.7:51234",
				Where: "lobby", Since: time.Now()}, nil)
		}
		stop, err := n.SharePresence(h, deltaTiming)
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		// Past the start's whole list: it is the node's first message
		// (a loaded host may send it well after SharePresence returns).
		within(t, 10*time.Second, "the start's whole list to go out", func() bool { return n.Stats().OutMsgs >= 1 })
		before := n.Stats().OutBytes
		time.Sleep(time.Second)
		return float64(n.Stats().OutBytes - before)
	}
	none, many := rest(0), rest(200)
	t.Logf("a node at rest sends %.0f B a second for presence with nobody online, %.0f B with 200 (heartbeat %v)", none, many, deltaTiming.Heartbeat)
	if many > 2*none+500 {
		t.Fatalf("at rest a node sends %.0f B a second with 200 sessions against %.0f B with none: it grows with the sessions", many, none)
	}
}
