package server_test

import (
	"encoding/json"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

func TestAdminStatsSeesPlay(t *testing.T) {
	adminKey := sshtest.NewKey(t)
	h := start(t, t.TempDir(), server.DefaultConfig(), map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true})
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")
	alice.Type("c")
	alice.WaitFor(wait, "New room")
	alice.Type("\r")
	alice.WaitFor(wait, "(you)")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "join r1")
	bob.WaitFor(wait, "(you)")
	alice.Type("r")
	bob.Type("r")
	room, err := h.Rooms.Find("r1")
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "play", wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Playing })
	for range 5 {
		alice.Type("w")
		time.Sleep(40 * time.Millisecond)
	}
	var s struct {
		Sessions         int     `json:"sessions"`
		PlayersInMatches int     `json:"players_in_matches"`
		Rooms            int     `json:"rooms"`
		TickRate         float64 `json:"tick_rate"`
		FramesWritten    uint64  `json:"frames_written"`
		MeanFrameBytes   float64 `json:"mean_frame_bytes"`
		Logins           uint64  `json:"logins"`
		RSS              uint64  `json:"rss_bytes"`
	}
	// One connection for all the polling: closed ones count against the
	// per-IP cap until the server sees them go.
	adminConn := sshtest.Dial(t, h.Addr, sshtest.Config("root", adminKey))
	waitUntil(t, "stats to show the match", wait, func() bool {
		r := sshtest.RunOn(t, adminConn, "admin stats --json")
		return r.Code == 0 && json.Unmarshal([]byte(r.Stdout), &s) == nil && s.FramesWritten > 30 && s.TickRate > 0
	})
	if s.Sessions != 2 || s.PlayersInMatches != 2 || s.Rooms != 1 || s.MeanFrameBytes <= 0 || s.Logins < 3 || s.RSS == 0 {
		t.Fatalf("stats %+v", s)
	}
}
