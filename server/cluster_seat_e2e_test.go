package server_test

import (
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/sshtest"
	"github.com/termarena/termarena/store/postgres/pgtest"
)

// playing seats alice (on her node, in the room she made) and bob (on
// another node, already in it) ready, and waits for the match to start.
func playing(t *testing.T, room *lobby.Room, alice, bob *sshtest.Term) {
	t.Helper()
	alice.Type("r")
	bob.Type("r")
	waitUntil(t, "the match to start", wait, func() bool { fr, _ := room.Latest(); return fr != nil && fr.Phase == game.Playing })
}

// dropAndReconnect closes bob's connection (his seat goes into grace) and
// opens a new session with his key on node at addr.
func dropAndReconnect(t *testing.T, bobConn *gossh.Client, bobKey gossh.Signer, alice *sshtest.Term, addr string) *sshtest.Term {
	t.Helper()
	bobConn.Close()
	alice.WaitFor(wait, "disconnected")
	return sshtest.Open(t, sshtest.Dial(t, addr, sshtest.Config("bob", bobKey)), 100, 30, "")
}

// A seat in another node's private room is found from a third node: bob
// on n2 plays in alice's private room on n1 (joined by its code); his
// connection drops; he reconnects to n3 and is back in his seat, the
// pause over. The directory lists no private casual room, so n3 did not
// know where to look and sent him to the lobby (issue 25's tour).
func TestClusterPrivateRoomSeatFromAThirdNodeE2E(t *testing.T) {
	url := natstest.Start(t)
	n1 := startPongNode(t, url, "", "n1", 50)
	n2 := startPongNode(t, url, "", "n2", 50)
	n3 := startPongNode(t, url, "", "n3", 50)

	alice := sshtest.Open(t, sshtest.Dial(t, n1.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 100, 30, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room", "mode: 1v1")
	alice.Type("p") // private
	alice.Type("\r")
	alice.WaitFor(wait, "r1@n1 · 1v1 · private · code ")
	rooms := n1.Rooms.All()
	if len(rooms) != 1 || rooms[0].Code == "" {
		t.Fatalf("n1's rooms: %v; want one private room with a code", rooms)
	}
	room := rooms[0]
	bobKey := sshtest.NewKey(t)
	bobConn := sshtest.Dial(t, n2.Addr, sshtest.Config("bob", bobKey))
	bob := sshtest.Open(t, bobConn, 100, 30, "join "+room.Code)
	bob.WaitFor(wait, "r1@n1 · 1v1 · private", "alice", "bob")
	alice.WaitFor(wait, "bob")
	playing(t, room, alice, bob)

	at := time.Now()
	again := dropAndReconnect(t, bobConn, bobKey, alice, n3.Addr)
	again.WaitFor(wait, "r1@n1 · 1v1 · private", "▸bob")
	t.Logf("reconnect to n3 → back in the private room: %v", time.Since(at).Round(time.Millisecond))
	waitUntil(t, "the pause to end", wait, func() bool { return !strings.Contains(alice.Screen(), "disconnected") })
	if fr, _ := room.Latest(); !fr.Seats[1].Taken || fr.Seats[1].Player.Name != "bob" || !fr.Seats[1].Connected {
		t.Fatalf("n1's room after bob came back from n3: %+v", fr.Seats)
	}
}

// A node that has not yet heard another node's rooms still finds a
// reconnecting player's seat there: the nodes repeat their room lists
// only every 30 s, so n3, started after alice opened her room on n1,
// does not list it; bob, who played it from n2, drops and reconnects to
// n3 and is back in his seat. Before, n3 trusted only its directory and
// sent him to the lobby.
func TestClusterNodeNotYetToldOfTheRoomFindsTheSeatE2E(t *testing.T) {
	url := natstest.Start(t)
	const slow = 30 * time.Second
	n1 := startPongNodeBeating(t, url, "", "n1", 50, slow)
	n2 := startPongNodeBeating(t, url, "", "n2", 50, slow)

	alice := sshtest.Open(t, sshtest.Dial(t, n1.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 100, 30, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room", "mode: 1v1")
	alice.Type("\r")
	alice.WaitFor(wait, "r1@n1 · 1v1 · casual")
	room, err := n1.Rooms.Find("r1@n1")
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "n2 to list r1@n1", wait, func() bool { return len(n2.Rooms.Remote(lobby.Public)) == 1 })
	bobKey := sshtest.NewKey(t)
	bobConn := sshtest.Dial(t, n2.Addr, sshtest.Config("bob", bobKey))
	bob := sshtest.Open(t, bobConn, 100, 30, "join r1@n1")
	bob.WaitFor(wait, "r1@n1 · 1v1 · casual", "alice", "bob")
	alice.WaitFor(wait, "bob")
	playing(t, room, alice, bob)

	n3 := startPongNodeBeating(t, url, "", "n3", 50, slow)
	if got := n3.Rooms.Remote(lobby.Public); len(got) != 0 {
		t.Fatalf("n3 lists %v at its start; the test needs a node not yet told", got)
	}
	at := time.Now()
	again := dropAndReconnect(t, bobConn, bobKey, alice, n3.Addr)
	again.WaitFor(wait, "r1@n1 · 1v1 · casual", "▸bob")
	t.Logf("reconnect to a node not yet told of the room → back in the seat: %v", time.Since(at).Round(time.Millisecond))
	waitUntil(t, "the pause to end", wait, func() bool { return !strings.Contains(alice.Screen(), "disconnected") })
}

// Walking out of a ranked match played from another node tells the
// walker what it cost, as on one node: ann on n1 and bob on n2 are
// matched (the room on n1, where ann queued first); bob presses q, y
// mid-match and reads "You left a ranked match: counted as a loss" with
// his rating change. Before, his lobby showed no notice at all.
func TestClusterRankedWalkOutFromAnotherNodeSaysWhatItCostE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	n1 := startPongNode(t, url, db, "n1", 50)
	waitUntil(t, "n1 to hold the matchmaker lease", wait, n1.App.Lease.Holding)
	n2 := startPongNode(t, url, db, "n2", 50)

	ann := sshtest.Open(t, sshtest.Dial(t, n1.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 100, 30, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
	bob := sshtest.Open(t, sshtest.Dial(t, n2.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 30, "play pong-1v1")
	var room *lobby.Room
	waitUntil(t, "a ranked room on n1", wait, func() bool {
		for _, r := range n1.Rooms.All() {
			if r.Ranked == "pong-1v1" {
				room = r
				return true
			}
		}
		return false
	})
	bob.WaitFor(wait, room.ID()+" · pong-1v1 · ranked")
	waitUntil(t, "the match to start", wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Playing })
	bob.Type("q")
	bob.Type("y")
	bob.WaitFor(wait, "You left a ranked match: counted as a loss (-")
	ann.WaitFor(wait, "game over")
}
