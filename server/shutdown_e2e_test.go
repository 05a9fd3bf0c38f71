package server_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// TestShutdownMidGameRestoresTheTerminal is a restart while a player is on
// the game screen: the player's terminal must be back on its normal screen
// with the cursor shown before the goodbye is printed, so the notice (and
// ssh's "Connection closed") is not written over the board.
func TestShutdownMidGameRestoresTheTerminal(t *testing.T) {
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, lobby.RoomsConfig{Room: game.RoomConfig{Countdown: time.Second, Grace: time.Second}})
	tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("hana", sshtest.NewKey(t))), 80, 24, "")
	tm.WaitFor(wait, "Welcome, hana!")
	tm.Type("c")
	tm.WaitFor(wait, "New room")
	tm.Type("\r")
	tm.WaitFor(wait, "r1 · 1v1 · casual", "hana", "(you)")
	other := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ivan", sshtest.NewKey(t))), 80, 24, "join r1")
	other.WaitFor(wait, "hana", "ivan", "(you)")
	tm.Type("r")
	other.Type("r")
	room, err := h.Rooms.Find("r1")
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the warm-up game to start", wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Playing })
	tm.WaitFor(wait, "▸hana 0")

	h.Stop()
	for _, p := range []*sshtest.Term{tm, other} {
		select {
		case <-p.Ended():
		case <-time.After(wait):
			t.Fatal("session still open after shutdown")
		}
		checkRestored(t, p)
		// Every session gets its exit status before the server closes
		// its connection: a client cut off first reports exit 255.
		if code, err := p.Wait(wait); err != nil {
			t.Errorf("exit status after shutdown: %d, %v", code, err)
		}
	}
}

// checkRestored checks what the player sees once the session has ended:
// the goodbye on the normal screen, nothing of the room or the board, and
// the alternate screen left and the cursor shown before the goodbye.
func checkRestored(t *testing.T, tm *sshtest.Term) {
	t.Helper()
	screen := tm.Screen()
	if !strings.Contains(screen, "The server is restarting") || strings.Contains(screen, "r1 · 1v1") || strings.ContainsAny(screen, "▀▄█") {
		t.Errorf("after the restart the terminal shows:\n%s", screen)
	}
	raw := tm.Raw()
	bye := bytes.LastIndex(raw, []byte("The server is restarting"))
	if bye < 0 {
		t.Fatalf("no goodbye in the output; last bytes %q", raw[max(0, len(raw)-400):])
	}
	before := raw[:bye]
	leave := bytes.LastIndex(before, []byte("\x1b[?1049l"))
	enter := bytes.LastIndex(before, []byte("\x1b[?1049h"))
	hide := bytes.LastIndex(before, []byte("\x1b[?25l"))
	show := bytes.LastIndex(before, []byte("\x1b[?25h"))
	if leave < 0 || leave < enter || show < hide {
		t.Errorf("the goodbye was printed before the terminal was restored (alt screen left at %d, entered at %d; cursor shown at %d, hidden at %d); bytes before it: %q",
			leave, enter, show, hide, before[max(0, len(before)-400):])
	}
	if after := raw[bye:]; bytes.Contains(after, []byte("\x1b[")) {
		t.Errorf("the screen was drawn on after the goodbye: %q", after)
	}
}
