package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// firstRow is the screen's header line.
func firstRow(scr string) string {
	row, _, _ := strings.Cut(scr, "\n")
	return row
}

// lastRow is the screen's footer line.
func lastRow(scr string) string {
	rows := strings.Split(strings.TrimRight(scr, "\n"), "\n")
	return rows[len(rows)-1]
}

// shownRating is how a player's rating in mode reads on screen ("1520?").
func shownRating(t *testing.T, h *harness, name string) string {
	t.Helper()
	r := sshtest.Run(t, h.Addr, "someone", sshtest.NewKey(t), "profile "+name+" --json")
	var p profileOut
	if err := json.Unmarshal([]byte(r.Stdout), &p); err != nil || len(p.Ratings) != 1 {
		t.Fatalf("profile %s: %v %+v", name, err, r)
	}
	s := fmt.Sprint(p.Ratings[0].Rating)
	if p.Ratings[0].Provisional {
		s += "?"
	}
	return s
}

// A ranked match as its players, a watcher and a replay viewer see it at
// 80×24: who plays whom before the countdown, ratings in every header,
// and no viewer ever offered a player's keys.
func TestRankedScreensForPlayersWatchersAndReplays(t *testing.T) {
	rc := lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: 2 * time.Second},
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin = 1
			return c
		}}},
	}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, rc)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", sshtest.NewKey(t))), 80, 24, "play pong-1v1")

	// Match found: the countdown says who plays whom, with ratings, and
	// the players' header carries the ratings as a watcher's does.
	ann.WaitFor(wait, "ann 1500? vs ben 1500?")
	scr := ann.WaitFor(wait, "▸ann 1500?")
	if !strings.Contains(firstRow(scr), "ben 1500?") {
		t.Fatalf("the player's header lacks the opponent's rating:\n%s", scr)
	}
	// A watcher arriving now waits for the 2 s delay to fill, and is not
	// told to get ready.
	carol := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("carol", sshtest.NewKey(t))), 80, 24, "spectate r1")
	scr = carol.WaitFor(wait, "waiting for the match to start")
	if strings.Contains(scr, "r ready") {
		t.Fatalf("the watcher sees a player's prompt:\n%s", scr)
	}
	for _, tm := range []*sshtest.Term{ann, ben} {
		tm.WaitFor(30*time.Second, "game over", "+241")
	}
	// The results: a watcher's keys, never the rematch or the queue.
	scr = carol.WaitFor(wait, "game over", "match over · n next room · q back")
	if strings.Contains(scr, "rematch") || strings.Contains(scr, "back to queue") {
		t.Fatalf("the watcher sees the players' keys:\n%s", scr)
	}
	if foot := lastRow(scr); !strings.Contains(foot, "q back") {
		t.Fatalf("the watch footer lost its q at 80 columns: %q", foot)
	}

	// A rematch: the watcher's header shows the ratings it produced.
	ann.Type("r")
	ben.Type("r")
	waitUntil(t, "the rematch to be over", 30*time.Second, func() bool {
		scr := ann.Screen()
		return strings.Contains(scr, "game over") && !strings.Contains(scr, "+241") && !strings.Contains(scr, "saving")
	})
	annNow, benNow := shownRating(t, h, "ann"), shownRating(t, h, "ben")
	waitUntil(t, "the watcher's header to show the rematch's ratings", 30*time.Second, func() bool {
		head := firstRow(carol.Screen())
		return strings.Contains(head, "ann "+annNow) && strings.Contains(head, "ben "+benNow)
	})

	// The first match's replay shows the ratings the players came in
	// with, ends with its rating changes and a replay viewer's keys; both
	// players were new, so every rating is provisional ("?"), as it was
	// live.
	var ms []struct{ ID uint64 }
	waitUntil(t, "both matches to be stored", wait, func() bool {
		r := sshtest.Run(t, h.Addr, "x", sshtest.NewKey(t), "replays ann --json")
		return json.Unmarshal([]byte(r.Stdout), &ms) == nil && len(ms) == 2
	})
	dave := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("dave", sshtest.NewKey(t))), 80, 24, fmt.Sprintf("replay %d", ms[1].ID))
	scr = dave.WaitFor(wait, "space pause")
	if foot := lastRow(scr); !strings.Contains(foot, "q back") || !strings.Contains(foot, "00:") {
		t.Fatalf("the replay footer at 80 columns: %q", foot)
	}
	if head := firstRow(scr); !strings.Contains(head, "ann 1500?") || !strings.Contains(head, "ben 1500?") {
		t.Fatalf("the replay's header lacks the ratings the players came in with: %q", head)
	}
	dave.Type("+++")
	scr = dave.WaitFor(60*time.Second, "game over", "replay over", "1741? +241", "1259? -241")
	if strings.Contains(scr, "rematch") || strings.Contains(scr, "back to queue") {
		t.Fatalf("the replay viewer sees the players' keys:\n%s", scr)
	}
	if foot := lastRow(scr); !strings.Contains(foot, "q back") {
		t.Fatalf("the ended replay's footer: %q", foot)
	}
	// q does what the footer says: back to the lobby, not out.
	dave.Type("q")
	dave.WaitFor(wait, "Welcome, dave")
}
