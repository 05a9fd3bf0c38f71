package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/sshtest"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/postgres"
	"github.com/termarena/termarena/store/postgres/pgtest"
)

var rankedTitle = regexp.MustCompile(`r\d+@(n\d) · pong-1v1 · ranked`)

// A player whose SSH connection drops on a node that does not own his
// match reconnects to a third node and is back in his seat: ann on n1 and
// bob on n2 are matched by the cluster's queue; bob's connection drops;
// he reconnects to n3, which finds the seat he holds in grace through the
// owner and seats him there; he plays, ann walks out, and the match is
// recorded once, rated, bob its winner.
func TestClusterReconnectToAnyNodeE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	nodes := map[string]*clusterNode{}
	for _, name := range []string{"n1", "n2", "n3"} {
		nodes[name] = startNodeProcess(t, url, db, name)
	}
	annKey, bobKey := sshtest.NewKey(t), sshtest.NewKey(t)
	ann := sshtest.Open(t, sshtest.Dial(t, nodes["n1"].addr, sshtest.Config("ann", annKey)), 100, 30, "play pong-1v1")
	ann.WaitFor(wait(), "Looking for a pong-1v1 match")
	bobConn := sshtest.Dial(t, nodes["n2"].addr, sshtest.Config("bob", bobKey))
	bob := sshtest.Open(t, bobConn, 100, 30, "play pong-1v1")
	scr := bob.WaitFor(wait(), "· pong-1v1 · ranked")
	ann.WaitFor(wait(), "· pong-1v1 · ranked")
	// The first player's node makes the room.
	m := rankedTitle.FindStringSubmatch(scr)
	if m == nil || m[1] != "n1" {
		t.Fatalf("no ranked room on n1 on bob's screen:\n%s", scr)
	}
	room := strings.Fields(m[0])[0]
	deadline := time.Now().Add(4 * time.Second) // the countdown, then play
	for time.Now().Before(deadline) {
		ann.Type("w")
		bob.Type("s")
		time.Sleep(100 * time.Millisecond)
	}
	bobConn.Close() // bob's connection drops
	ann.WaitFor(wait(), "disconnected")

	back := time.Now()
	again := sshtest.Open(t, sshtest.Dial(t, nodes["n3"].addr, sshtest.Config("bob", bobKey)), 100, 30, "")
	again.WaitFor(wait(), room+" · pong-1v1 · ranked", "▸bob")
	t.Logf("reconnect to n3 → back in the seat: %v", time.Since(back).Round(time.Millisecond))
	waitFor(t, "the pause to end", 15*time.Second, func() bool { return !strings.Contains(ann.Screen(), "disconnected") })
	for range 10 {
		again.Type("w")
		time.Sleep(100 * time.Millisecond)
	}
	ann.Type("q") // walks out: bob wins
	ann.Type("y")
	ann.WaitFor(wait(), "You left a ranked match")
	again.WaitFor(wait(), "game over")
	checkRecordedOnce(t, db, bobKey, room)
}

// Both players of a match whose owner is killed -9 reconnect to a node
// that did not resume it (n3, while n2 holds the room) and are back in it.
func TestClusterReconnectAfterKill9ToAnyNodeE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	n1 := startNodeProcess(t, url, db, "n1")
	n2 := startNodeProcess(t, url, db, "n2")
	ann, bob, annKey, bobKey := matchRanked(t, n1.addr, "r1@n1")
	press(4*time.Second, keyPress{ann, "w"}, keyPress{bob, "s"})
	n1.kill9(t)
	waitFor(t, "n2 to resume r1@n1", 10*time.Second, func() bool {
		return strings.Contains(n2.log.String(), "resumed a room from its log")
	})
	// n3 starts once n2 holds the room, so that it is not n3's (the
	// players are to reconnect to a node that does not own it), and
	// hears of it from n2.
	n3 := startNodeProcess(t, url, db, "n3")
	// (What n3 knows of the others' rooms comes with their heartbeats:
	// a watcher on n3 sees the match once n3 has heard of it.)
	carol := sshtest.Dial(t, n3.addr, sshtest.Config("carol", sshtest.NewKey(t)))
	waitFor(t, "n3 to know of r1@n1", wait(), func() bool {
		tm := sshtest.Open(t, carol, 100, 30, "join r1@n1")
		_, _ = tm.Wait(wait())
		if strings.Contains(tm.Screen(), "r1@n1 is a ranked match") {
			return true
		}
		time.Sleep(200 * time.Millisecond)
		return false
	})
	back := map[string]*sshtest.Term{}
	for _, p := range []struct {
		name string
		key  gossh.Signer
	}{{"ann", annKey}, {"bob", bobKey}} {
		at := time.Now()
		tm := sshtest.Open(t, sshtest.Dial(t, n3.addr, sshtest.Config(p.name, p.key)), 100, 30, "")
		tm.WaitFor(wait(), "r1@n1 · pong-1v1 · ranked", "▸"+p.name)
		t.Logf("%s: reconnect to n3 → back in the seat: %v", p.name, time.Since(at).Round(time.Millisecond))
		back[p.name] = tm
	}
	// Both seated again: the pause ends and the match plays on to its
	// end (bob walks out), recorded once with ann the winner.
	waitFor(t, "the pause to end", 15*time.Second, func() bool { return !strings.Contains(back["ann"].Screen(), "disconnected") })
	for range 10 {
		back["ann"].Type("w")
		back["bob"].Type("s")
		time.Sleep(100 * time.Millisecond)
	}
	back["bob"].Type("q")
	back["bob"].Type("y")
	back["ann"].WaitFor(wait(), "game over")
	checkRecordedOnce(t, db, annKey, "r1@n1")
}

// checkRecordedOnce: the match in room is stored once, a ranked
// pong-1v1, not aborted, and the player of key won it (one rated game,
// above the start).
func checkRecordedOnce(t *testing.T, db string, key gossh.Signer, room string) {
	t.Helper()
	ms := recordedMatches(t, db, key)
	if len(ms) != 1 || ms[0].Room != room || !ms[0].Ranked || ms[0].Aborted || ms[0].Mode != "pong-1v1" {
		t.Fatalf("matches recorded: %+v; want one ranked pong-1v1 match in %s, not aborted", ms, room)
	}
	st, err := postgres.Open(context.Background(), db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, _, err := st.Rating(context.Background(), "pong-1v1", gossh.FingerprintSHA256(key.PublicKey()))
	if err != nil || r.Games != 1 || r.Rating <= store.InitialRating {
		t.Fatalf("rating after winning: %+v, %v; want one game, above %v", r, err, store.InitialRating)
	}
}
