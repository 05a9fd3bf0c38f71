package server_test

import (
	"testing"
	"time"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// queued is how many wait in the pong-1v1 queue.
func queued(h *harness) int {
	for _, q := range h.Svc.Matchmaker.Queued() {
		if q.Mode == "pong-1v1" {
			return q.Waiting
		}
	}
	return -1
}

// TestLoneRankedPlayerIsOfferedABotE2E: ann waits alone in the ranked
// 1v1 queue; once she has waited the offer's time (shortened here) the
// queue screen offers a bot at the level of her 1500 rating (3). While
// she ignores it she stays queued; b takes her out of the queue into a
// practice room against a level-3 bot.
func TestLoneRankedPlayerIsOfferedABotE2E(t *testing.T) {
	cfg := server.DefaultConfig()
	cfg.BotOfferAfter = 500 * time.Millisecond
	h := start(t, t.TempDir(), cfg, nil)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "play")
	ann.WaitFor(wait, "Looking for a pong-1v1 match", "in the queue  1")
	ann.WaitFor(wait, "Nobody else is queueing. b plays a level-3 bot now", "or keep waiting")
	// Ignored, the offer leaves her where she is.
	time.Sleep(300 * time.Millisecond)
	if n := queued(h); n != 1 {
		t.Fatalf("%d in the queue while ann ignores the offer, want 1", n)
	}
	ann.Type("b")
	ann.WaitFor(wait, "practice, bots level 3", "bot-L3", "(you)")
	if n := queued(h); n != 0 {
		t.Fatalf("%d in the queue after ann took the bot, want 0", n)
	}
	rooms, _ := h.Rooms.List()
	if len(rooms) != 1 || rooms[0].Practice != 3 || rooms[0].Ranked != "" {
		t.Fatalf("rooms %+v: want one practice room of level 3", rooms)
	}
}

// Before the wait is over, or with someone else queueing, there is no
// offer and b does nothing: the player stays queued.
func TestNoBotOfferBeforeTheWait(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil) // the 30 s default
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "play")
	ann.WaitFor(wait, "Looking for a pong-1v1 match", "in the queue  1")
	ann.Type("b")
	time.Sleep(300 * time.Millisecond)
	if n := queued(h); n != 1 {
		t.Fatalf("%d in the queue after b before any offer, want 1", n)
	}
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
}
