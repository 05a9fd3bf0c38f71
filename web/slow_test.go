package web_test

import (
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/termarena/termarena/game"
)

// countedConn is a server-side connection with small kernel buffers that
// counts its writes begun and ended: a write begun and not ended is one
// the client is not taking.
type countedConn struct {
	net.Conn
	begun, ended atomic.Uint64
}

func (c *countedConn) Write(p []byte) (int, error) {
	c.begun.Add(1)
	defer c.ended.Add(1)
	return c.Conn.Write(p)
}

// countingListener keeps each accepted connection by its client's address.
type countingListener struct {
	net.Listener
	mu    sync.Mutex
	conns map[string]*countedConn
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(4 << 10) // fill sooner than the default few hundred KiB
	}
	cc := &countedConn{Conn: c}
	l.mu.Lock()
	l.conns[c.RemoteAddr().String()] = cc
	l.mu.Unlock()
	return cc, nil
}

func (l *countingListener) conn(remote string) *countedConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conns[remote]
}

// A browser that stops reading (its socket buffers full, the server's
// write to it stuck) never slows the room or another viewer: while its
// write stays stuck, the viewer that reads keeps getting new frames and
// the room keeps ticking.
func TestSlowViewerSlowsNoOne(t *testing.T) {
	lw := newLiveWorld(t, 0)
	srv := httptest.NewUnstartedServer(lw.web)
	ln := &countingListener{Listener: srv.Listener, conns: map[string]*countedConn{}}
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	lw.srv = srv

	r, err := lw.rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Both sit before either is ready: one ready alone would start a
	// lone warm-up first.
	for i, name := range []string{"alice", "bob"} {
		if _, err := r.Join(ctx, game.Player{ID: game.PlayerID(name), Name: name}, i); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"alice", "bob"} {
		if err := r.SetReady(ctx, game.PlayerID(name), true); err != nil {
			t.Fatal(err)
		}
	}

	// The slow browser asks for the stream, then never reads a byte.
	slow, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	slow.(*net.TCPConn).SetReadBuffer(4 << 10)
	if _, err := slow.Write([]byte("GET /" + "r/" + r.ID() + "/live HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}

	frames, _, cancel := lw.stream(r.ID())
	defer cancel()
	got := 0
	take := func(n int, what string) {
		t.Helper()
		for range n {
			next(t, frames, what, func(f frame) bool { return strings.Contains(f.text(), "▀▀▀▀") })
			got++
		}
	}
	take(1, "the court")

	// Wait until the server's write to the slow browser is stuck: the
	// same write still under way while the reader got ten more frames.
	var sc *countedConn
	for tries := 0; ; tries++ {
		if tries == 200 {
			t.Fatalf("the slow browser's stream never filled its buffers in %d frames", got)
		}
		if sc == nil {
			sc = ln.conn(slow.LocalAddr().String())
		}
		var begun uint64
		if sc != nil {
			begun = sc.begun.Load()
		}
		take(10, "frames while the slow browser fills up")
		if sc != nil && begun > 0 && sc.begun.Load() == begun && sc.ended.Load() < begun {
			break
		}
	}

	// While it is stuck, the other viewer and the room go on.
	stuck := sc.begun.Load()
	ticks := r.Stats().Ticks
	before := got
	take(30, "frames while the slow browser is stuck")
	if n := r.Stats().Ticks - ticks; n < 30 {
		t.Errorf("the room ticked %d times while the reader got 30 frames", n)
	}
	t.Logf("the reader got %d frames in all, %d while the slow browser was stuck (%d writes begun to it)", got, got-before, stuck)
}
