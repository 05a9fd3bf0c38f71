package server_test

import (
	"testing"
	"time"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// quietFor is how long an idle lobby is watched for output: several of
// the old one-second refreshes and of the keepalive rounds.
const quietFor = 4 * time.Second

// An idle lobby session is sent nothing while nothing it shows changes:
// not a byte over several seconds, with another player sitting in an
// open room and a third idle beside it (issue 21: every lobby redrew its
// whole screen every second, and 1,000 idle lobbies took a core).
func TestIdleLobbyIsSentNothing(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	host := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("host", sshtest.NewKey(t))), 80, 24, "")
	host.WaitFor(wait, "Welcome, host!")
	host.Type("c")
	host.WaitFor(wait, "New room")
	host.Type("\r")
	host.WaitFor(wait, "r1 · 1v1 · casual")

	idle := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("idle", sshtest.NewKey(t))), 80, 24, "")
	idle.WaitFor(wait, "Welcome, idle!", "r1", "host (playing r1)")
	other := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("other", sshtest.NewKey(t))), 80, 24, "")
	other.WaitFor(wait, "Welcome, other!")
	idle.WaitFor(wait, "3 players online")
	// Let what the arrivals started settle (the who-is-online read waits
	// a quarter second after a change; Bubble Tea's answers to the
	// terminal's queries), then watch.
	time.Sleep(time.Second)
	before := len(idle.Raw())
	time.Sleep(quietFor)
	if got := len(idle.Raw()) - before; got != 0 {
		t.Fatalf("an idle lobby was sent %d bytes in %s with nothing changing:\n%q", got, quietFor, idle.Raw()[before:])
	}
}

// What an idle lobby shows still follows what happens, soon after it
// happens: a player connecting, a room created, a player sitting down in
// it, the room closing.
func TestIdleLobbyFollowsWhatHappens(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	idle := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("idle", sshtest.NewKey(t))), 80, 24, "")
	idle.WaitFor(wait, "Welcome, idle!", "no open rooms")

	// Short beside wait: the lobby follows events, not a timer of its own.
	const soon = 3 * time.Second
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")
	idle.WaitFor(soon, "2 players online: alice (lobby)")
	alice.Type("c")
	alice.WaitFor(wait, "New room")
	alice.Type("\r")
	alice.WaitFor(wait, "r1 · 1v1 · casual")
	idle.WaitFor(soon, "r1", "1/2  alice", "alice (playing r1)")

	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "join r1")
	bob.WaitFor(wait, "r1 · 1v1 · casual")
	idle.WaitFor(soon, "2/2  alice, bob")

	alice.Type("q")
	bob.Type("q")
	idle.WaitFor(soon, "no open rooms")
}
