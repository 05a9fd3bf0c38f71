package server_test

import (
	"testing"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/sshtest"
)

// The watch list (w) is the cluster's: a player on n2 finds a room that
// runs on n1 in it, marked with its node, and enter watches it from n2.
// It listed this node's rooms only, so a match on another node (a ranked
// one, which the rooms list does not show) could be watched only by
// typing `spectate r1@n1`.
func TestClusterWatchListShowsOtherNodesRoomsE2E(t *testing.T) {
	url := natstest.Start(t)
	n1 := startNode(t, url, "", "n1", nil)
	n2 := startNode(t, url, "", "n2", nil)
	player := func(n *harness, name string) *sshtest.Term {
		tm := sshtest.Open(t, sshtest.Dial(t, n.Addr, sshtest.Config(name, sshtest.NewKey(t))), 100, 30, "")
		tm.WaitFor(wait, "Welcome, "+name+"!")
		return tm
	}
	alice := player(n1, "alice")
	eve := player(n2, "eve")
	eve.WaitFor(wait, "2 players online")

	alice.Type("c")
	alice.WaitFor(wait, "New room", "mode: 1v1")
	alice.Type("\r")
	alice.WaitFor(wait, "r1@n1 · 1v1 · casual", "(you)")
	eve.WaitFor(wait, "r1@n1 1v1  [on n1]")

	eve.Type("w")
	eve.WaitFor(wait, "Watch a live room", "r1@n1 [on n1]", "alice")
	eve.Type("\r")
	eve.WaitFor(wait, "watching r1@n1")
}
