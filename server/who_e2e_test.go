package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/sshtest"
)

// TestWhoE2E: through the real server, `who` lists alice playing in the
// room she made and bob in the lobby, counts the guest without naming
// them, and leaves out the one asking (a plain command is not a session
// in the lobby); --json has the documented shape.
func TestWhoE2E(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room", "mode: 1v1")
	alice.Type("\r")
	alice.WaitFor(wait, "r1 · 1v1 · casual", "(you)")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "")
	bob.WaitFor(wait, "Welcome, bob!")
	guest := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("visitor", nil)), 80, 24, "")
	guest.WaitFor(wait, "You are a guest")
	// Bob's lobby names alice and where she is, and counts the guest.
	bob.WaitFor(wait, "3 players online: alice (playing r1), 1 guest")

	carol := sshtest.NewKey(t)
	var r sshtest.Result
	waitUntil(t, "who to list alice in her room", wait, func() bool {
		r = sshtest.Run(t, h.Addr, "carol", carol, "who")
		return strings.Contains(r.Stdout, "playing in r1")
	})
	for _, want := range []string{"alice            playing in r1\n", "bob              lobby\n", "and 1 guest\n", "ranked queues (waiting/needed): pong-1v1 0/2"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("who lacks %q:\n%s", want, r.Stdout)
		}
	}
	if r.Code != 0 || strings.Contains(r.Stdout, "carol") || strings.Contains(r.Stdout, "visitor") || strings.Contains(r.Stdout, "guest-") {
		t.Errorf("who (exit %d) names the asker or a guest:\n%s", r.Code, r.Stdout)
	}

	r = sshtest.Run(t, h.Addr, "carol", carol, "who --json")
	var got service.Who
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil || r.Code != 0 {
		t.Fatalf("who --json (exit %d): %v\n%s", r.Code, err, r.Stdout)
	}
	if len(got.Players) != 2 || got.Players[0] != (service.OnlinePlayer{Name: "alice", Doing: "playing", Room: "r1"}) ||
		got.Players[1] != (service.OnlinePlayer{Name: "bob", Doing: "lobby"}) || got.Guests != 1 {
		t.Fatalf("who --json = %+v", got)
	}
	if r := sshtest.Run(t, h.Addr, "carol", carol, "who me"); r.Code != 2 || !strings.Contains(r.Stderr, "usage: who [--json]") {
		t.Fatalf("who me: %+v", r)
	}
}

// TestWhoFollowsArrivalsInEveryLobbyE2E: one listing of who is online is
// shared by every lobby, and each still shows the change: dave logging in
// appears on bob's and carol's online lines, and leaves them when his
// connection ends.
func TestWhoFollowsArrivalsInEveryLobbyE2E(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "")
	bob.WaitFor(wait, "Welcome, bob!")
	carol := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("carol", sshtest.NewKey(t))), 80, 24, "")
	carol.WaitFor(wait, "Welcome, carol!")
	bob.WaitFor(wait, "2 players online: carol (lobby)")
	carol.WaitFor(wait, "2 players online: bob (lobby)")

	dave := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("dave", sshtest.NewKey(t))), 80, 24, "")
	dave.WaitFor(wait, "Welcome, dave!")
	bob.WaitFor(wait, "3 players online: carol (lobby), dave (lobby)")
	carol.WaitFor(wait, "3 players online: bob (lobby), dave (lobby)")

	dave.Close()
	// The count follows at once, the names a moment later (a lobby lets a
	// burst of moves settle before it reads the listing again).
	for _, c := range []struct {
		tm   *sshtest.Term
		want string
	}{{bob, "2 players online: carol (lobby)"}, {carol, "2 players online: bob (lobby)"}} {
		waitUntil(t, "dave to leave the online line", wait, func() bool {
			s := c.tm.Screen()
			return strings.Contains(s, c.want) && !strings.Contains(s, "dave")
		})
	}
}
