package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/sshtest"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/postgres"
	"github.com/termarena/termarena/store/postgres/pgtest"
)

// clusterNode is a termarena node running as its own process (this test
// binary as main), so that a test can kill -9 it.
type clusterNode struct {
	name, addr string
	cmd        *exec.Cmd
	log        *syncBuffer
	done       chan struct{}
}

// startNodeProcess starts node name on the NATS server at natsURL and the
// PostgreSQL database at db, as an operator would: termarena --listen …
// --data … --nats … --store … --node name.
func startNodeProcess(t *testing.T, natsURL, db, name string, extra ...string) *clusterNode {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	n := &clusterNode{name: name, addr: freeAddr(t), log: &syncBuffer{}, done: make(chan struct{})}
	args := append([]string{"--listen", n.addr, "--data", filepath.Join(t.TempDir(), name), "--nats", natsURL, "--store", db, "--node", name}, extra...)
	n.cmd = exec.Command(self, args...)
	n.cmd.Env = append(os.Environ(), "TERMARENA_TEST_MAIN=1", "TERMARENA_HTTP=127.0.0.1:0")
	n.cmd.Stdout, n.cmd.Stderr = n.log, n.log
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = n.cmd.Wait(); close(n.done) }()
	t.Cleanup(func() {
		if n.cmd.ProcessState == nil {
			_ = n.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-n.done:
			case <-time.After(15 * time.Second):
				_ = n.cmd.Process.Kill()
				<-n.done
			}
		}
		if t.Failed() || os.Getenv("TERMARENA_TEST_LOG") != "" {
			t.Logf("log of %s:\n%s", n.name, n.log.String())
		}
	})
	c := waitUp(t, n.addr)
	c.Close()
	return n
}

// kill9 kills the node as a crash or an OOM killer would: no goodbye,
// nothing flushed, its leases left to expire.
func (n *clusterNode) kill9(t *testing.T) {
	t.Helper()
	if err := n.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-n.done
}

func waitFor(t *testing.T, what string, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A ranked match survives the kill -9 of the node it runs on: ann and
// bob, matched on n1, play; n1 is killed mid-match; n2 takes the room's
// lease, rebuilds the match from its log and holds their seats; both
// reconnect, to n2, with the same keys, and are back in the match (r1@n1
// still); bob walks out, which ends it; the match is stored once, rated,
// with one rating change each.
func TestClusterResumeAfterKill9E2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	n1 := startNodeProcess(t, url, db, "n1")
	n2 := startNodeProcess(t, url, db, "n2")

	ann, bob, annKey, bobKey := matchRanked(t, n1.addr, "r1@n1")
	// Play: the countdown runs out and both move their paddles for a
	// while, so the log holds inputs and several batches.
	press(6*time.Second, keyPress{ann, "w"}, keyPress{bob, "s"})

	logBytesPerSecond(t, url, "termarena.roomlog.r1_n1")
	killed := time.Now()
	n1.kill9(t)
	waitFor(t, "n2 to resume r1@n1", 10*time.Second, func() bool {
		return strings.Contains(n2.log.String(), "resumed a room from its log")
	})
	t.Logf("kill -9 to resumed on n2 (as the log saw it): %v", time.Since(killed).Round(10*time.Millisecond))
	if !strings.Contains(n2.log.String(), "room=r1@n1") {
		t.Fatalf("n2 resumed another room:\n%s", n2.log.String())
	}

	ann2 := sshtest.Open(t, sshtest.Dial(t, n2.addr, sshtest.Config("ann", annKey)), 100, 30, "")
	ann2.WaitFor(wait(), "r1@n1 · pong-1v1 · ranked", "▸ann")
	bob2 := sshtest.Open(t, sshtest.Dial(t, n2.addr, sshtest.Config("bob", bobKey)), 100, 30, "")
	bob2.WaitFor(wait(), "r1@n1 · pong-1v1 · ranked", "▸bob")
	for range 10 {
		ann2.Type("w")
		bob2.Type("w")
		time.Sleep(100 * time.Millisecond)
	}
	bob2.Type("q") // walks out of the match: a forfeit, and the end of it
	bob2.Type("y") // confirms, as leaving a ranked match asks
	bob2.WaitFor(wait(), "You left a ranked match")

	// Recorded once, ranked, not aborted, won by ann through bob's forfeit.
	checkRecordedOnce(t, db, annKey, "r1@n1")
}

func wait() time.Duration { return 20 * time.Second }

// A match whose log does not reproduce its state is not resumed: it is
// recorded as aborted, with nobody's rating changed, and the node says
// why. Here the killed node's log gains a batch whose hash is wrong (as
// a damaged log, or a game whose rules changed under it, would have).
func TestClusterUnresumableMatchIsRecordedAbortedE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	n1 := startNodeProcess(t, url, db, "n1")
	n2 := startNodeProcess(t, url, db, "n2")
	ann, _, annKey, bobKey := matchRanked(t, n1.addr, "r1@n1")
	press(5*time.Second, keyPress{ann, "w"})

	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	n1.kill9(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	stream, err := js.Stream(ctx, "TERMARENA_ROOMLOG")
	if err != nil {
		t.Fatal(err)
	}
	last, err := stream.GetLastMsgForSubject(ctx, "termarena.roomlog.r1_n1")
	if err != nil {
		t.Fatalf("the killed node's log of r1@n1: %v", err)
	}
	var b struct {
		Tick uint64 `json:"tick"`
		Hash uint64 `json:"hash"`
	}
	if err := json.Unmarshal(last.Data, &b); err != nil || b.Tick == 0 {
		t.Fatalf("the log's last batch %s: %v", last.Data, err)
	}
	bad := fmt.Sprintf(`{"v":1,"node":"n1","tick":%d,"hash":%d}`, b.Tick+12, b.Hash^1)
	if _, err := js.Publish(ctx, "termarena.roomlog.r1_n1", []byte(bad)); err != nil {
		t.Fatal(err)
	}

	waitFor(t, "n2 to give up on r1@n1", 10*time.Second, func() bool {
		return strings.Contains(n2.log.String(), "could not be resumed; its match is recorded aborted")
	})
	if !strings.Contains(n2.log.String(), "does not reproduce its state") {
		t.Errorf("n2's log does not say why:\n%s", n2.log.String())
	}
	st, err := postgres.Open(context.Background(), db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	annFP := gossh.FingerprintSHA256(annKey.PublicKey())
	var ms []store.MatchRecord
	waitFor(t, "the match to be recorded", 10*time.Second, func() bool {
		ms, err = st.Matches(context.Background(), annFP, 10)
		return err == nil && len(ms) > 0
	})
	if m := ms[0]; len(ms) != 1 || m.Room != "r1@n1" || !m.Aborted || !m.Ranked || len(m.Players) != 2 {
		t.Fatalf("matches recorded: %+v; want r1@n1 once, ranked, aborted, both players", ms)
	}
	for _, fp := range []string{annFP, gossh.FingerprintSHA256(bobKey.PublicKey())} {
		if r, _, err := st.Rating(context.Background(), "pong-1v1", fp); err == nil && r.Games != 0 {
			t.Errorf("a rating changed by an aborted match: %+v", r)
		}
	}
	// Nothing holds their seats: back on n2 they are in the lobby.
	ann2 := sshtest.Open(t, sshtest.Dial(t, n2.addr, sshtest.Config("ann", annKey)), 100, 30, "")
	ann2.WaitFor(wait(), "Welcome")
	if strings.Contains(ann2.Screen(), "r1@n1 · pong-1v1") {
		t.Fatalf("ann is back in a match recorded aborted:\n%s", ann2.Screen())
	}
}

// A node started with --drain hands its matches over when it is stopped:
// n1 hosts two ranked matches; SIGTERM stops it taking sessions, n2
// resumes both from their logs, n1 tells its four players to reconnect
// and exits 0; they reconnect to n2 with the same keys, are back in
// their matches and finish them (one walks out of each); both matches
// are recorded once, not aborted, and rated.
func TestClusterDrainHandsMatchesOverE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	n1 := startNodeProcess(t, url, db, "n1", "--drain")
	n2 := startNodeProcess(t, url, db, "n2")

	names := []string{"ann", "bob", "cat", "dan"}
	keys := map[string]gossh.Signer{}
	terms := map[string]*sshtest.Term{}
	for _, name := range names {
		keys[name] = sshtest.NewKey(t)
		terms[name] = sshtest.Open(t, sshtest.Dial(t, n1.addr, sshtest.Config(name, keys[name])), 100, 30, "play pong-1v1")
	}
	for _, name := range names {
		terms[name].WaitFor(wait(), "· pong-1v1 · ranked", "▸"+name)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		for _, name := range names {
			terms[name].Type("w")
		}
		time.Sleep(100 * time.Millisecond)
	}

	stopped := time.Now()
	if err := n1.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		terms[name].WaitFor(wait(), "reconnect")
	}
	select {
	case <-n1.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("n1 did not exit after the drain:\n%s", n1.log.String())
	}
	t.Logf("SIGTERM to n1 gone: %v", time.Since(stopped).Round(10*time.Millisecond))
	if code := n1.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("n1 exited %d after a drain", code)
	}
	if !strings.Contains(n1.log.String(), "drain: matches handed over") || !strings.Contains(n1.log.String(), "taken=2") {
		t.Fatalf("n1 did not hand both matches over:\n%s", n1.log.String())
	}
	for _, l := range strings.Split(n1.log.String(), "\n") {
		if strings.Contains(l, "drain: matches handed over") {
			t.Logf("n1: %s", l[strings.Index(l, "msg="):])
		}
	}

	// Back on n2, in the same matches, which they finish.
	again := map[string]*sshtest.Term{}
	for _, name := range names {
		again[name] = sshtest.Open(t, sshtest.Dial(t, n2.addr, sshtest.Config(name, keys[name])), 100, 30, "")
		again[name].WaitFor(wait(), "@n1 · pong-1v1 · ranked", "▸"+name)
	}
	stays := map[string]bool{}
	for _, name := range names {
		scr := again[name].Screen()
		if stays[name] {
			continue
		}
		// The first of each pair walks out; the other wins.
		for _, other := range names {
			if other != name && strings.Contains(scr, other) {
				stays[other] = true
			}
		}
		again[name].Type("q")
		again[name].Type("y")
		again[name].WaitFor(wait(), "You left a ranked match")
	}

	st, err := postgres.Open(context.Background(), db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rooms := map[string]int{}
	for _, name := range names {
		fp := gossh.FingerprintSHA256(keys[name].PublicKey())
		var ms []store.MatchRecord
		waitFor(t, name+"'s match to be recorded", 20*time.Second, func() bool {
			ms, err = st.Matches(context.Background(), fp, 10)
			return err == nil && len(ms) > 0
		})
		if len(ms) != 1 || ms[0].Aborted || !ms[0].Ranked || !strings.HasSuffix(ms[0].Room, "@n1") {
			t.Fatalf("%s's matches: %+v; want one, ranked, played to its end, in a room of n1", name, ms)
		}
		rooms[ms[0].Room]++
		if r, _, err := st.Rating(context.Background(), "pong-1v1", fp); err != nil || r.Games != 1 {
			t.Errorf("%s's rating: %+v, %v; want one game", name, r, err)
		}
	}
	if len(rooms) != 2 {
		t.Fatalf("matches by room: %v; want two rooms of two", rooms)
	}
}

// `admin drain NODE`, run on any node, drains that node as a SIGTERM with
// --drain would: n1, asked from n2, hands its match to n2 and exits 0
// (started without --drain). A name no node has is exit 1, saying so.
func TestClusterAdminDrainE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	opKey := sshtest.NewKey(t)
	keys := filepath.Join(t.TempDir(), "admins")
	if err := os.WriteFile(keys, gossh.MarshalAuthorizedKey(opKey.PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	n1 := startNodeProcess(t, url, db, "n1", "--admin-keys", keys)
	n2 := startNodeProcess(t, url, db, "n2", "--admin-keys", keys)
	ann, _, annKey, _ := matchRanked(t, n1.addr, "r1@n1")
	time.Sleep(4 * time.Second) // past the countdown, into play

	if r := sshtest.Run(t, n2.addr, "op", opKey, "admin drain n9"); r.Code != 1 || !strings.Contains(r.Stderr, "no node named n9") {
		t.Fatalf("admin drain n9: %+v; want exit 1 saying no such node", r)
	}
	r := sshtest.Run(t, n2.addr, "op", opKey, "admin drain n1")
	if r.Code != 0 || !strings.Contains(r.Stdout, "n1 drains") {
		t.Fatalf("admin drain n1 on n2: %+v", r)
	}
	ann.WaitFor(wait(), "reconnect")
	select {
	case <-n1.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("n1 did not exit after admin drain:\n%s", n1.log.String())
	}
	if code := n1.cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(n1.log.String(), "taken=1") {
		t.Fatalf("n1 exited %d; log:\n%s", code, n1.log.String())
	}
	ann2 := sshtest.Open(t, sshtest.Dial(t, n2.addr, sshtest.Config("ann", annKey)), 100, 30, "")
	ann2.WaitFor(wait(), "r1@n1 · pong-1v1 · ranked", "▸ann")
}

// A player connected to a node that survives plays on through the
// resume: ann on n1 opens a room, bob joins it from n3 (played over
// NATS); n1 is killed; whichever of n2 and n3 takes the room over, bob's
// session on n3 follows it (seated again there), ann reconnects to that
// node and is back, the pause ends (nobody left in grace) and when ann
// walks out bob's screen shows the game over, bob's seat never lost.
func TestClusterRemotePlayerPlaysOnThroughResumeE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	n1 := startNodeProcess(t, url, db, "n1")
	nodes := map[string]*clusterNode{"n2": startNodeProcess(t, url, db, "n2"), "n3": startNodeProcess(t, url, db, "n3")}

	annKey, bobKey := sshtest.NewKey(t), sshtest.NewKey(t)
	ann := sshtest.Open(t, sshtest.Dial(t, n1.addr, sshtest.Config("ann", annKey)), 100, 30, "")
	ann.WaitFor(wait(), "Welcome, ann!")
	ann.Type("c")
	ann.WaitFor(wait(), "New room", "mode: 1v1")
	ann.Type("\r")
	ann.WaitFor(wait(), "r1@n1 · 1v1 · casual", "(you)")
	var bob *sshtest.Term
	waitFor(t, "bob to join r1@n1 from n3", wait(), func() bool {
		r := sshtest.Run(t, nodes["n3"].addr, "bob", bobKey, "rooms")
		return strings.Contains(r.Stdout, "r1@n1")
	})
	bob = sshtest.Open(t, sshtest.Dial(t, nodes["n3"].addr, sshtest.Config("bob", bobKey)), 100, 30, "join r1@n1")
	bob.WaitFor(wait(), "r1@n1 · 1v1 · casual", "ann", "(you)")
	ann.Type("r")
	bob.Type("r")
	deadline := time.Now().Add(5 * time.Second) // the countdown, then play
	for time.Now().Before(deadline) {
		ann.Type("w")
		bob.Type("s")
		time.Sleep(100 * time.Millisecond)
	}

	n1.kill9(t)
	var owner string
	waitFor(t, "n2 or n3 to resume r1@n1", 10*time.Second, func() bool {
		for name, n := range nodes {
			if strings.Contains(n.log.String(), "resumed a room from its log") {
				owner = name
				return true
			}
		}
		return false
	})
	t.Logf("%s resumed r1@n1", owner)
	ann2 := sshtest.Open(t, sshtest.Dial(t, nodes[owner].addr, sshtest.Config("ann", annKey)), 100, 30, "")
	ann2.WaitFor(wait(), "r1@n1 · 1v1 · casual", "▸ann")
	waitFor(t, "the pause to end with both seated", 15*time.Second, func() bool {
		return !strings.Contains(ann2.Screen(), "disconnected")
	})
	if scr := bob.Screen(); strings.Contains(scr, "failed") || !strings.Contains(scr, "r1@n1") {
		t.Fatalf("bob's screen on n3 after the resume:\n%s", scr)
	}
	ann2.Type("q") // walks out: bob wins
	bob.WaitFor(wait(), "game over")
}

// logBytesPerSecond logs what one room's log holds in JetStream per
// second of play (the figure BENCHMARKS asks for): the stream's stored
// bytes over the ticks its last batch reached.
func logBytesPerSecond(t *testing.T, url, subject string) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	stream, err := js.Stream(ctx, "TERMARENA_ROOMLOG")
	if err != nil {
		t.Fatal(err)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	last, err := stream.GetLastMsgForSubject(ctx, subject)
	if err != nil {
		t.Fatal(err)
	}
	var b struct {
		Tick uint64 `json:"tick"`
	}
	if err := json.Unmarshal(last.Data, &b); err != nil || b.Tick == 0 {
		t.Fatalf("last batch %s: %v", last.Data, err)
	}
	secs := float64(b.Tick) / 60
	t.Logf("room log: %d messages, %d bytes for %.1f s of play: %.0f bytes and %.1f messages a second", info.State.Msgs, info.State.Bytes, secs,
		float64(info.State.Bytes)/secs, float64(info.State.Msgs)/secs)
}

// A node restarted after a kill -9 counts its rooms from 1 again, while
// another node still plays its former room under its id (r1@n1, resumed
// on n2): the restarted node's next room must get another id, or two
// rooms would answer to r1@n1 (its NATS subjects, its lease, what join
// and the lists reach). Seen on the hand tour of issue 25: dave's new
// light-cycle room on the restarted n1 was r1@n1, the lobby listed it
// with the resumed Pong match's player in it, and carol's join of it
// from n3 was answered by the Pong match.
func TestClusterRestartedNodeSkipsResumedRoomIDsE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	n1 := startNodeProcess(t, url, db, "n1")
	n2 := startNodeProcess(t, url, db, "n2")

	ann, bob, annKey, bobKey := matchRanked(t, n1.addr, "r1@n1")
	carolKey := sshtest.NewKey(t)
	// Past the countdown and into play: the log has the match's start
	// and batches.
	press(6*time.Second, keyPress{ann, "w"}, keyPress{bob, "s"})

	killed := time.Now()
	n1.kill9(t)
	waitFor(t, "n2 to resume r1@n1", 10*time.Second, func() bool {
		return strings.Contains(n2.log.String(), "resumed a room from its log")
	})
	ann2 := sshtest.Open(t, sshtest.Dial(t, n2.addr, sshtest.Config("ann", annKey)), 100, 30, "")
	ann2.WaitFor(wait(), "r1@n1 · pong-1v1 · ranked", "▸ann")
	bob2 := sshtest.Open(t, sshtest.Dial(t, n2.addr, sshtest.Config("bob", bobKey)), 100, 30, "")
	bob2.WaitFor(wait(), "r1@n1 · pong-1v1 · ranked", "▸bob")

	// n1 again, once its name has lapsed (6 s after its last renewal).
	time.Sleep(time.Until(killed.Add(6500 * time.Millisecond)))
	n1 = startNodeProcess(t, url, db, "n1")
	carol := sshtest.Open(t, sshtest.Dial(t, n1.addr, sshtest.Config("carol", carolKey)), 100, 30, "")
	carol.WaitFor(wait(), "Welcome, carol")
	carol.Type("c")
	carol.WaitFor(wait(), "New room")
	carol.Type("\r")
	screen := carol.WaitFor(wait(), "@n1 · 1v1")
	if strings.Contains(screen, "r1@n1 ·") {
		t.Fatalf("the restarted n1 gave carol's new room the id of the match n2 plays on:\n%s", screen)
	}
	// The resumed match is still the only r1@n1: its players are in it.
	bob2.WaitFor(wait(), "r1@n1 · pong-1v1 · ranked", "▸bob")
	out := sshtest.Run(t, n2.addr, "carol", carolKey, "rooms --json")
	var rooms []struct {
		ID      string   `json:"id"`
		Players []string `json:"players"`
	}
	if err := json.Unmarshal([]byte(out.Stdout), &rooms); err != nil {
		t.Fatalf("rooms --json on n2: %v\n%s", err, out.Stdout)
	}
	for _, r := range rooms {
		if r.ID == "r1@n1" {
			t.Fatalf("n2 lists a public room r1@n1 %v beside the ranked match it plays as r1@n1: %s", r.Players, out.Stdout)
		}
	}
}

// A player connected to a node that survives plays on through a drain of
// the room's owner, as through its kill -9: ann on n1 (--drain) opens a
// room, bob joins it from n2; n1 is stopped (SIGTERM) mid-match and hands
// the match to n2, and bob, whose connection never dropped, is still in
// it there. Seen on the hand tour of issue 25: the draining owner sent
// its Closed frame to the other nodes, so bob was put back in the lobby
// ("The room closed.") while the match went on without him, his seat in
// grace.
func TestClusterRemotePlayerPlaysOnThroughDrainE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	n1 := startNodeProcess(t, url, db, "n1", "--drain")
	n2 := startNodeProcess(t, url, db, "n2")

	annKey, bobKey := sshtest.NewKey(t), sshtest.NewKey(t)
	ann := sshtest.Open(t, sshtest.Dial(t, n1.addr, sshtest.Config("ann", annKey)), 100, 30, "")
	ann.WaitFor(wait(), "Welcome, ann!")
	ann.Type("c")
	ann.WaitFor(wait(), "New room", "mode: 1v1")
	ann.Type("\r")
	ann.WaitFor(wait(), "r1@n1 · 1v1 · casual", "(you)")
	waitFor(t, "n2 to list r1@n1", wait(), func() bool {
		return strings.Contains(sshtest.Run(t, n2.addr, "bob", bobKey, "rooms").Stdout, "r1@n1")
	})
	bob := sshtest.Open(t, sshtest.Dial(t, n2.addr, sshtest.Config("bob", bobKey)), 100, 30, "join r1@n1")
	bob.WaitFor(wait(), "r1@n1 · 1v1 · casual", "ann", "(you)")
	ann.Type("r")
	bob.Type("r")
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); { // the countdown, then play
		ann.Type("w")
		bob.Type("s")
		time.Sleep(100 * time.Millisecond)
	}

	if err := n1.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-n1.done
	waitFor(t, "n2 to resume r1@n1", 10*time.Second, func() bool {
		return strings.Contains(n2.log.String(), "resumed a room from its log")
	})
	ann2 := sshtest.Open(t, sshtest.Dial(t, n2.addr, sshtest.Config("ann", annKey)), 100, 30, "")
	ann2.WaitFor(wait(), "r1@n1 · 1v1 · casual", "▸ann")
	waitFor(t, "the pause to end with both seated", 15*time.Second, func() bool {
		return !strings.Contains(ann2.Screen(), "disconnected")
	})
	if scr := bob.Screen(); strings.Contains(scr, "closed") || !strings.Contains(scr, "r1@n1 · 1v1") {
		t.Fatalf("bob's screen on n2 after n1's drain:\n%s", scr)
	}
	ann2.Type("q") // walks out: bob wins
	bob.WaitFor(wait(), "game over")
}

// matchRanked queues ann and bob (new keys) for pong-1v1 on the node at
// addr and waits until both are seated in room, its first room; the keys
// let them reconnect to another node as the same players.
func matchRanked(t *testing.T, addr, room string) (ann, bob *sshtest.Term, annKey, bobKey gossh.Signer) {
	t.Helper()
	annKey, bobKey = sshtest.NewKey(t), sshtest.NewKey(t)
	ann = sshtest.Open(t, sshtest.Dial(t, addr, sshtest.Config("ann", annKey)), 100, 30, "play pong-1v1")
	bob = sshtest.Open(t, sshtest.Dial(t, addr, sshtest.Config("bob", bobKey)), 100, 30, "play pong-1v1")
	ann.WaitFor(wait(), room+" · pong-1v1 · ranked")
	bob.WaitFor(wait(), room+" · pong-1v1 · ranked")
	return ann, bob, annKey, bobKey
}

// keyPress is a key a terminal types while press plays.
type keyPress struct {
	term *sshtest.Term
	key  string
}

// press has each terminal type its key every 100 ms for d: past the
// countdown and into play, so the room's log holds inputs and batches.
func press(d time.Duration, keys ...keyPress) {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		for _, k := range keys {
			k.term.Type(k.key)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A player who reconnects to another node at once after his match's node
// was killed -9, before any node has resumed the room, is seated in it
// once it is resumed, as one reconnecting a second later is: he landed
// in a lobby that did not show his match, with its grace running out.
func TestClusterReconnectBeforeResumeGetsTheSeatBackE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	n1 := startNodeProcess(t, url, db, "n1")
	n2 := startNodeProcess(t, url, db, "n2")

	ann, bob, annKey, _ := matchRanked(t, n1.addr, "r1@n1")
	press(5*time.Second, keyPress{ann, "w"}, keyPress{bob, "s"})
	n1.kill9(t)
	ann2 := sshtest.Open(t, sshtest.Dial(t, n2.addr, sshtest.Config("ann", annKey)), 100, 30, "")
	if strings.Contains(n2.log.String(), "resumed a room from its log") {
		t.Skip("n2 resumed the room before ann reconnected: not the case under test")
	}
	ann2.WaitFor(wait(), "r1@n1 · pong-1v1 · ranked", "▸ann")
}
