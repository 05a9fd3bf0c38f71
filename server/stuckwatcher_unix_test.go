//go:build unix

package server_test

import (
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/app"
	"github.com/termarena/termarena/sshtest"
)

// smallSendBuffers is a listener whose connections have the smallest send
// buffers the kernel gives (about 4.5 KB).
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(1) // the kernel's least
	}
	return c, err
}

// stallingLink is a TCP proxy in front of the server whose way back
// (server → client) can be stalled: it then reads nothing more from the
// server, as the network of a client whose terminal stopped reading, and
// with its small receive buffer the server's writes to that client soon
// block.
type stallingLink struct {
	ln      net.Listener
	stalled chan struct{}
	once    sync.Once
	mu      sync.Mutex
	conns   []net.Conn
}

func newStallingLink(t *testing.T, upstream string) *stallingLink {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &stallingLink{ln: ln, stalled: make(chan struct{})}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// A small receive buffer from the start: the window the
			// server may fill is set at the handshake.
			d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
				return rc.Control(func(fd uintptr) {
					_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4<<10)
				})
			}}
			up, err := d.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			l.mu.Lock()
			l.conns = append(l.conns, c, up)
			l.mu.Unlock()
			go func() { _, _ = io.Copy(up, c) }()
			go func() {
				buf := make([]byte, 1<<10)
				for {
					select {
					case <-l.stalled:
						return // and read no more: the socket stays open
					default:
					}
					n, err := up.Read(buf)
					if n > 0 {
						if _, err := c.Write(buf[:n]); err != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(l.close)
	return l
}

func (l *stallingLink) Addr() string { return l.ln.Addr().String() }

// stall stops the way back.
func (l *stallingLink) stall() { l.once.Do(func() { close(l.stalled) }) }

// close cuts every connection through the link.
func (l *stallingLink) close() {
	l.stall()
	l.ln.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.Close()
	}
}

// blockedWatcherWrites is how many goroutines are inside a watcher's frame
// write and waiting (on the network, or on the connection's lock that a
// write blocked on the network holds), not running.
func blockedWatcherWrites() int {
	buf := make([]byte, 8<<20)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if !strings.Contains(g, "tui.(*watchSeat).deliver") {
			continue
		}
		// "goroutine 7 [IO wait, 1 minutes]:"
		state, _, _ := strings.Cut(g[strings.IndexByte(g, '[')+1:], "]")
		state, _, _ = strings.Cut(state, ",")
		switch state {
		case "running", "runnable", "syscall", "preempted":
		default:
			n++
		}
	}
	return n
}

// A watcher whose client stops reading (its frame writes block on the
// network) does not stop the other watchers of the same painter getting
// frames: every one of them goes on receiving and showing the painter's
// picture. Once the stuck one and the others have gone, no goroutine
// that wrote their frames is left.
func TestAWatcherThatStopsReadingStopsNoOtherWatcher(t *testing.T) {
	// The smallest send buffers, so that a client that stops reading
	// blocks the server's writes within seconds (a watcher's half KB a
	// second takes minutes to fill loopback's autotuned ones), and a
	// client timeout long enough that the stuck client is not dropped
	// before the others have been watched beside it.
	h, _ := startCountingWatchers(t, longMatch, func(ac *app.Config, ln *net.Listener) {
		ac.Server.ClientTimeout = 40 * time.Second
		*ln = smallSendBuffers{*ln}
	})
	r := casualMatch(t, h)
	base := h.goroutineBaseline()
	var clients []*gossh.Client
	watch := func(addr, name string) *sshtest.Term {
		c := sshtest.Dial(t, addr, sshtest.Config(name, sshtest.NewKey(t)))
		clients = append(clients, c)
		tm := sshtest.Open(t, c, 80, 24, "spectate "+r.ID())
		tm.WaitFor(wait, "ann", "ben", "q back")
		return tm
	}
	link := newStallingLink(t, h.Addr)
	stuck := watch(link.Addr(), "sid")
	quick := []*sshtest.Term{watch(h.Addr, "carol"), watch(h.Addr, "dave"), watch(h.Addr, "erin")}
	waitUntil(t, "four watchers on one painter", wait, func() bool { return sharedWith(h, r.ID(), 80, 24) == 4 })

	link.stall()
	start := time.Now()
	waitUntil(t, "the stuck watcher's writes to block", 6*wait, func() bool { return blockedWatcherWrites() > 0 })
	t.Logf("the stuck watcher's frame write blocked %v after its client stopped reading", time.Since(start).Round(10*time.Millisecond))

	// For two seconds, each half second in which the painter painted
	// something new: every quick watcher got more of the match, while
	// the stuck one's write stays blocked.
	painted := func() uint64 {
		for _, p := range h.Srv.WatchPainters() {
			if p.Room == r.ID() && p.Width == 80 && p.Height == 24 {
				return p.Frames
			}
		}
		t.Fatalf("no painter: %v", h.Srv.WatchPainters())
		return 0
	}
	windows := 0
	for range 4 {
		var before []int
		for _, q := range quick {
			before = append(before, len(q.Raw()))
		}
		f0 := painted()
		time.Sleep(500 * time.Millisecond)
		if painted() == f0 {
			continue // the ball waits for a serve: nothing new to show
		}
		windows++
		for i, q := range quick {
			if n := len(q.Raw()); n == before[i] {
				t.Fatalf("watcher %d got nothing for 500 ms while the painter painted %d frames and another watcher's write is blocked (%d blocked)",
					i, painted()-f0, blockedWatcherWrites())
			}
		}
	}
	if windows == 0 {
		t.Fatal("the painter painted nothing for two seconds: the test measured nothing")
	}
	if blockedWatcherWrites() == 0 {
		t.Fatal("the stuck watcher's write is no longer blocked: the test measured nothing")
	}
	sameScreens(t, "two quick watchers beside a stuck one", quick[0], quick[1])
	sameScreens(t, "the first and third quick watchers", quick[0], quick[2])
	_ = stuck

	// Everyone leaves: the stuck write ends with its connection.
	link.close()
	for _, c := range clients {
		c.Close()
	}
	deadline := time.Now().Add(wait)
	for {
		buf := make([]byte, 8<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		// The room's spectator feed started with its first watcher
		// and lives as long as the room.
		n := runtime.NumGoroutine() - strings.Count(stacks, "created by github.com/termarena/termarena/lobby.(*Room).Watch")
		if n <= base && !strings.Contains(stacks, "tui.(*watchWriters).work") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines %d vs baseline %d after the watchers left\n%s", n, base, stacks)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
