package server_test

import (
	"testing"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/sshtest"
)

// A whisper reaches a player on another node and /r answers it across;
// a challenge reaches a player on another node too.
func TestClusterWhisperE2E(t *testing.T) {
	url := natstest.Start(t)
	n1 := startNode(t, url, "", "n1", nil)
	n2 := startNode(t, url, "", "n2", nil)
	dave := sshtest.Open(t, sshtest.Dial(t, n1.Addr, sshtest.Config("dave", sshtest.NewKey(t))), 100, 30, "")
	dave.WaitFor(wait, "Welcome, dave!")
	bob := sshtest.Open(t, sshtest.Dial(t, n2.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 30, "")
	bob.WaitFor(wait, "Welcome, bob!")
	bob.WaitFor(wait, "2 players online")
	dave.WaitFor(wait, "2 players online")

	bob.Type("t")
	bob.Type("/w dave psst from n2\r")
	dave.WaitFor(wait, "bob", "psst from n2")
	dave.Type("t")
	dave.Type("/r back from n1\r")
	dave.WaitFor(wait, "to bob (whisper): back from n1")
	bob.WaitFor(wait, "back from n1")

	bob.Type("t")
	bob.Type("/challenge dave\r")
	dave.WaitFor(wait, "bob challenges you")
}
