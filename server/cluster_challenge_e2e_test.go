package server_test

import (
	"strings"
	"testing"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/sshtest"
	"github.com/termarena/termarena/store/postgres/pgtest"
)

// A challenge reaches a player on another node and is answered there:
// ann on n1 challenges bob on n2, who sees the offer and accepts with y;
// the room is made on bob's node and ann sits in it from hers, both in
// one private casual room facing each other. Then bob declines ann's
// second challenge: she is told, and may not challenge him again for a
// while; bob's challenge to ann, withdrawn, leaves her screen. Before,
// the challenge was refused: "bob is on node n2: connect
// to n2 to challenge them".
func TestClusterChallengeAcrossNodesE2E(t *testing.T) {
	url := natstest.Start(t)
	n1 := startNode(t, url, "", "n1", nil)
	n2 := startNode(t, url, "", "n2", nil)
	ann := sshtest.Open(t, sshtest.Dial(t, n1.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 100, 40, "")
	ann.WaitFor(wait, "Welcome, ann!")
	bob := sshtest.Open(t, sshtest.Dial(t, n2.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 40, "")
	bob.WaitFor(wait, "Welcome, bob!")
	ann.WaitFor(wait, "bob (lobby)")

	say(ann, "/challenge bob 1v1")
	ann.WaitFor(wait, "waiting for bob to answer")
	bob.WaitFor(wait, "ann challenges you: pong-1v1, casual", "y accept · n decline")
	bob.Type("y")
	var room *lobby.Room
	waitUntil(t, "the challenge's room on n2 seating both", wait, func() bool {
		for _, r := range n2.Rooms.All() {
			fr, _ := r.Latest()
			if fr != nil && fr.Seats[0].Player.Name == "ann" && fr.Seats[1].Player.Name == "bob" {
				room = r
				return true
			}
		}
		return false
	})
	if room.Ranked != "" || !room.Private || room.Mode.Name != "1v1" {
		t.Fatalf("the challenge's room %s: ranked %q private %v mode %s; want a private casual 1v1", room.ID(), room.Ranked, room.Private, room.Mode.Name)
	}
	ann.WaitFor(wait, room.ID()+" · 1v1")
	bob.WaitFor(wait, room.ID()+" · 1v1")
	ann.Type("q")
	bob.Type("q")
	ann.WaitFor(wait, "Welcome, ann!")
	bob.WaitFor(wait, "Welcome, bob!")

	say(ann, "/challenge bob 1v1")
	bob.WaitFor(wait, "ann challenges you: pong-1v1, casual") // the offer's line, shown while it waits
	bob.Type("n")
	ann.WaitFor(wait, "bob declined your challenge")
	say(ann, "/challenge bob")
	ann.WaitFor(wait, "bob declined your challenge lately")
	if strings.Contains(ann.Screen(), "connect to n2") {
		t.Fatalf("ann was sent to n2:\n%s", ann.Screen())
	}

	// The other way, withdrawn: bob's challenge reaches ann on n1, and
	// his /cancel takes it off her screen.
	say(bob, "/challenge ann 1v1")
	ann.WaitFor(wait, "bob challenges you: pong-1v1, casual")
	say(bob, "/cancel")
	ann.WaitFor(wait, "bob withdrew their challenge")
	waitUntil(t, "the offer to leave ann's page", wait, func() bool { return !strings.Contains(ann.Screen(), "bob challenges you: ") })
}

// A ranked challenge across nodes is a ranked match as the queue makes
// one across nodes: the room on the challenged player's node, the
// challenger sitting in it from hers, and her node counting her in it (a
// second terminal of hers cannot queue).
func TestClusterRankedChallengeAcrossNodesE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	n1 := startNode(t, url, db, "n1", nil)
	n2 := startNode(t, url, db, "n2", nil)
	annKey := sshtest.NewKey(t)
	ann := sshtest.Open(t, sshtest.Dial(t, n1.Addr, sshtest.Config("ann", annKey)), 100, 40, "")
	ann.WaitFor(wait, "Welcome, ann!")
	bob := sshtest.Open(t, sshtest.Dial(t, n2.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 40, "")
	bob.WaitFor(wait, "Welcome, bob!")
	ann.WaitFor(wait, "bob (lobby)")

	say(ann, "/challenge bob pong-1v1 ranked")
	ann.WaitFor(wait, "waiting for bob to answer")
	bob.WaitFor(wait, "ann challenges you: pong-1v1, ranked")
	bob.Type("y")
	var room *lobby.Room
	waitUntil(t, "a ranked room on n2", wait, func() bool {
		for _, r := range n2.Rooms.All() {
			if r.Ranked == "pong-1v1" {
				room = r
				return true
			}
		}
		return false
	})
	ann.WaitFor(wait, room.ID()+" · pong-1v1 · ranked")
	bob.WaitFor(wait, room.ID()+" · pong-1v1 · ranked")
	waitUntil(t, "both seated", wait, func() bool {
		fr, _ := room.Latest()
		return fr.Seats[0].Taken && fr.Seats[1].Taken
	})
	ann2 := sshtest.Open(t, sshtest.Dial(t, n1.Addr, sshtest.Config("ann", annKey)), 100, 40, "")
	ann2.WaitFor(wait, "Welcome, ann!")
	ann2.Type("p")
	ann2.WaitFor(wait, "already playing a ranked pong-1v1 match, in "+room.ID())
}
