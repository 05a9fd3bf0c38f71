package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/sshtest"
	gossh "golang.org/x/crypto/ssh"
)

// One matchmaker for the cluster, tried over SSH: n1 holds the lease and
// `admin stats` on either node names it. Ann queues on n1 and bob on n2;
// bob's queue screen says players of every node are matched and that one
// more waits elsewhere, and the two get one ranked match: its room runs
// on one node and the other's player sits in it from theirs
// (TestClusterRankedAcrossNodesE2E plays one to the end).
func TestClusterRankedQueueE2E(t *testing.T) {
	url := natstest.Start(t)
	opKey := sshtest.NewKey(t)
	admins := map[string]bool{gossh.FingerprintSHA256(opKey.PublicKey()): true}
	n1 := startNode(t, url, "", "n1", admins)
	waitUntil(t, "n1 to hold the matchmaker lease", wait, n1.App.Lease.Holding)
	n2 := startNode(t, url, "", "n2", admins)
	waitUntil(t, "n2 to name n1 the matchmaker", wait, func() bool { return n2.App.Lease.Holder() == "n1" })

	for _, n := range []*harness{n1, n2} {
		r := sshtest.Run(t, n.Addr, "op", opKey, "admin stats")
		if !strings.Contains(r.Stdout, "matchmaker") || !strings.Contains(r.Stdout, "n1\n") {
			t.Errorf("admin stats on %s does not name n1 the matchmaker:\n%s", n.App.Node.Name(), r.Stdout)
		}
		r = sshtest.Run(t, n.Addr, "op", opKey, "admin stats --json")
		var s struct{ Node, Matchmaker string }
		if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil || s.Matchmaker != "n1" {
			t.Errorf("admin stats --json on %s: matchmaker %q (%v)\n%s", n.App.Node.Name(), s.Matchmaker, err, r.Stdout)
		}
	}

	ann := sshtest.Open(t, sshtest.Dial(t, n1.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 100, 30, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
	bob := sshtest.Open(t, sshtest.Dial(t, n2.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "play pong-1v1")
	// Both sit in the match's room (its title, not the queue's "ranked"):
	// the other node holds its handle once its player's screen shows it.
	bob.WaitFor(wait, "· pong-1v1 · ranked")
	ann.WaitFor(wait, "· pong-1v1 · ranked")
	var owner, other *harness
	waitUntil(t, "a ranked room on n1 or n2", wait, func() bool {
		for _, pair := range [][2]*harness{{n1, n2}, {n2, n1}} {
			for _, r := range pair[0].Rooms.All() {
				if r.Ranked == "pong-1v1" {
					owner, other = pair[0], pair[1]
					return true
				}
			}
		}
		return false
	})
	if len(other.Rooms.All()) != 0 || len(other.Rooms.Mirrors()) != 1 {
		t.Fatalf("%s runs rooms %v and holds %d handles; want none and one on %s's room",
			other.App.Node.Name(), other.Rooms.All(), len(other.Rooms.Mirrors()), owner.App.Node.Name())
	}
}
