package server_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/termarena/termarena/admin"
	"github.com/termarena/termarena/cluster"
	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/sshtest"
	gossh "golang.org/x/crypto/ssh"
)

// `admin stats --cluster` on any node lists every node's figures, gathered
// over NATS: sessions, rooms and the rest per node with the address it
// advertises, and totals; a node that runs (its name is claimed) but does
// not answer in time is listed as not answering rather than left out. Each
// node's /metrics names its node.
func TestClusterStatsE2E(t *testing.T) {
	url := natstest.Start(t)
	opKey := sshtest.NewKey(t)
	admins := map[string]bool{gossh.FingerprintSHA256(opKey.PublicKey()): true}
	n1 := startNode(t, url, "", "n1", admins)
	n2 := startNode(t, url, "", "n2", admins)
	alice := sshtest.Open(t, sshtest.Dial(t, n2.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room", "mode: 1v1")
	alice.Type("\r")
	alice.WaitFor(wait, "r1@n2 · 1v1 · casual")

	r := sshtest.Run(t, n1.Addr, "op", opKey, "admin stats --cluster --json")
	var got struct{ Nodes []admin.NodeStats }
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil || r.Code != 0 {
		t.Fatalf("admin stats --cluster --json on n1: exit %d, %v\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	if len(got.Nodes) != 2 || got.Nodes[0].Node != "n1" || got.Nodes[1].Node != "n2" || got.Nodes[0].Stats == nil || got.Nodes[1].Stats == nil {
		t.Fatalf("admin stats --cluster --json on n1 = %+v; want n1 and n2, both answering", got.Nodes)
	}
	// n2's figures are alice's session, in a room of her own (a command
	// like the op's is no session of the lobby's).
	if s := got.Nodes[1].Stats; s.Sessions != 1 || s.Rooms != 1 || got.Nodes[1].SSH != n2.Addr {
		t.Errorf("n2's figures as n1 gathered them: %+v, ssh %q; want 1 session, 1 room, at %s", s, got.Nodes[1].SSH, n2.Addr)
	}

	// A node that claims its name but answers nothing (hung, or cut off
	// from its stats) is listed as not answering.
	mute, err := cluster.Connect(url, "n3", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer mute.Close()
	stop, err := mute.ClaimName(context.Background(), cluster.NameTiming{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	r = sshtest.Run(t, n2.Addr, "op", opKey, "admin stats --cluster")
	if r.Code != 0 {
		t.Fatalf("admin stats --cluster on n2: %+v", r)
	}
	lines := strings.Split(r.Stdout, "\n")
	row := func(prefix string) string {
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return strings.Join(strings.Fields(l), " ")
			}
		}
		return ""
	}
	if h := row("NODE"); h != "NODE SESSIONS IN MATCHES ROOMS FRAMES/S TICK P99 GOROUTINES RSS SSH" {
		t.Errorf("header %q\n%s", h, r.Stdout)
	}
	if l := row("n2 "); !strings.HasPrefix(l, "n2 1 0 1 ") || !strings.HasSuffix(l, n2.Addr) {
		t.Errorf("n2's row %q; want 1 session, 0 in matches, 1 room, its address\n%s", l, r.Stdout)
	}
	if l := row("n3 "); l != "n3 not answering -" {
		t.Errorf("n3's row %q; want not answering\n%s", l, r.Stdout)
	}
	if l := row("total "); !strings.HasPrefix(l, "total 1 0 1 ") || !strings.HasSuffix(l, "2 of 3 nodes") {
		t.Errorf("total row %q\n%s", l, r.Stdout)
	}
	if !strings.Contains(r.Stdout, "1 node(s) did not answer within 1s") {
		t.Errorf("no word on the silent node:\n%s", r.Stdout)
	}

	rec := httptest.NewRecorder()
	n1.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `termarena_node_info{node="n1"} 1`) {
		t.Errorf("n1's /metrics does not name its node")
	}
}
