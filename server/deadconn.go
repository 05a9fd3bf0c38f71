package server

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
)

// A network that dies silently (Wi-Fi gone, a phone in a tunnel, a link
// set down) sends no FIN and no RST: without a deadline of our own the
// server keeps the seat "connected" and holds the TCP connection for as
// long as the kernel's retransmissions last (minutes). connWatch is that
// deadline, one per connection:
//
//   - every byte the client sends proves it alive (liveConn records it;
//     bytes still unread in the socket, after a stall of the server's own,
//     count too),
//     and the RTT probe's keepalive every probeEvery makes a live client
//     send one, so silence for ClientTimeout means the client is gone;
//   - a session's output blocked that long (a client that answers
//     keepalives but reads nothing) is as good as gone for a game;
//   - a connection with no session open for SessionOpenTimeout holds a
//     slot of the per-IP cap for nothing.
//
// Any of these closes the connection; the SSH layer then closes its
// channels and each session ends by the path of a clean drop (a player's
// seat is kept for the room's grace period). The check runs on a timer,
// not a goroutine of its own, so a connection costs one goroutine more
// than the SSH layer's only while a session has started the probe.
type connWatch struct {
	timeout     time.Duration // silence or blocked output before the drop; 0 = never
	openTimeout time.Duration // no session open for this long; 0 = never
	every       time.Duration
	log         *slog.Logger
	conn        net.Conn
	ctx         context.Context

	rtt       rttProbe
	lastRead  atomic.Int64 // unix nanoseconds of the last byte from the client
	sessions  atomic.Int32
	noSession atomic.Int64 // unix nanoseconds since when no session is open
	probing   sync.Once
	// probed: the RTT probe has started asking the client for replies.
	// Silence counts only from then: before it the server asks nothing,
	// and a client owes it nothing (a connection without a session is
	// SessionOpenTimeout's).
	probed atomic.Bool

	mu      sync.Mutex
	writers map[*lockedWriter]struct{}
	timer   *time.Timer
}

// probeEvery is how often the RTT probe asks the client for a reply.
const probeEvery = 2 * time.Second

func newConnWatch(ctx context.Context, c net.Conn, cfg Config, log *slog.Logger) *connWatch {
	now := time.Now().UnixNano()
	w := &connWatch{timeout: cfg.ClientTimeout, openTimeout: cfg.SessionOpenTimeout, every: probeEvery,
		log: log, conn: c, ctx: ctx, writers: map[*lockedWriter]struct{}{}}
	// A short timeout (tests, or an operator who wants it) is checked
	// often enough to be kept within half of itself.
	for _, d := range []time.Duration{cfg.ClientTimeout, cfg.SessionOpenTimeout} {
		if d > 0 && d/2 < w.every {
			w.every = d / 2
		}
	}
	w.lastRead.Store(now)
	w.noSession.Store(now)
	if w.timeout > 0 || w.openTimeout > 0 {
		w.mu.Lock()
		w.timer = time.AfterFunc(w.every, w.check)
		w.mu.Unlock()
	}
	return w
}

// check runs on the timer: it closes the connection when the client is
// gone, and re-arms itself while the connection lives.
func (w *connWatch) check() {
	if w.ctx.Err() != nil {
		return
	}
	now := time.Now()
	if why := w.verdict(now); why != "" {
		w.log.Info("dropping connection", "remote", w.conn.RemoteAddr().String(), "reason", why)
		_ = w.conn.Close()
		return
	}
	// Wake at the silence deadline itself when it comes before the next
	// round: a client gone quiet is dropped at the timeout, not up to a
	// round after it.
	next := w.every
	if w.timeout > 0 && w.probed.Load() {
		if until := time.Unix(0, w.lastRead.Load()).Add(w.timeout).Sub(now); until < next {
			next = max(until, 10*time.Millisecond)
		}
	}
	w.mu.Lock()
	w.timer.Reset(next)
	w.mu.Unlock()
}

// verdict says why the connection should be dropped at now, or "".
func (w *connWatch) verdict(now time.Time) string {
	if w.timeout > 0 {
		if silent := now.Sub(time.Unix(0, w.lastRead.Load())); silent >= w.timeout && w.probed.Load() {
			if !unreadInput(w.conn) {
				return "no reply from the client for " + silent.Round(time.Second).String()
			}
			// The client did answer: its bytes wait in the socket,
			// unread because the server itself was stalled (an
			// overloaded or descheduled process runs this timer before
			// the connection's reader). Dropping it would drop every
			// player at once after a stall of the client timeout.
			w.lastRead.Store(now.UnixNano())
		}
		w.mu.Lock()
		var oldest int64
		for lw := range w.writers {
			if since := lw.blocked.Load(); since != 0 && (oldest == 0 || since < oldest) {
				oldest = since
			}
		}
		w.mu.Unlock()
		if blocked := now.Sub(time.Unix(0, oldest)); oldest != 0 && blocked >= w.timeout {
			return "output blocked for " + blocked.Round(time.Second).String()
		}
	}
	if w.openTimeout > 0 && w.sessions.Load() == 0 {
		if idle := now.Sub(time.Unix(0, w.noSession.Load())); idle >= w.openTimeout {
			return "no session open for " + idle.Round(time.Second).String()
		}
	}
	return ""
}

// sessionStarted counts a session channel and starts the RTT probe on the
// connection's first; it reports false over the per-connection cap.
func (w *connWatch) sessionStarted(max int, probe func()) bool {
	if w.sessions.Add(1) > int32(max) {
		w.sessionEnded()
		return false
	}
	w.probing.Do(func() {
		w.lastRead.Store(time.Now().UnixNano()) // the session request itself
		w.probed.Store(true)
		go probe()
	})
	return true
}

func (w *connWatch) sessionEnded() {
	if w.sessions.Add(-1) == 0 {
		w.noSession.Store(time.Now().UnixNano())
	}
}

// watchWriter makes a session's blocked output count; the returned func
// stops that.
func (w *connWatch) watchWriter(lw *lockedWriter) func() {
	w.mu.Lock()
	w.writers[lw] = struct{}{}
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		delete(w.writers, lw)
		w.mu.Unlock()
	}
}

// liveConn records when the client last sent anything.
type liveConn struct {
	net.Conn
	w *connWatch
}

func (c *liveConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.w.lastRead.Store(time.Now().UnixNano())
	}
	return n, err
}

const connWatchKey ctxKey = iota + 1

// watchOf is the connection's watch (nil for a context that has none).
func watchOf(ctx ssh.Context) *connWatch {
	w, _ := ctx.Value(connWatchKey).(*connWatch)
	return w
}

// rttProbe measures the round trip to the client with an SSH global
// request every few seconds (any client answers one, if only to refuse
// it), for the game HUD; its replies are also what keeps a quiet client's
// connection alive in connWatch's eyes.
type rttProbe struct {
	last atomic.Int64 // the last round trip measured
	sent atomic.Int64 // unix nanoseconds the unanswered request was sent; 0 = none
}

func (r *rttProbe) get() time.Duration { return time.Duration(r.last.Load()) }

// noReply is how long the request in flight has waited for its answer:
// once it is longer than a round trip, the last RTT is no longer news.
func (r *rttProbe) noReply() time.Duration {
	if s := r.sent.Load(); s != 0 {
		return time.Since(time.Unix(0, s))
	}
	return 0
}

// run probes until ctx ends or the connection does. A request to a dead
// client blocks until connWatch closes the connection.
func (r *rttProbe) run(ctx context.Context, every time.Duration, conn interface {
	SendRequest(string, bool, []byte) (bool, []byte, error)
}) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		start := time.Now()
		r.sent.Store(start.UnixNano())
		if _, _, err := conn.SendRequest("keepalive@openssh.com", true, nil); err != nil {
			return
		}
		r.last.Store(int64(time.Since(start)))
		r.sent.Store(0)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
