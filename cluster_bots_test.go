package main

import (
	"context"
	"strings"
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

// A practice match survives the kill -9 of its node: ann practises
// against a level-1 bot on n1 and plays; n1 is killed; n2 resumes the
// room from its log and seats the bot again; ann reconnects, to n3, and
// is back in her seat against the bot, the pause over (a bot left in
// grace would keep it paused, "bot-L1 disconnected"); the match plays on
// and, once she walks out, is in her matches once, as practice.
func TestClusterPracticeSurvivesKill9E2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	n1 := startNodeProcess(t, url, db, "n1")
	n2 := startNodeProcess(t, url, db, "n2")

	annKey := sshtest.NewKey(t)
	ann := sshtest.Open(t, sshtest.Dial(t, n1.addr, sshtest.Config("ann", annKey)), 100, 30, "practice 1v1 --level 1")
	ann.WaitFor(wait(), "r1@n1", "bot-L1", "(you)")
	ann.Type("r")
	// Past the countdown and into play, so that the log holds batches.
	press(6*time.Second, keyPress{ann, "w"})

	logBytesPerSecond(t, url, "termarena.roomlog.r1_n1") // what a practice room costs now
	n1.kill9(t)
	waitFor(t, "n2 to resume r1@n1", 15*time.Second, func() bool {
		return strings.Contains(n2.log.String(), "resumed a room from its log")
	})
	if log := n2.log.String(); !strings.Contains(log, "room=r1@n1") || strings.Contains(log, "tick=0 ") {
		t.Fatalf("n2 resumed another room, or not mid-match:\n%s", log)
	}

	// n3 is not the room's owner: ann's seat is found there too.
	n3 := startNodeProcess(t, url, db, "n3")
	carol := sshtest.NewKey(t)
	waitFor(t, "n3 to list r1@n1", wait(), func() bool {
		if strings.Contains(sshtest.Run(t, n3.addr, "carol", carol, "rooms").Stdout, "r1@n1") {
			return true
		}
		time.Sleep(300 * time.Millisecond) // a login a poll, under the per-address cap
		return false
	})
	ann2 := sshtest.Open(t, sshtest.Dial(t, n3.addr, sshtest.Config("ann", annKey)), 100, 30, "")
	ann2.WaitFor(wait(), "r1@n1", "bot-L1", "▸ann")
	// The bot sat down again on n2: nobody is in grace, the match plays.
	waitFor(t, "the pause to end", 15*time.Second, func() bool { return !strings.Contains(ann2.Screen(), "disconnected") })
	press(2*time.Second, keyPress{ann2, "s"})
	if s := ann2.Screen(); strings.Contains(s, "disconnected") || strings.Contains(s, "The room closed") {
		t.Fatalf("the resumed practice match does not play on:\n%s", s)
	}
	ann2.Type("q") // a practice walk-out ends the match as it stands

	ms := recordedMatches(t, db, annKey)
	if len(ms) != 1 || ms[0].Room != "r1@n1" || ms[0].Mode != "practice-1v1" || ms[0].Ranked || ms[0].Aborted || len(ms[0].Players) != 2 {
		t.Fatalf("matches recorded: %+v; want the one practice-1v1 match of r1@n1 against the bot, not aborted", ms)
	}
	// What matches says to ann, on any node.
	if res := sshtest.Run(t, n3.addr, "ann", annKey, "matches"); res.Code != 0 || !strings.Contains(res.Stdout, "practice-1v1") {
		t.Fatalf("matches: exit %d:\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
}

// A match whose node dies in its first countdown is not lost: it was in
// the room log from the countdown's start, so n2 resumes it into its
// countdown (from tick 0, the bot seated again), and ann, reconnecting,
// plays it from there; it is recorded once, as practice.
func TestClusterMatchKilledInItsCountdownResumesE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	n1 := startNodeProcess(t, url, db, "n1")
	n2 := startNodeProcess(t, url, db, "n2")

	annKey := sshtest.NewKey(t)
	ann := sshtest.Open(t, sshtest.Dial(t, n1.addr, sshtest.Config("ann", annKey)), 100, 30, "practice 1v1 --level 1")
	ann.WaitFor(wait(), "r1@n1", "bot-L1", "(you)")
	ann.Type("r")
	// Killed as soon as the countdown is under way: its start is in the
	// room log (waited for, so that the kill is not earlier), not yet a
	// batch of play (the countdown lasts 3 s).
	readied := time.Now()
	waitFor(t, "r1@n1's log to hold its start", 10*time.Second, func() bool { return roomLogMessages(t, url, "termarena.roomlog.r1_n1") > 0 })
	n1.kill9(t)
	t.Logf("killed %v after ready", time.Since(readied).Round(time.Millisecond))
	waitFor(t, "n2 to resume r1@n1", 15*time.Second, func() bool {
		return strings.Contains(n2.log.String(), "resumed a room from its log")
	})
	if log := n2.log.String(); !strings.Contains(log, "room=r1@n1") || !strings.Contains(log, "tick=0 ") {
		t.Fatalf("n2 did not resume r1@n1 into its countdown (this host may have let the countdown end before the kill):\n%s", log)
	}

	ann2 := sshtest.Open(t, sshtest.Dial(t, n2.addr, sshtest.Config("ann", annKey)), 100, 30, "")
	ann2.WaitFor(wait(), "r1@n1", "bot-L1", "▸ann")
	waitFor(t, "the pause to end", 15*time.Second, func() bool { return !strings.Contains(ann2.Screen(), "disconnected") })
	press(5*time.Second, keyPress{ann2, "w"})
	ann2.Type("q")

	ms := recordedMatches(t, db, annKey)
	if len(ms) != 1 || ms[0].Room != "r1@n1" || ms[0].Mode != "practice-1v1" || ms[0].Aborted || ms[0].Duration < time.Second {
		t.Fatalf("matches recorded: %+v; want the one practice-1v1 match of r1@n1, played, not aborted", ms)
	}
}

// recordedMatches waits for the matches of the player of key to be
// stored, and a second more (a second record, were there one, would be
// there by then).
func recordedMatches(t *testing.T, db string, key gossh.Signer) []store.MatchRecord {
	t.Helper()
	st, err := postgres.Open(context.Background(), db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fp := gossh.FingerprintSHA256(key.PublicKey())
	waitFor(t, "the match to be recorded", 20*time.Second, func() bool {
		ms, err := st.Matches(context.Background(), fp, 10)
		return err == nil && len(ms) > 0
	})
	time.Sleep(time.Second)
	ms, err := st.Matches(context.Background(), fp, 10)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// roomLogMessages is how many messages the room log holds on subject.
func roomLogMessages(t *testing.T, url, subject string) uint64 {
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
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, "TERMARENA_ROOMLOG")
	if err != nil {
		return 0 // not made yet
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(subject))
	if err != nil {
		return 0
	}
	return info.State.Subjects[subject]
}

// A ranked match whose node dies in its first countdown is not lost
// either: n2 resumes it into its countdown, ann and bob reconnect and
// play it, and it is recorded once and rated.
func TestClusterRankedMatchKilledInItsCountdownResumesE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	n1 := startNodeProcess(t, url, db, "n1")
	n2 := startNodeProcess(t, url, db, "n2")

	_, _, annKey, bobKey := matchRanked(t, n1.addr, "r1@n1")
	waitFor(t, "r1@n1's log to hold its start", 10*time.Second, func() bool { return roomLogMessages(t, url, "termarena.roomlog.r1_n1") > 0 })
	n1.kill9(t)
	waitFor(t, "n2 to resume r1@n1", 15*time.Second, func() bool {
		return strings.Contains(n2.log.String(), "resumed a room from its log")
	})
	if log := n2.log.String(); !strings.Contains(log, "room=r1@n1") || !strings.Contains(log, "tick=0 ") {
		t.Fatalf("n2 did not resume r1@n1 into its countdown (this host may have let the countdown end before the kill):\n%s", log)
	}
	ann := sshtest.Open(t, sshtest.Dial(t, n2.addr, sshtest.Config("ann", annKey)), 100, 30, "")
	ann.WaitFor(wait(), "r1@n1 · pong-1v1 · ranked", "▸ann")
	bob := sshtest.Open(t, sshtest.Dial(t, n2.addr, sshtest.Config("bob", bobKey)), 100, 30, "")
	bob.WaitFor(wait(), "r1@n1 · pong-1v1 · ranked", "▸bob")
	waitFor(t, "the pause to end", 15*time.Second, func() bool { return !strings.Contains(ann.Screen(), "disconnected") })
	press(4*time.Second, keyPress{ann, "w"}, keyPress{bob, "s"})
	bob.Type("q")
	bob.Type("y")
	ann.WaitFor(wait(), "game over")
	checkRecordedOnce(t, db, annKey, "r1@n1")
}
