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

// A match the server stops in the middle of is recorded as aborted and
// keeps its replay, cut where the server stopped: after the restart
// `replays` and `matches` list it as aborted, and `replay ID` plays it,
// says it was aborted, and ends where it was cut without a result.
func TestAbortedMatchKeepsItsReplay(t *testing.T) {
	dir := t.TempDir()
	rc := lobby.RoomsConfig{Room: game.RoomConfig{Countdown: time.Second}, Games: game.Catalog{pong.Kind{}}}
	h := startWith(t, dir, server.DefaultConfig(), nil, rc)
	aliceKey := sshtest.NewKey(t)
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", aliceKey)), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room")
	alice.Type("\r")
	alice.WaitFor(wait, "r1 · 1v1 · casual")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "join r1")
	bob.WaitFor(wait, "(you)")
	alice.Type("r")
	bob.Type("r")
	room, err := h.Rooms.Find("r1")
	if err != nil {
		t.Fatal(err)
	}
	// Three seconds of play (11 points take far longer), then a restart.
	waitUntil(t, "three seconds of play", 30*time.Second, func() bool {
		fr, _ := room.Latest()
		return fr.Phase == game.Playing && fr.Tick > 180
	})
	h.Stop()
	h = startWith(t, dir, server.DefaultConfig(), nil, rc)

	conn := sshtest.Dial(t, h.Addr, sshtest.Config("alice", aliceKey))
	var ms []struct {
		ID      uint64
		Aborted bool
		Replay  bool
	}
	r := sshtest.RunOn(t, conn, "replays --json")
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &ms) != nil || len(ms) != 1 || !ms[0].Aborted || !ms[0].Replay {
		t.Fatalf("replays --json after the restart: %+v", r)
	}
	id := fmt.Sprint(ms[0].ID)
	if r := sshtest.RunOn(t, conn, "replays"); r.Code != 0 || !strings.Contains(r.Stdout, id+"▶") || !strings.Contains(r.Stdout, "aborted: alice") {
		t.Fatalf("replays: %+v", r)
	}
	if r := sshtest.RunOn(t, conn, "matches"); r.Code != 0 || !strings.Contains(r.Stdout, id+"▶") || !strings.Contains(r.Stdout, " aborted ") {
		t.Fatalf("matches: %+v", r)
	}
	rep := sshtest.Open(t, conn, 80, 24, "replay "+id)
	if foot := lastRow(rep.WaitFor(wait, "space pause")); !strings.Contains(foot, "aborted") || !strings.Contains(foot, "00:") {
		t.Fatalf("the aborted replay's footer: %q", foot)
	}
	rep.Type("+++") // 8×
	scr := rep.WaitFor(30*time.Second, "aborted here")
	if strings.Contains(scr, "diverged") || strings.Contains(scr, "game over") {
		t.Fatalf("the aborted replay's end:\n%s", scr)
	}
}
