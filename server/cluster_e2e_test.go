package server_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/termarena/termarena/app"
	"github.com/termarena/termarena/cluster"
	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/sshtest"
	"github.com/termarena/termarena/store/postgres/pgtest"
	gossh "golang.org/x/crypto/ssh"
)

// startNode starts a real server that is node name of the cluster on the
// NATS server at natsURL, as main does with --nats and --node: on the
// PostgreSQL database at storeURL, or ("" ) a bbolt file of its own.
func startNode(t *testing.T, natsURL, storeURL, name string, admins map[string]bool) *harness {
	t.Helper()
	var logOut io.Writer = io.Discard
	if os.Getenv("TERMARENA_TEST_LOG") != "" {
		logOut = os.Stderr
	}
	dir := t.TempDir()
	ac := app.DefaultConfig()
	ac.Data, ac.StoreTimeout, ac.Server, ac.Admins, ac.StoreURL = dir, time.Second, server.DefaultConfig(), admins, storeURL
	ac.Logger = slog.New(slog.NewTextHandler(logOut, nil)).With("node", name)
	// Beats every 100ms so a node's death shows within a second here.
	ac.Cluster = app.Cluster{NATS: natsURL, Node: name, Presence: cluster.PresenceTiming{Heartbeat: 100 * time.Millisecond}}
	return serveApp(t, dir, ac)
}

// Players on two nodes see each other: the lobby's online line on each
// names the other node's player, `who` and `who --json` list both with
// their node, `admin sessions` lists every node's sessions with the node,
// and `rooms --json` names the node a room runs on. A node that stops is
// forgotten by the other.
func TestClusterPresenceE2E(t *testing.T) {
	url := natstest.Start(t)
	opKey := sshtest.NewKey(t)
	admins := map[string]bool{gossh.FingerprintSHA256(opKey.PublicKey()): true}
	n1 := startNode(t, url, "", "n1", admins)
	n2 := startNode(t, url, "", "n2", admins)

	alice := sshtest.Open(t, sshtest.Dial(t, n1.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")
	bob := sshtest.Open(t, sshtest.Dial(t, n2.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "")
	bob.WaitFor(wait, "Welcome, bob!")
	bob.WaitFor(wait, "2 players online")
	alice.WaitFor(wait, "2 players online")
	alice.Type("c")
	alice.WaitFor(wait, "New room", "mode: 1v1")
	alice.Type("\r")
	alice.WaitFor(wait, "r1@n1 · 1v1 · casual", "(you)")
	bob.WaitFor(wait, "alice (playing r1@n1)")

	var r sshtest.Result
	waitUntil(t, "who on n2 to list alice playing on n1", wait, func() bool {
		r = sshtest.Run(t, n2.Addr, "op", opKey, "who")
		return strings.Contains(r.Stdout, "alice            n1           playing in r1@n1\n")
	})
	if !strings.Contains(r.Stdout, "bob              n2           lobby\n") {
		t.Errorf("who on n2 lacks bob on n2:\n%s", r.Stdout)
	}
	r = sshtest.Run(t, n2.Addr, "op", opKey, "who --json")
	var w service.Who
	if err := json.Unmarshal([]byte(r.Stdout), &w); err != nil {
		t.Fatalf("who --json: %v\n%s", err, r.Stdout)
	}
	// Each with the ssh command that reaches their node, as it
	// advertises itself (the harness: what it listens on).
	reach := func(n *harness) string { h, p, _ := net.SplitHostPort(n.Addr); return "ssh -p " + p + " " + h }
	if len(w.Players) != 2 || w.Players[0] != (service.OnlinePlayer{Name: "alice", Doing: "playing", Room: "r1@n1", Node: "n1", SSH: reach(n1)}) ||
		w.Players[1] != (service.OnlinePlayer{Name: "bob", Doing: "lobby", Node: "n2", SSH: reach(n2)}) {
		t.Fatalf("who --json on n2 = %+v", w.Players)
	}
	r = sshtest.Run(t, n1.Addr, "op", opKey, "admin sessions --json")
	var sessions []struct{ Name, Where, Node string }
	if err := json.Unmarshal([]byte(r.Stdout), &sessions); err != nil {
		t.Fatalf("admin sessions --json: %v\n%s", err, r.Stdout)
	}
	nodes := map[string]string{}
	for _, s := range sessions {
		nodes[s.Name] = s.Node
	}
	if nodes["alice"] != "n1" || nodes["bob"] != "n2" {
		t.Fatalf("admin sessions on n1 = %+v, want alice on n1 and bob on n2", sessions)
	}
	if r = sshtest.Run(t, n1.Addr, "op", opKey, "admin stats"); !strings.Contains(r.Stdout, "node") || !strings.Contains(r.Stdout, "n1") {
		t.Errorf("admin stats on n1 does not name its node:\n%s", r.Stdout)
	}
	r = sshtest.Run(t, n1.Addr, "op", opKey, "rooms --json")
	var rooms []service.Room
	if err := json.Unmarshal([]byte(r.Stdout), &rooms); err != nil || len(rooms) != 1 || rooms[0].Node != "n1" {
		t.Fatalf("rooms --json on n1 = %+v (%v)\n%s", rooms, err, r.Stdout)
	}

	// Lobby chat reaches the other node, both ways.
	alice.Type("q") // out of the room, back to the lobby and its chat
	bob.WaitFor(wait, "alice (lobby)")
	bob.Type("t")
	bob.Type("hello from n2\r")
	alice.WaitFor(wait, "bob", "hello from n2")
	alice.Type("t")
	alice.Type("hi bob, n1 here\r")
	bob.WaitFor(wait, "alice", "hi bob, n1 here")

	n1.Stop()
	bob.WaitFor(wait, "1 player online")
}

// Moderation on one node acts on every node's sessions: a warning and an
// announcement made on n1 reach bob on n2, and a ban made on n1 ends his
// session on n2 with the ban's exit status.
func TestClusterModerationE2E(t *testing.T) {
	url := natstest.Start(t)
	opKey := sshtest.NewKey(t)
	admins := map[string]bool{gossh.FingerprintSHA256(opKey.PublicKey()): true}
	n1 := startNode(t, url, "", "n1", admins)
	n2 := startNode(t, url, "", "n2", admins)
	bobKey := sshtest.NewKey(t)
	bob := sshtest.Open(t, sshtest.Dial(t, n2.Addr, sshtest.Config("bob", bobKey)), 80, 24, "")
	bob.WaitFor(wait, "Welcome, bob!")
	waitUntil(t, "n1 to know bob is on n2", wait, func() bool { n, _ := n1.Hub.Online(); return n == 1 })

	if r := sshtest.Run(t, n1.Addr, "op", opKey, "admin warn bob mind the language"); r.Code != 0 {
		t.Fatalf("admin warn bob on n1: %+v", r)
	}
	bob.WaitFor(wait, "mind the language")
	if r := sshtest.Run(t, n1.Addr, "op", opKey, "admin announce restart at noon"); r.Code != 0 {
		t.Fatalf("admin announce on n1: %+v", r)
	}
	bob.WaitFor(wait, "restart at noon")
	if r := sshtest.Run(t, n1.Addr, "op", opKey, "admin ban "+gossh.FingerprintSHA256(bobKey.PublicKey())+" 1h cheating"); r.Code != 0 {
		t.Fatalf("admin ban on n1: %+v", r)
	}
	if code, err := bob.Wait(wait); err != nil || code != server.ExitDenied {
		t.Fatalf("bob's session on n2 after a ban on n1: exit %d, %v; want %d", code, err, server.ExitDenied)
	}
}

// Three nodes on one PostgreSQL database and one NATS: two new players
// asking for the same name at the same moment on two nodes get one each
// of it and another; players on two nodes see each other; a ban made on
// node 1 ends a session on node 2 and refuses the key on node 3.
func TestClusterSharedStoreE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	opKey := sshtest.NewKey(t)
	admins := map[string]bool{gossh.FingerprintSHA256(opKey.PublicKey()): true}
	nodes := []*harness{startNode(t, url, db, "n1", admins), startNode(t, url, db, "n2", admins), startNode(t, url, db, "n3", admins)}

	// The same name at the same moment on two nodes.
	keys := []gossh.Signer{sshtest.NewKey(t), sshtest.NewKey(t)}
	got := make([]string, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := sshtest.Run(t, nodes[i].Addr, "dana", keys[i], "whoami --json")
			var me struct{ Name string }
			if err := json.Unmarshal([]byte(r.Stdout), &me); err != nil {
				t.Errorf("whoami --json on n%d: %v\n%s%s", i+1, err, r.Stdout, r.Stderr)
			}
			got[i] = me.Name
		}()
	}
	wg.Wait()
	if got[0] == got[1] || (got[0] != "dana" && got[1] != "dana") {
		t.Fatalf("two new players asking for dana on n1 and n2 at once are %q and %q; want dana once", got[0], got[1])
	}

	alice := sshtest.Open(t, sshtest.Dial(t, nodes[0].Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")
	bobKey := sshtest.NewKey(t)
	bob := sshtest.Open(t, sshtest.Dial(t, nodes[1].Addr, sshtest.Config("bob", bobKey)), 80, 24, "")
	bob.WaitFor(wait, "Welcome, bob!")
	alice.WaitFor(wait, "2 players online")
	bob.WaitFor(wait, "2 players online")

	if r := sshtest.Run(t, nodes[0].Addr, "op", opKey, "admin ban bob 1h cheating"); r.Code != 0 {
		t.Fatalf("admin ban bob on n1: %+v", r)
	}
	if code, err := bob.Wait(wait); err != nil || code != server.ExitDenied {
		t.Fatalf("bob's session on n2 after a ban on n1: exit %d, %v; want %d", code, err, server.ExitDenied)
	}
	if r := sshtest.Run(t, nodes[2].Addr, "bob", bobKey, "whoami"); r.Code != server.ExitDenied {
		t.Fatalf("bob on n3 after the ban: %+v; want exit %d", r, server.ExitDenied)
	}
	alice.WaitFor(wait, "1 player online")
}
