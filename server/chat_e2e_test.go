package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

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

// mutedStatus reports whether the screen still shows the pane's "you are
// muted …" line (a chat line that said so starts with a dash and may stay).
func mutedStatus(scr string) bool {
	for _, l := range strings.Split(scr, "\n") {
		if strings.HasPrefix(strings.TrimSpace(strings.Trim(l, "│ ")), "you are muted") {
			return true
		}
	}
	return false
}

// TestUnmuteIsShownOverSSH: after `admin unmute` and after a moderator's
// /unmute, the player's "you are muted" line goes and they are told they
// can chat again.
func TestUnmuteIsShownOverSSH(t *testing.T) {
	adminKey := sshtest.NewKey(t)
	h := start(t, t.TempDir(), server.DefaultConfig(), map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true})
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 40, "")
	bob.WaitFor(wait, "Welcome, bob!")

	if r := sshtest.Run(t, h.Addr, "ops", adminKey, "admin mute bob 5m caps"); r.Code != 0 {
		t.Fatalf("admin mute: %d %s", r.Code, r.Stderr)
	}
	bob.WaitFor(wait, "you are muted for")
	if r := sshtest.Run(t, h.Addr, "ops", adminKey, "admin unmute bob"); r.Code != 0 {
		t.Fatalf("admin unmute: %d %s", r.Code, r.Stderr)
	}
	if scr := bob.WaitFor(wait, "you can chat again"); mutedStatus(scr) {
		t.Fatalf("the mute line stayed after admin unmute:\n%s", scr)
	}

	// The same from chat, by a moderator.
	root := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ops", adminKey)), 100, 40, "")
	root.WaitFor(wait, "Welcome, ops!")
	root.Type("t")
	root.Type("/mute bob 5m spam\r")
	root.WaitFor(wait, "bob is muted")
	bob.WaitFor(wait, "you are muted for 4m")
	root.Type("t")
	root.Type("/unmute bob\r")
	root.WaitFor(wait, "bob is no longer muted")
	deadline := time.Now().Add(wait)
	for scr := bob.Screen(); mutedStatus(scr) || strings.Count(scr, "you can chat again") < 2; scr = bob.Screen() {
		if time.Now().After(deadline) {
			t.Fatalf("after /unmute bob sees:\n%s", scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
