package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// escPause is far longer than Bubble Tea's 50 ms ESC timeout: a person
// pressing Esc and then, a moment later, another key.
const escPause = 400 * time.Millisecond

// Esc, a pause, then a key that would continue an escape sequence (P opens
// a DCS, / is an intermediate byte): the key acts at once and the keys after
// it still work.
func TestKeyAfterEscAndAPauseIsAKey(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")

	alice.Type("p")
	alice.WaitFor(wait, "Looking for a pong-1v1 match")
	alice.Type("\x1b")
	waitUntil(t, "the lobby after leaving the queue", wait, func() bool {
		s := alice.Screen()
		return strings.Contains(s, "Welcome, alice!") && !strings.Contains(s, "Looking for")
	})
	time.Sleep(escPause)
	alice.Type("P")
	alice.WaitFor(wait, "Ranked match", "1 pong-1v1 · 2 pong-2v2")
	alice.Type("2")
	alice.WaitFor(wait, "Looking for a pong-2v2 match")

	alice.Type("\x1b")
	waitUntil(t, "the lobby after leaving the queue", wait, func() bool {
		return !strings.Contains(alice.Screen(), "Looking for")
	})
	time.Sleep(escPause)
	alice.Type("/")
	alice.WaitFor(wait, "Join code:")
	alice.Type("ab")
	alice.WaitFor(wait, "Join code: ab")
}
