package server_test

import (
	"encoding/json"
	"net"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/sshtest"
)

// The room directory is the cluster's: a room made on n1 and one made on
// n2 show in the lobby of a player on each node, the other node's marked
// with it; `rooms --json` on either node lists both with their node, the
// other's as remote, with the ssh command that reaches its node; n2's
// web page of n1's room and n2's lobby list reach the room itself
// (TestClusterRemotePlayE2E plays and watches one across nodes).
func TestClusterRoomsE2E(t *testing.T) {
	url := natstest.Start(t)
	n1 := startNode(t, url, "", "n1", nil)
	n2 := startNode(t, url, "", "n2", nil)
	player := func(n *harness, name, cmd string) *sshtest.Term {
		tm := sshtest.Open(t, sshtest.Dial(t, n.Addr, sshtest.Config(name, sshtest.NewKey(t))), 100, 30, cmd)
		if cmd == "" {
			tm.WaitFor(wait, "Welcome, "+name+"!")
		}
		return tm
	}
	alice, dave := player(n1, "alice", ""), player(n1, "dave", "")
	carol, bob := player(n2, "carol", ""), player(n2, "bob", "")
	bob.WaitFor(wait, "4 players online")
	dave.WaitFor(wait, "4 players online")

	alice.Type("c")
	alice.WaitFor(wait, "New room", "mode: 1v1")
	alice.Type("\r")
	alice.WaitFor(wait, "r1@n1 · 1v1 · casual", "(you)")
	carol.Type("c")
	carol.WaitFor(wait, "New room", "mode: 1v1")
	carol.Type("\r")
	carol.WaitFor(wait, "r1@n2 · 1v1 · casual", "(you)")

	// Each lobby lists its own room and the other node's, with the node.
	dave.WaitFor(wait, "r1@n1 1v1", "r1@n2 1v1  [on n2]", "carol")
	bob.WaitFor(wait, "r1@n2 1v1", "r1@n1 1v1  [on n1]", "alice")

	for _, n := range []*harness{n1, n2} {
		r := sshtest.Run(t, n.Addr, "eve", sshtest.NewKey(t), "rooms --json")
		var rooms []service.Room
		if err := json.Unmarshal([]byte(r.Stdout), &rooms); err != nil {
			t.Fatalf("rooms --json: %v\n%s", err, r.Stdout)
		}
		got := map[string]service.Room{}
		for _, rm := range rooms {
			got[rm.ID] = rm
		}
		a, c := got["r1@n1"], got["r1@n2"]
		if len(rooms) != 2 || a.Node != "n1" || c.Node != "n2" || a.Remote == (n == n1) || c.Remote == (n == n2) ||
			len(a.Players) != 1 || a.Players[0] != "alice" || len(c.Players) != 1 || c.Players[0] != "carol" {
			t.Fatalf("rooms --json on %s = %+v", n.App.Node.Name(), rooms)
		}
	}

	// How to reach n1 (the harness advertises what each node listens on).
	host, port, _ := net.SplitHostPort(n1.Addr)
	reach := "ssh -p " + port + " -t " + host
	r := sshtest.Run(t, n2.Addr, "eve", sshtest.NewKey(t), "rooms --json")
	if !strings.Contains(r.Stdout, `"ssh": "ssh -p `+port+` `+host+`"`) {
		t.Errorf("rooms --json on n2 does not say how to reach n1:\n%s", r.Stdout)
	}
	// n2's web page of n1's room shows it live from n2 (the room is
	// watched through the cluster); n1's page of its own room gives n1's
	// own address.
	page := func(n *harness, path string) string {
		rec := httptest.NewRecorder()
		n.App.Web.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 200 {
			t.Fatalf("GET %s on %s: %d\n%s", path, n.App.Node.Name(), rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	if body := page(n2, "/r/r1@n1"); !strings.Contains(body, `Players: <a href="/@/alice">alice</a>`) || !strings.Contains(body, `data-live="/r/r1@n1/live"`) {
		t.Errorf("n2's page of r1@n1:\n%s", body)
	}
	if body := page(n1, "/r/r1@n1"); !strings.Contains(body, "<code>"+reach+" spectate r1@n1</code>") {
		t.Errorf("n1's page of r1@n1:\n%s", body)
	}

	// Joining n1's room from n2's lobby list plays it from n2
	// (TestClusterRemotePlayE2E plays a match so).
	bob.Type("j") // down to n1's room (n2's own is first)
	bob.Type("\r")
	bob.WaitFor(wait, "r1@n1 · 1v1 · casual", "alice", "bob", "(you)")
	alice.WaitFor(wait, "bob")
}
