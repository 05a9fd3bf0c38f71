package server

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// reconnectGrace is how long a connection over the per-IP cap waits for a
// slot before it is refused. A client that closes a connection and opens
// the next one at once gets there before the server has processed the
// close, so without a grace a player (or a script) that never holds more
// than the cap is still refused now and then.
const reconnectGrace = 250 * time.Millisecond

// limitListener enforces the per-IP cap on concurrent connections at
// accept time, before any key exchange: a refused connection costs one
// write and a close, not a handshake. Connections over the cap wait up to
// reconnectGrace for a slot on a goroutine of their own, so the accept
// loop never waits; at most max of them wait per address, and the rest
// are refused at once.
type limitListener struct {
	net.Listener
	max   int
	grace time.Duration

	mu      sync.Mutex
	per     map[string]int
	waiting map[string]int
	freed   chan struct{} // closed (and replaced) whenever a slot frees
	refused uint64        // for telemetry and tests

	admitted  chan net.Conn
	acceptErr chan error // the accept loop's last error, sent once
	start     sync.Once
	closeOnce sync.Once
	done      chan struct{}
}

func newLimitListener(l net.Listener, max int) *limitListener {
	return &limitListener{
		Listener: l, max: max, grace: reconnectGrace,
		per: map[string]int{}, waiting: map[string]int{}, freed: make(chan struct{}),
		admitted: make(chan net.Conn), acceptErr: make(chan error, 1), done: make(chan struct{}),
	}
}

// Accept returns the next connection admitted under the cap.
func (l *limitListener) Accept() (net.Conn, error) {
	l.start.Do(func() { go l.acceptLoop() })
	select {
	case c := <-l.admitted:
		return c, nil
	case err := <-l.acceptErr:
		l.acceptErr <- err // every later Accept fails the same way
		return nil, err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting; connections already admitted are not affected.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

func (l *limitListener) acceptLoop() {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			l.acceptErr <- err
			return
		}
		host := hostOf(c.RemoteAddr())
		l.mu.Lock()
		switch {
		case l.max <= 0 || l.per[host] < l.max:
			l.per[host]++
			l.mu.Unlock()
			l.deliver(c, host)
		case l.waiting[host] < l.max && l.grace > 0:
			l.waiting[host]++
			l.mu.Unlock()
			go l.waitForSlot(c, host)
		default:
			l.refused++
			l.mu.Unlock()
			l.refuse(c, host)
		}
	}
}

// waitForSlot admits c as soon as a slot for host frees within the grace,
// and refuses it otherwise.
func (l *limitListener) waitForSlot(c net.Conn, host string) {
	t := time.NewTimer(l.grace)
	defer t.Stop()
	for {
		l.mu.Lock()
		if l.per[host] < l.max {
			l.per[host]++
			l.doneWaiting(host)
			l.mu.Unlock()
			l.deliver(c, host)
			return
		}
		freed := l.freed
		l.mu.Unlock()
		select {
		case <-freed:
		case <-t.C:
			l.mu.Lock()
			l.doneWaiting(host)
			l.refused++
			l.mu.Unlock()
			l.refuse(c, host)
			return
		case <-l.done:
			l.mu.Lock()
			l.doneWaiting(host)
			l.mu.Unlock()
			_ = c.Close()
			return
		}
	}
}

func (l *limitListener) doneWaiting(host string) {
	if l.waiting[host]--; l.waiting[host] <= 0 {
		delete(l.waiting, host)
	}
}

// deliver hands an admitted connection to Accept; after Close it gives the
// slot back and closes the connection instead.
func (l *limitListener) deliver(c net.Conn, host string) {
	lc := &limitConn{Conn: c, l: l, host: host}
	select {
	case l.admitted <- lc:
	case <-l.done:
		_ = lc.Close()
	}
}

func (l *limitListener) refuse(c net.Conn, host string) {
	// Plain text before the SSH identification line is allowed by
	// RFC 4253 §4.2; raw TCP clients and `ssh -v` show it.
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = fmt.Fprintf(c, "termarena: too many connections from %s (limit %d); close some and retry\r\n", host, l.max)
	_ = c.Close()
}

func (l *limitListener) release(host string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.per[host] <= 1 {
		delete(l.per, host)
	} else {
		l.per[host]--
	}
	close(l.freed)
	l.freed = make(chan struct{})
}

type limitConn struct {
	net.Conn
	l    *limitListener
	host string
	once sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c.host) })
	return err
}

func hostOf(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}
