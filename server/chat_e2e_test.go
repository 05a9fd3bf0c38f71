package server_test

import (
	"encoding/json"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

func TestLobbyChatOverSSH(t *testing.T) {
	adminKey := sshtest.NewKey(t)
	h := start(t, t.TempDir(), server.DefaultConfig(), map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true})
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 100, 40, "")
	alice.WaitFor(wait, "Welcome, alice!")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 40, "")
	bob.WaitFor(wait, "Welcome, bob!")

	alice.Type("t")
	alice.Type("hello bob\r")
	bob.WaitFor(wait, "alice", "hello bob")

	guest := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("g", nil)), 100, 40, "")
	guest.WaitFor(wait, "Welcome, guest-", "hello bob") // guests read the lobby's history
	guest.Type("t")
	guest.Type("hi all\r")
	guest.WaitFor(wait, "guests can read but not chat")

	// An admin mutes from chat: persisted, listed, and bob is told.
	root := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ops", adminKey)), 100, 40, "")
	root.WaitFor(wait, "Welcome, ops!")
	root.Type("t")
	root.Type("/mute bob 5m spam\r")
	root.WaitFor(wait, "bob is muted")
	bob.WaitFor(wait, "muted")
	r := sshtest.Run(t, h.Addr, "ops", adminKey, "admin mutes --json")
	var mutes []struct {
		Name, Reason string
	}
	if err := json.Unmarshal([]byte(r.Stdout), &mutes); err != nil || len(mutes) != 1 || mutes[0].Name != "bob" || mutes[0].Reason != "spam" {
		t.Fatalf("admin mutes: %v %s", err, r.Stdout)
	}
}
