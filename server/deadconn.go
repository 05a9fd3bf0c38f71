package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"charm.land/ssh"
)

// A network that dies silently (Wi-Fi gone, a phone in a tunnel, a link
// set down) sends no FIN and no RST: without a deadline of our own the
// server keeps the seat "connected" and holds the TCP connection for as
// long as the kernel's retransmissions last (minutes). connWatch is that
// deadline, one per connection, in two halves:
//
//   - the kernel's, for a connection in the menus: at accept the socket
//     gets TCP keepalives (the first after half the client timeout of
//     quiet, then every tenth of it) and TCP_USER_TIMEOUT of the client
//     timeout (watchLink), so a peer that acknowledges nothing for
//     ClientTimeout, neither keepalives nor data, is reset by the kernel
//     and its read ends the connection. An idle lobby costs the process
//     nothing at all: no timer, no probe (issue 21: the probe every 5 s
//     was what still woke 1,000 idle lobbies);
//   - ours, while a game screen (a seat, a watch, a replay) has the
//     terminal, and on a connection the kernel cannot watch (not TCP, or
//     not Linux): every byte the client sends proves it alive (liveConn
//     records it; bytes still unread in the socket, after a stall of the
//     server's own, count too), and the RTT probe's SSH keepalive makes a
//     live client send one, so silence for ClientTimeout means the client
//     is gone. This one sees through a TCP proxy in front of the server
//     (whose kernel answers for a dead client), and gives the HUD its
//     round trip: the probe asks every probeEvery while a screen shows
//     it, and otherwise after half the timeout of silence.
//
// A session's output blocked for ClientTimeout (a client whose TCP still
// answers but who reads nothing) is as good as gone too; that check runs
// only while a write is in progress (writeStarted arms it). A connection
// with no session open for SessionOpenTimeout holds a slot of the per-IP
// cap for nothing.
//
// Any of these closes the connection; the SSH layer then closes its
// channels and each session ends by the path of a clean drop (a player's
// seat is kept for the room's grace period). The checks and the probe run
// on one timer, set only while something is to be watched (armed), not a
// goroutine of their own: a connection costs a goroutine more than the SSH
// layer's only while a probe waits for its answer.
type connWatch struct {
	timeout     time.Duration // silence or blocked output before the drop; 0 = never
	openTimeout time.Duration // no session open for this long; 0 = never
	every       time.Duration // the probe's interval while the round trip is shown
	quiet       time.Duration // the silence before a probe while it is not
	// kernel: the kernel watches the link (watchLink succeeded), so the
	// probe runs only while a game screen is up.
	kernel bool
	log    *slog.Logger
	conn   net.Conn
	ctx    context.Context

	rtt       rttProbe
	lastRead  atomic.Int64 // unix nanoseconds of the last byte from the client
	sessions  atomic.Int32
	noSession atomic.Int64 // unix nanoseconds since when no session is open
	games     atomic.Int32 // this connection's sessions whose game screen has the terminal
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
	// due is when the timer fires (unix nanoseconds; 0 = not set). A
	// check clears it as it starts and sets it again only while there is
	// something to watch; whatever gives it something (a write, a game
	// screen, a session's end) brings it forward (wakeAt).
	due      atomic.Int64
	timedOut atomic.Bool // the kernel reset the link: logged once

	mu      sync.Mutex
	writers map[*lockedWriter]bool // true: its game screen has the terminal
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
		log: log, conn: c, ctx: ctx, writers: map[*lockedWriter]bool{}}
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
		w.kernel = watchLink(c, w.timeout) == nil
	}
	w.lastRead.Store(now)
	w.noSession.Store(now)
	w.timer = time.AfterFunc(time.Hour, w.check)
	w.timer.Stop()
	return w
}

// wakeAt has check run at the latest at (unix nanoseconds).
func (w *connWatch) wakeAt(at int64) {
	if due := w.due.Load(); due != 0 && due <= at {
		return
	}
	w.mu.Lock()
	if due := w.due.Load(); due == 0 || at < due {
		w.due.Store(at)
		w.timer.Reset(time.Until(time.Unix(0, at)))
	}
	w.mu.Unlock()
}

// writeStarted arms the checks a write needs: should it still be in
// progress a client timeout from now, check drops the client, and on a
// link the kernel watches, check drops a client that acknowledges none of
// it for the timeout (the kernel's keepalive stops while data is out, and
// its user timeout counts from the write, not from the client's last
// word). A quarter timeout on, a write to a live client is long
// acknowledged and check finds nothing more to watch. While a game screen
// is up the timer runs anyway, so a game frame costs one atomic load
// here.
func (w *connWatch) writeStarted(now int64) {
	if w.timeout <= 0 {
		return
	}
	look := w.timeout
	if w.kernel && !w.probes() {
		look /= 4
	}
	w.wakeAt(now + int64(look))
}

// gameScreen records that lw's game screen took the terminal (on) or gave
// it back; the first starts the probe at once, for the HUD's round trip
// and the silence check.
func (w *connWatch) gameScreen(lw *lockedWriter, on bool) {
	w.mu.Lock()
	was, ok := w.writers[lw]
	if ok && was != on {
		w.writers[lw] = on
		if on {
			w.games.Add(1)
		} else {
			w.games.Add(-1)
		}
	}
	w.mu.Unlock()
	if ok && on && !was {
		w.wakeAt(time.Now().UnixNano())
	}
}

// timedOutBy logs, once, that the kernel gave up on the link (err is the
// connection's read error): the kernel's half of the watch ends a
// connection this way, and the operator sees it as ours.
func (w *connWatch) timedOutBy(err error) {
	if w.kernel && errors.Is(err, syscall.ETIMEDOUT) && w.timedOut.CompareAndSwap(false, true) {
		w.log.Info("dropping connection", "remote", w.conn.RemoteAddr().String(),
			"reason", "no reply from the client's network for "+w.timeout.String()+" (TCP keepalive)")
	}
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
// gone, and sets the timer again while there is something to watch.
func (w *connWatch) check() {
	w.checking.Lock()
	defer w.checking.Unlock()
	if w.ctx.Err() != nil {
		return
	}
	// The timer is off from here: what changes while this round looks
	// sets it again itself.
	w.mu.Lock()
	w.due.Store(0)
	w.mu.Unlock()
	now := time.Now()
	if why := w.verdict(now); why != "" {
		w.log.Info("dropping connection", "remote", w.conn.RemoteAddr().String(), "reason", why)
		_ = w.conn.Close()
		return
	}
	// Nothing to watch (no game screen: the kernel watches the link; no
	// write in progress or unacknowledged; a session open): no timer.
	if next, watching := w.plan(now); watching {
		w.wakeAt(now.Add(max(next, 10*time.Millisecond)).UnixNano())
	}
}

// probes says whether the RTT probe runs now: while a game screen has the
// terminal, or always (once a session is open) when the kernel does not
// watch the link and there is a timeout to keep.
func (w *connWatch) probes() bool {
	return w.games.Load() > 0 || (!w.kernel && w.timeout > 0)
}

// plan sends the probe when it is due and says when check should look
// next; watching is false when nothing needs it to.
func (w *connWatch) plan(now time.Time) (next time.Duration, watching bool) {
	next = time.Duration(1<<63 - 1)
	soon := func(d time.Duration) {
		watching = true
		next = min(next, d)
	}
	// Shown: a screen read the round trip since the last look.
	asked := w.rtt.asked.Load()
	shown := asked != w.asked
	w.asked = asked
	w.mu.Lock()
	req := w.req
	w.mu.Unlock()
	if req != nil && w.probes() {
		// The next look: a round apart while the round trip is shown,
		// else quiet apart, sooner when the probe or the silence
		// deadline is due.
		if shown {
			soon(w.every)
		} else {
			soon(w.quiet)
		}
		if w.rtt.sent.Load() == 0 {
			due := w.probeDue(shown)
			if !now.Before(due) {
				w.probe(req, now)
				due = w.probeDue(shown)
			}
			if until := due.Sub(now); until > 0 {
				soon(until)
			}
		}
		// Wake at the silence deadline itself when it comes before the
		// next round: a client gone quiet is dropped at the timeout, not
		// up to a round after it.
		if w.timeout > 0 && w.probed.Load() {
			deadline := time.Unix(0, w.lastRead.Load()).Add(w.timeout)
			if sent := w.rtt.sent.Load(); sent != 0 {
				deadline = later(deadline, time.Unix(0, sent).Add(w.timeout-w.quiet))
			}
			soon(deadline.Sub(now))
		}
	}
	// A write in progress: look when it will have been blocked for the
	// timeout.
	if w.timeout > 0 {
		if since := w.oldestWrite(); since != 0 {
			soon(time.Unix(0, since).Add(w.timeout).Sub(now))
		}
	}
	// Data out on a link the kernel watches: look when the client will
	// have acknowledged nothing for the timeout.
	if w.kernel && !w.probes() {
		if since, out, ok := linkSilence(w.conn); ok && out {
			soon(w.timeout - since)
		}
	}
	if w.openTimeout > 0 && w.loggedIn.Load() && w.sessions.Load() == 0 {
		soon(time.Unix(0, w.noSession.Load()).Add(w.openTimeout).Sub(now))
	}
	return next, watching
}

// oldestWrite is when the oldest write in progress on the connection's
// sessions started (unix nanoseconds; 0 = none).
func (w *connWatch) oldestWrite() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	var oldest int64
	for lw := range w.writers {
		if since := lw.blocked.Load(); since != 0 && (oldest == 0 || since < oldest) {
			oldest = since
		}
	}
	return oldest
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
		if w.kernel && !w.probes() {
			if since, out, ok := linkSilence(w.conn); ok && out && since >= w.timeout {
				return "no reply from the client for " + since.Round(time.Second).String() + " (data unacknowledged)"
			}
		}
		oldest := w.oldestWrite()
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
// first, gives the RTT probe req to ask; it reports false over the
// per-connection cap. Where the kernel does not watch the link the probe
// starts at once, with a first round trip; elsewhere it starts with a
// game screen (gameScreen).
func (w *connWatch) sessionStarted(max int, req requester) bool {
	if w.sessions.Add(1) > int32(max) {
		w.sessionEnded()
		return false
	}
	w.probing.Do(func() {
		now := time.Now()
		w.lastRead.Store(now.UnixNano()) // the session request itself
		w.mu.Lock()
		w.req = req
		w.mu.Unlock()
		w.probed.Store(true)
		if !w.probes() {
			return
		}
		// The first probe goes out on the timer, at once, so that the
		// timer's goroutine is the only one that sends.
		w.wakeAt(now.UnixNano())
	})
	return true
}

// login starts the session-open timeout's clock: the client has
// authenticated.
func (w *connWatch) login() {
	if w.loggedIn.Load() {
		return
	}
	now := time.Now().UnixNano()
	w.noSession.Store(now)
	w.loggedIn.Store(true)
	if w.openTimeout > 0 {
		w.wakeAt(now + int64(w.openTimeout))
	}
}

func (w *connWatch) sessionEnded() {
	if w.sessions.Add(-1) == 0 {
		now := time.Now().UnixNano()
		w.noSession.Store(now)
		if w.openTimeout > 0 {
			w.wakeAt(now + int64(w.openTimeout))
		}
	}
}

// watchWriter makes a session's output count: a blocked write, and its
// game screen having the terminal (lw.handTo). The returned func stops
// that.
func (w *connWatch) watchWriter(lw *lockedWriter) func() {
	w.mu.Lock()
	w.writers[lw] = false
	w.mu.Unlock()
	lw.mu.Lock()
	lw.watch = writerWatch{w: w, lw: lw}
	frames := lw.frames
	lw.mu.Unlock()
	if frames {
		w.gameScreen(lw, true)
	}
	return func() {
		w.mu.Lock()
		if w.writers[lw] {
			w.games.Add(-1)
		}
		delete(w.writers, lw)
		w.mu.Unlock()
	}
}

// writerWatch is the connection's watch as one session's writer tells it
// what it does (lockedWriter.watch).
type writerWatch struct {
	w  *connWatch
	lw *lockedWriter
}

func (ww writerWatch) writeStarted(now int64) { ww.w.writeStarted(now) }
func (ww writerWatch) gameScreen(on bool)     { ww.w.gameScreen(ww.lw, on) }

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
	if err != nil {
		c.w.timedOutBy(err)
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
