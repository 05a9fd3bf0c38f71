package server

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"
)

// stuckWriter blocks every write until released, as a channel does when
// the client has stopped reading and the window is spent.
type stuckWriter struct{ release chan struct{} }

func (s stuckWriter) Write(p []byte) (int, error) { <-s.release; return len(p), nil }

// A client that still answers (its bytes keep arriving) but whose screen
// output has been blocked for the client timeout is dropped; the same
// output moving again is not.
func TestBlockedOutputDropsTheClient(t *testing.T) {
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := DefaultConfig()
	cfg.ClientTimeout = time.Second
	w := newConnWatch(ctx, c1, cfg, slog.New(slog.DiscardHandler))
	stuck := stuckWriter{release: make(chan struct{})}
	lw := &lockedWriter{w: stuck}
	defer w.watchWriter(lw)()

	// Two client timeouts from now, with the client's latest answer then.
	later := func() time.Time {
		at := time.Now().Add(2 * cfg.ClientTimeout)
		w.lastRead.Store(at.UnixNano())
		return at
	}
	if why := w.verdict(later()); why != "" {
		t.Fatalf("nothing written yet, verdict %q", why)
	}
	wrote := make(chan struct{})
	go func() { _, _ = lw.Write([]byte("frame")); close(wrote) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(w.verdict(later()), "output blocked") {
		if time.Now().After(deadline) {
			t.Fatal("a write blocked past the client timeout was never reported")
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(stuck.release)
	<-wrote
	if why := w.verdict(later()); why != "" {
		t.Fatalf("after the write went through, verdict %q", why)
	}
}

// Silence drops a client only once the server has asked it something (the
// RTT probe starts with the first session): a logged-in connection with no
// session that sends nothing is SessionOpenTimeout's to close, with that
// reason, not the client timeout's.
func TestSilenceCountsOnlyOnceTheProbeAsks(t *testing.T) {
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := DefaultConfig()
	cfg.ClientTimeout, cfg.SessionOpenTimeout = time.Second, 3*time.Second
	w := newConnWatch(ctx, c1, cfg, slog.New(slog.DiscardHandler))
	start := time.Now()
	if why := w.verdict(start.Add(2 * time.Second)); why != "" {
		t.Fatalf("2 s of silence with no session and nothing asked: verdict %q", why)
	}
	if why := w.verdict(start.Add(4 * time.Second)); !strings.Contains(why, "no session open") {
		t.Fatalf("4 s with no session: verdict %q, want the session-open timeout's", why)
	}
	probed := make(chan struct{})
	if !w.sessionStarted(4, func() { close(probed) }) {
		t.Fatal("the first session was refused")
	}
	<-probed
	if why := w.verdict(time.Now().Add(2 * time.Second)); !strings.Contains(why, "no reply") {
		t.Fatalf("2 s of silence once the probe asks: verdict %q, want no reply", why)
	}
}
