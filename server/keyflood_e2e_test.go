package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/chat"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// budgetRefill is how long a session's key budget takes to refill after a
// flood spent it (a second's worth, at its rate), with a margin.
const budgetRefill = time.Second + 200*time.Millisecond

// Bug: a 30 KB write into the lobby was 30,000 keys, each decoded, updated
// and drawn (10.7 CPU-seconds for one guest's write), and each letter a
// hotkey: text pasted into the lobby quit it at its first q. Now text
// that comes faster than anyone types is a paste, which the menu ignores;
// the session answers keys again at once, and a paste into the chat line
// lands whole up to chat's limit.
func TestPasteIntoTheLobbyIsNotThirtyThousandKeys(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	bob := chat.Member{ID: "SHA256:bob", Name: "bob"}
	sub := h.Svc.Chat.Join(bob, chat.LobbyChannel)
	defer sub.Close()
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")

	// Text full of hotkeys (q quits, c creates a room, ? opens help).
	text := strings.Repeat("x", 100) + strings.Repeat("quick, come and play? ", 1400) // 30.9 KB
	alice.Type(text)
	time.Sleep(budgetRefill)
	alice.Type("w") // the watch chooser: the session still answers keys
	alice.WaitFor(wait, "Watch a live room")
	if got := len(h.Rooms.All()); got != 0 {
		t.Fatalf("the paste created %d rooms", got)
	}
	alice.Type("q")
	alice.WaitFor(wait, "Welcome, alice!")

	// Into the chat line: the paste lands whole up to chat's limit, and
	// Enter, pressed after it, sends it.
	alice.Type("t")
	alice.WaitFor(wait, "lobby> ")
	alice.Type(text[100:])
	time.Sleep(budgetRefill)
	alice.Type("\r")
	want := text[100 : 100+chat.MaxText]
	deadline := time.Now().Add(wait)
	for {
		for _, m := range sub.Drain() {
			if m.From != "alice" {
				continue
			}
			if m.Text != strings.TrimSpace(want) {
				t.Fatalf("alice's pasted line came as %q (%d characters), want the first %d of the paste", m.Text, len(m.Text), chat.MaxText)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pasted line was never sent:\n%s", alice.Screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Bug: a player flooding keys got a frame per key (20,000 keys a second
// were answered with 5,000–11,600 frames a second). Without a key budget,
// so that every key reaches the game screen, frames still come at the
// session's rate: counted, against how long the flood took.
func TestKeyFloodGetsFramesAtTheSessionsRate(t *testing.T) {
	cfg := server.DefaultConfig()
	cfg.MaxKeysPerSec = 0
	h := start(t, t.TempDir(), cfg, nil)
	r, err := h.Rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "join "+r.ID())
	ann.WaitFor(wait, "ann", "(you)")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", sshtest.NewKey(t))), 80, 24, "join "+r.ID())
	ben.WaitFor(wait, "ben", "(you)")
	ann.Type("r")
	ben.Type("r")
	waitUntil(t, "the match to start", 2*wait, func() bool { fr, _ := r.Latest(); return fr != nil && fr.Phase == game.Playing })
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	before := h.Metrics.Snapshot().FramesWritten
	for range 10 {
		ann.Type(strings.Repeat("ws", 1000)) // 20,000 keys in all
	}
	// The flood is read and drawn by now: a key typed after it shows.
	ann.Type("?")
	time.Sleep(500 * time.Millisecond)
	frames := h.Metrics.Snapshot().FramesWritten - before
	elapsed := time.Since(start)
	// Both players' frames are counted: two sessions at the rate.
	if limit := 2 * (uint64(float64(cfg.FPS)*elapsed.Seconds()) + 3); frames > limit {
		t.Fatalf("20,000 keys in %v were answered with %d frames (both players'); at %d fps at most %d", elapsed.Round(time.Millisecond), frames, cfg.FPS, limit)
	}
}
