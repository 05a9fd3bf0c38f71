package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/sshtest"
	gossh "golang.org/x/crypto/ssh"
)

// One matchmaker for the cluster, tried over SSH: n1 holds the lease and
// `admin stats` on either node names it. Ann queues on n1 and bob on n2;
// bob's queue screen says he is matched with players on n2 only and that
// one more waits elsewhere, and the two are not paired (no room could
// seat both yet). Carol queues on n2: bob and she get a ranked match in a
// room on n2.
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
	bob.WaitFor(wait, "Looking for a pong-1v1 match", "in the queue  1",
		"matched with players on this node (n2) only, for now", "1 more waits on other nodes")
	time.Sleep(2 * lobby.WaveInterval) // a wave or two, had they been paired across nodes
	for _, tm := range []*sshtest.Term{ann, bob} {
		if scr := tm.Screen(); !strings.Contains(scr, "Looking for a pong-1v1 match") {
			t.Fatalf("a player left the queue with nobody on their node to play:\n%s", scr)
		}
	}

	carol := sshtest.Open(t, sshtest.Dial(t, n2.Addr, sshtest.Config("carol", sshtest.NewKey(t))), 100, 30, "play pong-1v1")
	bob.WaitFor(wait, "ranked")
	carol.WaitFor(wait, "ranked")
	waitUntil(t, "a ranked room on n2", wait, func() bool {
		for _, r := range n2.Rooms.All() {
			if r.Ranked == "pong-1v1" {
				return true
			}
		}
		return false
	})
	for _, r := range n1.Rooms.All() {
		if r.Ranked != "" {
			t.Fatalf("a ranked room %s on n1, where only ann waits", r.ID())
		}
	}
	if scr := ann.Screen(); !strings.Contains(scr, "Looking for a pong-1v1 match") {
		t.Fatalf("ann left the queue:\n%s", scr)
	}
}
