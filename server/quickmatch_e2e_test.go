package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/sshtest"
	"github.com/termarena/termarena/store"
)

// Ann queues for a quick casual 1v1 from a shell, waits alone (who says
// so, the queue screen counts her), and ben's quick match from the lobby
// (a, then the mode's number) pairs them into one public casual room; its
// match is recorded unrated.
func TestQuickMatchPairsTwoIntoACasualRoom(t *testing.T) {
	rc := lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: time.Second},
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin = 1
			return c
		}}},
	}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "play 1v1 --casual")
	ann.WaitFor(wait, "Looking for a casual pong-1v1 match", "in the queue  1 · a match needs 2 players")

	r := sshtest.Run(t, h.Addr, "cat", sshtest.NewKey(t), "who")
	// ann is counted where she waits, as a ranked queue's players are.
	if r.Code != 0 || !strings.Contains(r.Stdout, "queueing for pong-1v1 (casual)") || !strings.Contains(r.Stdout, "quick-match queues (waiting/needed): pong-1v1 1/2") {
		t.Fatalf("who while ann waits: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = sshtest.Run(t, h.Addr, "cat", sshtest.NewKey(t), "who --json")
	var w service.Who
	if err := json.Unmarshal([]byte(r.Stdout), &w); err != nil || len(w.Players) != 1 || !w.Players[0].Casual || w.Players[0].Mode != "pong-1v1" ||
		len(w.Quick) == 0 || w.Quick[0] != (service.QueueCount{Mode: "pong-1v1", Waiting: 1, Needs: 2}) {
		t.Fatalf("who --json while ann waits: %v %s", err, r.Stdout)
	}

	ben := lobbyAs(t, h, "ben")
	ben.Type("a")
	ben.WaitFor(wait, "Play anyone, unrated", "1 pong-1v1 (1/2)")
	ben.Type("1")
	room := roomOf(t, h, "ann", "ben")
	if room.Ranked != "" || room.Private || room.Practice != 0 {
		t.Fatalf("quick match room %s: ranked %q private %v practice %d; want a public casual room", room.ID(), room.Ranked, room.Private, room.Practice)
	}
	ann.WaitFor(wait, room.ID()+" · 1v1 · casual")
	ben.WaitFor(wait, room.ID()+" · 1v1 · casual")
	if fr, _ := room.Latest(); fr.Seats[0].Player.Name != "ann" || fr.Seats[1].Player.Name != "ben" {
		t.Fatalf("seats %+v", fr.Seats)
	}

	// They play it out: recorded as a casual match, no rating moved.
	ann.Type("r")
	ben.Type("r")
	var ms []store.MatchRecord
	waitUntil(t, "the match to be recorded", 60*time.Second, func() bool {
		var err error
		ms, err = h.Store.RecentMatches(context.Background(), 10, nil)
		return err == nil && len(ms) == 1
	})
	if m := ms[0]; m.Mode != "casual-1v1" || m.Ranked || len(m.Players) != 2 {
		t.Fatalf("recorded %+v; want an unrated casual-1v1", m)
	}
	for _, p := range ms[0].Players {
		if p.RatingBefore != p.RatingAfter {
			t.Errorf("%s's rating moved in a quick match: %+v", p.Name, p)
		}
		if rs, err := h.Store.Ratings(context.Background(), p.Fingerprint); err != nil || len(rs) != 0 {
			t.Errorf("%s has ratings after a quick match: %+v, %v", p.Name, rs, err)
		}
	}
}

// Leaving the quick-match queue screen (esc) leaves the queue.
func TestQuickMatchQueueLeft(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "play tron --casual")
	ann.WaitFor(wait, "Looking for a casual tron match")
	ann.Type("\x1b")
	ann.WaitFor(wait, "Welcome, ann!")
	for _, q := range h.Svc.Quick.Queued() {
		if q.Waiting != 0 {
			t.Fatalf("%s has %d waiting after ann left it", q.Mode, q.Waiting)
		}
	}
	bad := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "play chess --casual")
	if st, err := bad.Wait(wait); err != nil || st != server.ExitUsage || !strings.Contains(bad.Screen(), `no casual mode "chess"`) {
		t.Fatalf("play chess --casual: exit %d, %v\n%s", st, err, bad.Screen())
	}
}
