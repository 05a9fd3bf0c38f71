package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// `replays` without a name is the server's listing, nobody's side of it:
// it has no RESULT or RATING column, so a guest's result (guests have no
// key, and rows used to be matched by an empty key) shows in nobody's row.
// With a name the columns are that player's.
func TestReplaysListingShowsNoGuestsResult(t *testing.T) {
	rc := lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: time.Second},
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin = 1
			return c
		}}},
	}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room")
	alice.Type("\r")
	alice.WaitFor(wait, "r1 · 1v1 · casual")
	guest := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("g", nil)), 80, 24, "join r1")
	guest.WaitFor(wait, "(you)")
	alice.Type("r")
	guest.Type("r")
	// Nobody defends: the first miss ends it.
	for _, tm := range []*sshtest.Term{alice, guest} {
		tm.WaitFor(60*time.Second, "game over")
	}
	var ms []struct {
		ID      uint64
		Replay  bool
		Players []struct {
			Name  string
			Place int
		}
	}
	poll := sshtest.Dial(t, h.Addr, sshtest.Config("poller", sshtest.NewKey(t)))
	waitUntil(t, "the match and its replay to be stored", wait, func() bool {
		r := sshtest.RunOn(t, poll, "replays --json")
		return json.Unmarshal([]byte(r.Stdout), &ms) == nil && len(ms) == 1 && ms[0].Replay && len(ms[0].Players) == 2
	})
	results := map[string]string{} // name: the RESULT column a listing from their side shows
	for _, p := range ms[0].Players {
		results[p.Name] = "won"
		if p.Place != 1 {
			results[p.Name] = "2nd"
		}
	}
	if results["alice"] == results[ms[0].Players[1].Name] {
		t.Fatalf("players %+v: want a winner and a loser", ms[0].Players)
	}

	r := sshtest.RunOn(t, poll, "replays")
	lines := strings.Split(r.Stdout, "\n")
	if r.Code != 0 || len(lines) < 2 {
		t.Fatalf("replays: %+v", r)
	}
	if head := lines[0]; strings.Contains(head, "RESULT") || strings.Contains(head, "RATING") || !strings.Contains(head, "PLAYERS") {
		t.Fatalf("the server's listing has a column for somebody's result: %q", head)
	}
	if row := lines[1]; strings.Contains(row, " won ") || strings.Contains(row, " 2nd ") || !strings.Contains(row, "alice") {
		t.Fatalf("the server's listing shows a result: %q", row)
	}

	r = sshtest.RunOn(t, poll, "replays alice")
	lines = strings.Split(r.Stdout, "\n")
	if r.Code != 0 || len(lines) < 2 || !strings.Contains(lines[0], "RESULT") ||
		!strings.Contains(lines[1], " "+results["alice"]+" ") {
		t.Fatalf("replays alice: want alice's result %q in RESULT: %+v", results["alice"], r)
	}
}
