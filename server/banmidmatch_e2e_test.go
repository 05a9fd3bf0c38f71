package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
	gossh "golang.org/x/crypto/ssh"
)

// Carol is banned in the middle of a ranked match she plays from two
// terminals: she leaves it at once, as a leaver (the match is hers to
// lose), and ann is not left waiting out a grace behind "carol
// disconnected".
func TestBanInARankedMatchIsALeaveNotAGrace(t *testing.T) {
	rc := lobby.RoomsConfig{Room: game.RoomConfig{Countdown: 30 * time.Second, Grace: 30 * time.Second}}
	adminKey, carolKey := sshtest.NewKey(t), sshtest.NewKey(t)
	admins := map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), admins, rc)
	sshtest.Run(t, h.Addr, "root", adminKey, "whoami")
	carol := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("carol", carolKey)), 80, 24, "play pong-1v1")
	carol.WaitFor(wait, "Looking for a pong-1v1 match")
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "play pong-1v1")
	room := rankedCountdown(t, h, carol, ann)
	carol2 := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("carol", carolKey)), 80, 24, "")
	carol2.WaitFor(wait, "b go back to it")
	carol2.Type("b")
	carol2.WaitFor(wait, "▸carol")

	if r := sshtest.Run(t, h.Addr, "root", adminKey, "admin ban carol 1h cheating"); r.Code != 0 {
		t.Fatalf("admin ban: %+v", r)
	}
	for _, tm := range []*sshtest.Term{carol, carol2} {
		if code, err := tm.Wait(wait); err != nil || code != server.ExitDenied {
			t.Fatalf("carol's session after the ban: exit %d, %v", code, err)
		}
	}
	scr := ann.WaitFor(wait, "game over", "carol left")
	if strings.Contains(scr, "disconnected") {
		t.Fatalf("ann waits on a grace for a banned player:\n%s", scr)
	}
	fr, _ := room.Latest()
	if fr.Phase != game.Finished || fr.Result == nil || len(fr.Forfeited) < 2 {
		t.Fatalf("the match after carol's ban: %v result %+v forfeited %v", fr.Phase, fr.Result, fr.Forfeited)
	}
	waitUntil(t, "the match to be recorded", wait, func() bool {
		r := sshtest.Run(t, h.Addr, "x", sshtest.NewKey(t), "matches ann")
		return r.Code == 0 && strings.Contains(r.Stdout, "carol 0 (left)")
	})
}
