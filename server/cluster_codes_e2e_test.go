package server_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/sshtest"
	"github.com/termarena/termarena/store/postgres/pgtest"
	gossh "golang.org/x/crypto/ssh"
)

// A private room's join code is the cluster's: typed on another node,
// `spectate CODE`, `join CODE` and the lobby's code dialog reach the room
// where it runs (before, they said which node to connect to, and before
// that that no such room was open), while its id alone still reaches
// nothing. Once the room closes its code opens nothing anywhere.
func TestClusterJoinCodeE2E(t *testing.T) {
	url := natstest.Start(t)
	n1 := startNode(t, url, "", "n1", nil)
	n2 := startNode(t, url, "", "n2", nil)

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
	code := rooms[0].Code

	wide := func(name, cmd string) *sshtest.Term {
		return sshtest.Open(t, sshtest.Dial(t, n2.Addr, sshtest.Config(name, sshtest.NewKey(t))), 200, 30, cmd)
	}
	// The id of a private room is no way in, on its node or another.
	if erin := wide("erin", "join r1@n1"); true {
		if c, err := erin.Wait(wait); err != nil || c != 1 || !strings.Contains(erin.Screen(), `no room "r1@n1" is open`) {
			t.Fatalf("join r1@n1 (private) on n2: exit %d, %v\n%s", c, err, erin.Screen())
		}
	}
	dave := wide("dave", "spectate "+code)
	dave.WaitFor(wait, "r1@n1", "alice")
	bob := wide("bob", "")
	bob.WaitFor(wait, "Welcome, bob!")
	bob.Type("/")
	bob.Type(code + "\r")
	bob.WaitFor(wait, "r1@n1 · 1v1 · private", "alice", "bob", "(you)")
	alice.WaitFor(wait, "bob")
	dave.WaitFor(wait, "bob")
	// The seat bob took is a seat: a third player's join is refused.
	erin := wide("erin", "join "+code)
	if c, err := erin.Wait(wait); err != nil || c != 1 || !strings.Contains(strings.ToLower(erin.Screen()), "full") {
		t.Fatalf("join %s on n2 with both seats taken: exit %d, %v\n%s", code, c, err, erin.Screen())
	}

	alice.Type("q") // the room closes once its players leave
	bob.Type("q")
	waitUntil(t, "n1's private room to close", wait, func() bool { return len(n1.Rooms.All()) == 0 })
	waitUntil(t, "the code to open nothing on n2", wait, func() bool {
		erin = wide("erin", "join "+code)
		c, _ := erin.Wait(wait)
		return c == 1 && strings.Contains(erin.Screen(), "no room \""+code+"\" is open")
	})
}

// One name cannot be taken twice at the same moment on two nodes: two
// players, one on each node, rename to the same free name at once; one
// gets it (exit 0), the other is told it is taken (exit 1), round after
// round.
func TestClusterRenameRaceE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	nodes := []*harness{startNode(t, url, db, "n1", nil), startNode(t, url, db, "n2", nil)}
	for round := range 5 {
		keys := make([]gossh.Signer, 2)
		for i := range keys {
			keys[i] = sshtest.NewKey(t)
			if r := sshtest.Run(t, nodes[i].Addr, fmt.Sprintf("p%d%c", round, 'a'+i), keys[i], "whoami"); r.Code != 0 {
				t.Fatalf("first login on n%d: %+v", i+1, r)
			}
		}
		want := fmt.Sprintf("zed%d", round)
		results := make([]sshtest.Result, 2)
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = sshtest.Run(t, nodes[i].Addr, "x", keys[i], "rename "+want)
			}()
		}
		wg.Wait()
		won := 0
		for i, r := range results {
			switch r.Code {
			case 0:
				won++
			case 1:
				if !strings.Contains(r.Stderr, "taken") {
					t.Errorf("round %d, n%d: refused without saying the name is taken: %+v", round, i+1, r)
				}
			default:
				t.Errorf("round %d, n%d: %+v", round, i+1, r)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d of two players on two nodes got %s at once; want exactly one (%+v)", round, won, want, results)
		}
	}
}

// A player in another node's private room is shown its join code in the
// room's title as its players on that node are, to pass on to a friend;
// the title read "private · code" with nothing after it.
func TestClusterPrivateRoomShowsItsCodeOnEveryNodeE2E(t *testing.T) {
	url := natstest.Start(t)
	n1 := startNode(t, url, "", "n1", nil)
	n2 := startNode(t, url, "", "n2", nil)

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
	code := rooms[0].Code

	bob := sshtest.Open(t, sshtest.Dial(t, n2.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 30, "join "+code)
	bob.WaitFor(wait, "r1@n1 · 1v1 · private · code "+code, "(you)")
}
