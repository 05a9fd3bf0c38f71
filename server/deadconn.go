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
//     count too), and the RTT probe's keepalive makes a live client send
//     one, so silence for ClientTimeout means the client is gone. The
//     probe asks every probeEvery while a screen shows the round trip (a
//     game's HUD reads it), and otherwise only after the client has been
//     silent for half the timeout: an idle lobby is asked once every few
//     seconds, and a client that types is never asked at all;
//   - a session's output blocked that long (a client that answers
//     keepalives but reads nothing) is as good as gone for a game;
//   - a connection with no session open for SessionOpenTimeout holds a
//     slot of the per-IP cap for nothing.
//
// Any of these closes the connection; the SSH layer then closes its
// channels and each session ends by the path of a clean drop (a player's
// seat is kept for the room's grace period). The check and the probe run
// on one timer, not a goroutine of their own: a connection costs a
// goroutine more than the SSH layer's only while a probe waits for its
// answer.
type connWatch struct {
	timeout     time.Duration // silence or blocked output before the drop; 0 = never
	openTimeout time.Duration // no session open for this long; 0 = never
	every       time.Duration // the probe's interval while the round trip is shown
	quiet       time.Duration // the silence before a probe while it is not
	log         *slog.Logger
	conn        net.Conn
	ctx         context.Context

	rtt       rttProbe
	lastRead  atomic.Int64 // unix nanoseconds of the last byte from the client
	sessions  atomic.Int32
	noSession atomic.Int64 // unix nanoseconds since when no session is open
	// loggedIn: the client has authenticated. SessionOpenTimeout counts
	// from then: before it the handshake's own timeout rules, and a
	// person typing his key's passphrase opens no session meanwhile.
	loggedIn atomic.Bool
	probing  sync.Once
	// probed: the RTT probe has started asking the client for replies.
	// Silence counts only from then: before it the server asks nothing,
	// and a client owes it nothing (a connection without a session is
	// SessionOpenTimeout's).
	probed atomic.Bool

	mu      sync.Mutex
	writers map[*lockedWriter]struct{}
	timer   *time.Timer
	req     requester // the connection the probe asks; nil before the first session

	// checking makes check run once at a time (the first session's
	// Reset can meet a round already running); what follows is its own.
	checking  sync.Mutex
	lastProbe time.Time
	asked     uint64 // rtt.asked at the last check
}

// requester is what the probe asks a reply of: the SSH connection.
type requester interface {
	SendRequest(name string, wantReply bool, payload []byte) (bool, []byte, error)
}

// probeEvery is how often the RTT probe asks the client for a reply while
// a screen shows the round trip.
const probeEvery = 2 * time.Second

// quietProbes: with no client timeout and the round trip not shown, the
// timer looks (for a screen that shows it again) this many probeEvery
// apart.
const quietProbes = 5

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
	// Unasked, a live client is asked once it has been silent half the
	// timeout: its answer comes back with the other half to spare. With
	// no timeout nothing is dropped, and the probe is only for the HUD.
	w.quiet = quietProbes * w.every
	if w.timeout > 0 {
		w.quiet = max(w.every, w.timeout/2)
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

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// probe asks the client for a reply and measures the round trip, on a
// goroutine that lives until the answer comes or the connection closes
// (a dead client's: connWatch closes it).
func (w *connWatch) probe(req requester, now time.Time) {
	w.lastProbe = now
	w.rtt.sent.Store(now.UnixNano())
	go func() {
		if _, _, err := req.SendRequest("keepalive@openssh.com", true, nil); err != nil {
			return
		}
		w.rtt.last.Store(int64(time.Since(now)))
		w.rtt.sent.Store(0)
	}()
}

// probeDue is when the next probe should go out: probeEvery after the
// last while the round trip is shown (rtt read since the last check),
// else once the client has been silent for quiet.
func (w *connWatch) probeDue(shown bool) time.Time {
	if w.lastProbe.IsZero() {
		return w.lastProbe // the first: a round trip to show at once
	}
	if shown {
		return w.lastProbe.Add(w.every)
	}
	return time.Unix(0, w.lastRead.Load()).Add(w.quiet)
}

// check runs on the timer: it closes the connection when the client is
// gone, and re-arms itself while the connection lives.
func (w *connWatch) check() {
	w.checking.Lock()
	defer w.checking.Unlock()
	if w.ctx.Err() != nil {
		return
	}
	now := time.Now()
	if why := w.verdict(now); why != "" {
		w.log.Info("dropping connection", "remote", w.conn.RemoteAddr().String(), "reason", why)
		_ = w.conn.Close()
		return
	}
	// Shown: a screen read the round trip since the last look.
	asked := w.rtt.asked.Load()
	shown := asked != w.asked
	w.asked = asked
	// The next look: a round apart while the round trip is shown, else
	// quiet apart (so output that starts blocking is seen within half the
	// timeout), sooner when the probe or the silence deadline is due.
	next := w.quiet
	if shown {
		next = w.every
	}
	w.mu.Lock()
	req := w.req
	w.mu.Unlock()
	if req != nil && w.rtt.sent.Load() == 0 {
		due := w.probeDue(shown)
		if !now.Before(due) {
			w.probe(req, now)
			due = w.probeDue(shown)
			if shown {
				next = w.every
			}
		}
		if until := due.Sub(now); until > 0 && until < next {
			next = until
		}
	}
	// Wake at the silence deadline itself when it comes before the next
	// round: a client gone quiet is dropped at the timeout, not up to a
	// round after it.
	if w.timeout > 0 && w.probed.Load() {
		deadline := time.Unix(0, w.lastRead.Load()).Add(w.timeout)
		if sent := w.rtt.sent.Load(); sent != 0 {
			deadline = later(deadline, time.Unix(0, sent).Add(w.timeout-w.quiet))
		}
		if until := deadline.Sub(now); until < next {
			next = until
		}
	}
	if w.openTimeout > 0 && w.loggedIn.Load() && w.sessions.Load() == 0 {
		if until := time.Unix(0, w.noSession.Load()).Add(w.openTimeout).Sub(now); until < next {
			next = until
		}
	}
	w.mu.Lock()
	w.timer.Reset(max(next, 10*time.Millisecond))
	w.mu.Unlock()
}

// verdict says why the connection should be dropped at now, or "".
func (w *connWatch) verdict(now time.Time) string {
	if w.timeout > 0 {
		if silent := now.Sub(time.Unix(0, w.lastRead.Load())); silent >= w.timeout && w.probed.Load() && w.owesReply(now) {
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
	if w.openTimeout > 0 && w.loggedIn.Load() && w.sessions.Load() == 0 {
		if idle := now.Sub(time.Unix(0, w.noSession.Load())); idle >= w.openTimeout {
			return "no session open for " + idle.Round(time.Second).String()
		}
	}
	return ""
}

// owesReply says whether the client has had its time to answer: a probe
// is out and has waited at least the timeout less quiet. A probe asked
// late (the server's own timer ran late under load) gives the client that
// time all the same, so silence the server caused drops nobody; with none
// out, check asks first.
func (w *connWatch) owesReply(now time.Time) bool {
	sent := w.rtt.sent.Load()
	return sent != 0 && now.Sub(time.Unix(0, sent)) >= w.timeout-w.quiet
}

// sessionStarted counts a session channel and, on the connection's
// first, starts the RTT probe over req with a first round trip at once;
// it reports false over the per-connection cap.
func (w *connWatch) sessionStarted(max int, req requester) bool {
	if w.sessions.Add(1) > int32(max) {
		w.sessionEnded()
		return false
	}
	w.probing.Do(func() {
		now := time.Now()
		w.lastRead.Store(now.UnixNano()) // the session request itself
		w.mu.Lock()
		defer w.mu.Unlock()
		w.req = req
		w.probed.Store(true)
		// A timer that is not armed (no timeouts) starts now, for the
		// probe. The first probe goes out on the timer, at once, so that
		// the timer's goroutine is the only one that sends.
		if w.timer == nil {
			w.timer = time.AfterFunc(0, w.check)
		} else {
			w.timer.Reset(0)
		}
	})
	return true
}

// login starts the session-open timeout's clock: the client has
// authenticated. The timer looks again at once, so the timeout is kept
// from login however far off its next round was.
func (w *connWatch) login() {
	if w.loggedIn.Load() {
		return
	}
	w.noSession.Store(time.Now().UnixNano())
	w.loggedIn.Store(true)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Reset(0)
	}
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

// loggedIn tells the connection's watch that its client has logged in.
func loggedIn(ctx ssh.Context) {
	if w := watchOf(ctx); w != nil {
		w.login()
	}
}

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
	// asked counts reads of the round trip: a screen that shows it keeps
	// the probe at probeEvery (connWatch.check).
	asked atomic.Uint64
}

func (r *rttProbe) get() time.Duration {
	r.asked.Add(1)
	return time.Duration(r.last.Load())
}

// noReply is how long the request in flight has waited for its answer:
// once it is longer than a round trip, the last RTT is no longer news.
func (r *rttProbe) noReply() time.Duration {
	if s := r.sent.Load(); s != 0 {
		return time.Since(time.Unix(0, s))
	}
	return 0
}
