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

type profileOut struct {
	Name    string
	Ratings []struct {
		Mode        string
		Rating      int
		Exact       float64 `json:"rating_exact"`
		Provisional bool
		Games, Wins int
		Losses      int
	}
	Matches []struct {
		ID      uint64
		Mode    string
		Ranked  bool
		Players []struct {
			Name         string
			Place        int
			RatingBefore int `json:"rating_before"`
			RatingAfter  int `json:"rating_after"`
		}
	}
}

func TestRankedMatchUpdatesRatingsAndProfiles(t *testing.T) {
	rc := lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: time.Second},
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin, c.Lives = 1, 1
			return c
		}}},
	}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match", "rating range  1400 – 1600")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", sshtest.NewKey(t))), 80, 24, "play 1v1")
	// Matched at once (a full table within tolerance), seated, countdown,
	// play; nobody defends, one point ends it.
	for _, tm := range []*sshtest.Term{ann, ben} {
		tm.WaitFor(wait, "ranked")
		scr := tm.WaitFor(30*time.Second, "game over", "n back to queue")
		_ = scr
	}
	// Rating changes reach both results screens: one +, one −. Two
	// newcomers (1500 ± 500) move by Glicko-2's 241.5 after one game.
	for _, tm := range []*sshtest.Term{ann, ben} {
		scr := tm.WaitFor(wait, "+241", "-241")
		if !strings.Contains(scr, "1741?") || !strings.Contains(scr, "1259?") {
			t.Fatalf("results screen lacks the new provisional ratings:\n%s", scr)
		}
	}
	for _, name := range []string{"ann", "ben"} {
		r := sshtest.Run(t, h.Addr, "someone", sshtest.NewKey(t), "profile "+name+" --json")
		if r.Code != 0 {
			t.Fatalf("profile %s: %+v", name, r)
		}
		var p profileOut
		if err := json.Unmarshal([]byte(r.Stdout), &p); err != nil {
			t.Fatalf("%v: %s", err, r.Stdout)
		}
		if len(p.Ratings) != 1 || p.Ratings[0].Mode != "pong-1v1" || p.Ratings[0].Games != 1 || !p.Ratings[0].Provisional {
			t.Fatalf("%s ratings: %+v", name, p.Ratings)
		}
		if p.Ratings[0].Rating != 1741 && p.Ratings[0].Rating != 1259 {
			t.Fatalf("%s rating %d, want 1741 or 1259 (Glicko-2, two newcomers)", name, p.Ratings[0].Rating)
		}
		if len(p.Matches) != 1 || !p.Matches[0].Ranked || len(p.Matches[0].Players) != 2 {
			t.Fatalf("%s matches: %+v", name, p.Matches)
		}
	}
	// After one game both are provisional (± 397), so the leaderboard,
	// which lists established players, says so instead of ranking them.
	r := sshtest.Run(t, h.Addr, "someone", sshtest.NewKey(t), "leaderboard --mode pong-1v1")
	if r.Code != 0 || !strings.Contains(r.Stdout, "no established pong-1v1 ratings yet") {
		t.Fatalf("leaderboard: %+v", r)
	}
	// Bad usage and unknown players.
	for _, tc := range []struct {
		cmd  string
		code int
		want string
	}{
		{"leaderboard --mode chess", 2, "unknown mode"},
		{"leaderboard --limit lots", 2, "--limit"},
		{"leaderboard --frobnicate", 2, "unknown flag"},
		{"profile nobody-here", 1, "no player named"},
		{"matches nobody-here", 1, "no player named"},
		{"matches ann --limit 0", 2, "--limit"},
	} {
		r := sshtest.Run(t, h.Addr, "someone", sshtest.NewKey(t), tc.cmd)
		if r.Code != tc.code || !strings.Contains(r.Stderr, tc.want) {
			t.Errorf("%s: exit %d stderr %q, want %d and %q", tc.cmd, r.Code, r.Stderr, tc.code, tc.want)
		}
	}
	guest := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", nil)), 80, 24, "play")
	if code, err := guest.Wait(wait); err != nil || code != 77 || !strings.Contains(string(guest.Raw()), "needs an SSH key") {
		t.Errorf("guest play: code %d err %v output %q", code, err, guest.Raw())
	}
}
