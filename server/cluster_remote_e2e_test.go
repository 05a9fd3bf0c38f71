package server_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/termarena/termarena/app"
	"github.com/termarena/termarena/cluster"
	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
	"github.com/termarena/termarena/store/postgres/pgtest"
)

// startPongNode is startNode with short Pong matches (first to points,
// nobody defends: over in about 10 s of play) and a one-second countdown.
func startPongNode(t *testing.T, natsURL, storeURL, name string, points int) *harness {
	t.Helper()
	return startPongNodeBeating(t, natsURL, storeURL, name, points, 100*time.Millisecond)
}

// startPongNodeBeating is startPongNode whose presence and room directory
// repeat themselves every heartbeat (between changes, which are sent at
// once).
func startPongNodeBeating(t *testing.T, natsURL, storeURL, name string, points int, heartbeat time.Duration) *harness {
	t.Helper()
	var logOut io.Writer = io.Discard
	if os.Getenv("TERMARENA_TEST_LOG") != "" {
		logOut = os.Stderr
	}
	dir := t.TempDir()
	ac := app.DefaultConfig()
	ac.Data, ac.StoreTimeout, ac.Server, ac.StoreURL = dir, time.Second, server.DefaultConfig(), storeURL
	ac.Logger = slog.New(slog.NewTextHandler(logOut, nil)).With("node", name)
	ac.Cluster = app.Cluster{NATS: natsURL, Node: name, Presence: cluster.PresenceTiming{Heartbeat: heartbeat}}
	ac.Lobby.Rooms = lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: time.Second, Grace: 20 * time.Second},
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin = points
			return c
		}}},
	}
	return serveApp(t, dir, ac)
}

// Rooms are played from any node: alice on n1 opens a room, bob on n2
// joins it by id (join r1@n1) and carol on n3 watches it (spectate
// r1@n1); bob's keys move his paddle on alice's screen and on the room
// itself on n1, both ready, and the match plays to its end with the same
// result on all three screens. When they leave, n1 stops publishing.
func TestClusterRemotePlayE2E(t *testing.T) {
	url := natstest.Start(t)
	n1 := startPongNode(t, url, "", "n1", 3)
	n2 := startPongNode(t, url, "", "n2", 3)
	n3 := startPongNode(t, url, "", "n3", 3)

	alice := sshtest.Open(t, sshtest.Dial(t, n1.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room", "mode: 1v1")
	alice.Type("\r")
	alice.WaitFor(wait, "r1@n1 · 1v1 · casual", "(you)")
	room, err := n1.Rooms.Find("r1@n1")
	if err != nil {
		t.Fatal(err)
	}

	// n2 hears of the room through the directory, then bob joins it.
	waitUntil(t, "n2 to list r1@n1", wait, func() bool { return len(n2.Rooms.Remote(lobby.Public)) == 1 })
	bob := sshtest.Open(t, sshtest.Dial(t, n2.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 30, "join r1@n1")
	bob.WaitFor(wait, "r1@n1 · 1v1 · casual", "alice", "bob", "(you)")
	alice.WaitFor(wait, "bob")
	if fr, _ := room.Latest(); !fr.Seats[1].Taken || fr.Seats[1].Player.Name != "bob" || !fr.Seats[1].Connected {
		t.Fatalf("n1's room after bob joined from n2: %+v", fr.Seats)
	}

	waitUntil(t, "n3 to list r1@n1", wait, func() bool { return len(n3.Rooms.Remote(lobby.Watchable)) == 1 })
	carol := sshtest.Open(t, sshtest.Dial(t, n3.Addr, sshtest.Config("carol", sshtest.NewKey(t))), 100, 30, "spectate r1@n1")
	carol.WaitFor(wait, "alice", "bob")

	alice.Type("r")
	bob.Type("r")
	alice.WaitFor(wait, "▸alice 0", "bob 0")
	bob.WaitFor(wait, "alice 0", "▸bob 0")
	waitUntil(t, "the countdown to end", wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Playing })

	// Bob holds "up" on n2: the owner's room applies it and his paddle
	// rises on alice's screen on n1.
	aTop0, _ := paddleSpan(alice, 1)
	if aTop0 < 0 {
		t.Fatalf("no right paddle on alice's screen:\n%s", alice.Screen())
	}
	for range 12 {
		bob.Type("w")
		time.Sleep(30 * time.Millisecond)
	}
	waitUntil(t, "bob's inputs to reach n1's room", wait, func() bool { fr, _ := room.Latest(); return fr.Acks[1] > 0 })
	waitUntil(t, "bob's paddle to rise on alice's screen", wait, func() bool { top, _ := paddleSpan(alice, 1); return top >= 0 && top < aTop0 })

	// Nobody defends: first to three, on every screen.
	waitUntil(t, "the match to end", 6*wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Finished })
	fr, _ := room.Latest()
	s := fr.State.(*pong.Snapshot)
	winner, loser := "alice", "bob"
	if s.Won(1) {
		winner, loser = "bob", "alice"
	}
	for _, tm := range []*sshtest.Term{alice, bob, carol} {
		tm.WaitFor(wait, "game over")
		tm.WaitFor(wait, winner)
	}
	t.Logf("%s beat %s %v", winner, loser, s.Scores[:2])

	// They leave: the room closes and n1 stops serving it to the others.
	bob.Type("q")
	alice.Type("q")
	bob.WaitFor(wait, "Welcome, bob!")
	alice.WaitFor(wait, "Welcome, alice!")
	bob.Type("q")
	if code, err := bob.Wait(wait); err != nil || code != 0 {
		t.Fatalf("bob's session: exit %d, %v\n%s", code, err, bob.Screen())
	}
	waitUntil(t, "n1's room to close", wait, func() bool { return n1.Rooms.Count() == 0 })
	waitUntil(t, "n2 and n3 to drop their handles", wait, func() bool {
		return len(n2.Rooms.Mirrors()) == 0 && len(n3.Rooms.Mirrors()) == 0
	})
}

// Players on two nodes matched by the cluster's ranked queue play one
// match to its end, in a room on one node: the match is rated once, on
// the shared PostgreSQL, and both players' screens show the same rating
// changes (newcomers: ±241), which profile on either node then reads.
func TestClusterRankedAcrossNodesE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	n1 := startPongNode(t, url, db, "n1", 3)
	waitUntil(t, "n1 to hold the matchmaker lease", wait, n1.App.Lease.Holding)
	n2 := startPongNode(t, url, db, "n2", 3)

	ann := sshtest.Open(t, sshtest.Dial(t, n1.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 100, 30, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
	bob := sshtest.Open(t, sshtest.Dial(t, n2.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 30, "play pong-1v1")

	var room *lobby.Room
	waitUntil(t, "a ranked room on n1 or n2", wait, func() bool {
		for _, n := range []*harness{n1, n2} {
			for _, r := range n.Rooms.All() {
				if r.Ranked == "pong-1v1" {
					room = r
					return true
				}
			}
		}
		return false
	})
	// Nobody defends: first to three.
	waitUntil(t, "the match to end", 6*wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Finished })
	fr, _ := room.Latest()
	s := fr.State.(*pong.Snapshot)
	if s.Forfeit {
		t.Fatalf("the match ended as a forfeit: %+v", fr.Seats)
	}
	winner, loser := fr.Roster[0].Name, fr.Roster[1].Name
	if s.Won(1) {
		winner, loser = loser, winner
	}
	// Both screens show both players' changes.
	for _, tm := range []*sshtest.Term{ann, bob} {
		tm.WaitFor(wait, "game over", winner+" (3) 1741? +241", loser)
		tm.WaitFor(wait, "1259? -241")
	}
	want := map[string]int{winner: 1741, loser: 1259}
	for _, n := range []*harness{n1, n2} {
		for name, rating := range want {
			var p profileOut
			r := sshtest.Run(t, n.Addr, "someone", sshtest.NewKey(t), "profile "+name+" --json")
			if err := json.Unmarshal([]byte(r.Stdout), &p); err != nil {
				t.Fatalf("profile %s on %s: %v: %+v", name, n.App.Node.Name(), err, r)
			}
			if len(p.Ratings) != 1 || p.Ratings[0].Games != 1 || p.Ratings[0].Rating != rating || len(p.Matches) != 1 {
				t.Fatalf("%s on %s after one ranked match: ratings %+v matches %+v", name, n.App.Node.Name(), p.Ratings, p.Matches)
			}
		}
	}
	t.Logf("%s beat %s %v in %s", winner, loser, s.Scores[:2], room.ID())
}
