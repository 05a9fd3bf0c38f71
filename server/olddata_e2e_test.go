package server_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// testdata/termarena-973820c.db was written by the build at commit 973820c
// (the first wave's last), played over real OpenSSH: a ranked 1v1 that bob
// walked out of (alice 1520?, bob 1480?), a casual free-for-all dave left,
// and a second one the server's shutdown interrupted. A player's data must
// survive every upgrade: this test reads it with today's code the way
// players see it, and plays the recorded match back, which re-simulates
// it and checks every recorded state hash against today's rules.
func TestDataWrittenByAnOlderBuildIsRead(t *testing.T) {
	dir := t.TempDir()
	old, err := os.ReadFile(filepath.Join("testdata", "termarena-973820c.db"))
	if err != nil {
		t.Fatal(err)
	}
	// The server opens the file for writing (and migrates it): work on a
	// copy, never on the test data.
	if err := os.WriteFile(filepath.Join(dir, "termarena.db"), old, 0o600); err != nil {
		t.Fatal(err)
	}
	h := start(t, dir, server.DefaultConfig(), nil)
	key := sshtest.NewKey(t)

	var board struct {
		Players []struct {
			Name   string
			Rating int
			Games  int
		}
	}
	run := func(cmd string, into any) {
		t.Helper()
		r := sshtest.Run(t, h.Addr, "eve", key, cmd)
		if r.Code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd, r.Code, r.Stderr)
		}
		if err := json.Unmarshal([]byte(r.Stdout), into); err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, r.Stdout)
		}
	}
	// Their Elo ratings are carried over to Glicko-2 (store migration 5):
	// the rating kept, one game's deviation (285) grown since, so both
	// are provisional and off the leaderboard, which lists established
	// players only.
	run("leaderboard --mode pong-1v1 --json", &board)
	if len(board.Players) != 0 {
		t.Fatalf("leaderboard from the old file: %+v; want nobody established", board.Players)
	}
	for name, want := range map[string]int{"alice": 1520, "bob": 1480} {
		var p struct {
			Ratings []struct {
				Rating, Deviation, Games int
				Display                  string
			}
		}
		run("profile "+name+" --json", &p)
		if len(p.Ratings) != 1 || p.Ratings[0].Rating != want || p.Ratings[0].Games != 1 ||
			p.Ratings[0].Deviation < 285 || p.Ratings[0].Deviation > 500 || p.Ratings[0].Display != fmt.Sprint(want, "?") {
			t.Fatalf("%s's rating from the old file: %+v; want %d? ± 285 or more", name, p.Ratings, want)
		}
	}

	type player struct {
		Name         string
		Place, Score int
		RatingBefore float64 `json:"rating_before"`
		RatingAfter  float64 `json:"rating_after"`
		Left         bool
	}
	type match struct {
		ID      int
		Mode    string
		Ranked  bool
		Aborted bool
		Players []player
		Replay  bool
	}
	var alice []match
	run("matches alice --json", &alice)
	if len(alice) != 1 {
		t.Fatalf("alice's matches: %+v", alice)
	}
	m := alice[0]
	if m.ID != 1 || m.Mode != "pong-1v1" || !m.Ranked || m.Aborted || !m.Replay || len(m.Players) != 2 ||
		m.Players[0] != (player{Name: "alice", Place: 1, Score: 2, RatingBefore: 1500, RatingAfter: 1520}) ||
		m.Players[1] != (player{Name: "bob", Place: 2, Score: 3, RatingBefore: 1500, RatingAfter: 1480, Left: true}) {
		t.Fatalf("the ranked match from the old file: %+v", m)
	}
	var carol []match
	run("matches carol --json", &carol)
	if len(carol) != 2 || !carol[0].Aborted || carol[0].Mode != "casual-ffa" || carol[1].Aborted || !carol[1].Players[1].Left {
		t.Fatalf("carol's matches from the old file: %+v", carol)
	}

	// A newcomer with no matches of their own sees what the server has to
	// replay, newest first; the match the restart cut short has none.
	var recent []match
	run("replays --json", &recent)
	if len(recent) != 2 || recent[0].ID != 2 || recent[1].ID != 1 {
		t.Fatalf("replays with no name, for a newcomer: %+v", recent)
	}

	// The ranked match plays back to its end: no "replay diverged".
	tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("eve", key)), 80, 24, "replay 1")
	tm.WaitFor(10*time.Second, "alice", "bob")
	tm.Type("+++") // 8×: the 11 s match in under 2 s
	scr := tm.WaitFor(60*time.Second, "replay over")
	if strings.Contains(scr, "diverged") || !strings.Contains(scr, "1. alice") {
		t.Fatalf("playing back the old replay:\n%s", scr)
	}
}
