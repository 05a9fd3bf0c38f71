package server_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/sshtest"
)

// Someone watching a room from another node is counted on the room's own
// node, where `admin rooms` and the room's web page read the count: n1's
// page of alice's room said "0 watching before you" while eve watched it
// from n2. Once she stops, the count drops back.
func TestClusterWatcherOnAnotherNodeIsCountedE2E(t *testing.T) {
	url := natstest.Start(t)
	n1 := startNode(t, url, "", "n1", nil)
	n2 := startNode(t, url, "", "n2", nil)

	alice := sshtest.Open(t, sshtest.Dial(t, n1.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 100, 30, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room", "mode: 1v1")
	alice.Type("\r")
	alice.WaitFor(wait, "r1@n1 · 1v1 · casual", "(you)")

	page := func() string {
		rec := httptest.NewRecorder()
		n1.App.Web.ServeHTTP(rec, httptest.NewRequest("GET", "/r/r1@n1", nil))
		return rec.Body.String()
	}
	// n2 hears of the room through the directory before eve asks for it;
	// asking earlier is "no live room", as it would be for a person.
	waitUntil(t, "n2 to list r1@n1", wait, func() bool { return len(n2.Rooms.Remote(lobby.Watchable)) == 1 })
	eve := sshtest.Open(t, sshtest.Dial(t, n2.Addr, sshtest.Config("eve", sshtest.NewKey(t))), 100, 30, "spectate r1@n1")
	eve.WaitFor(wait, "alice")
	waitUntil(t, "n1's page of r1@n1 to count eve watching from n2", wait, func() bool {
		return strings.Contains(page(), "· 1 watching before you")
	})
	eve.Close()
	waitUntil(t, "n1's page of r1@n1 to count nobody once eve left", 30*time.Second, func() bool {
		return strings.Contains(page(), "· 0 watching before you")
	})
}
