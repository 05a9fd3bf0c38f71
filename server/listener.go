package server

import (
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
// write and a close, not a handshake. A connection over the cap waits up
// to reconnectGrace for a slot on a goroutine of its own, so Accept never
// waits; at most max of them wait per address, and the rest are refused at
// once. A waiter that gets a slot is served from its own goroutine (admit),
// as the SSH server serves every accepted connection.
type limitListener struct {
	net.Listener
	max   int
	grace time.Duration
	admit func(net.Conn) // serves a connection admitted after waiting

	mu      sync.Mutex
	per     map[string]int
	waiting map[string]int
	freed   chan struct{} // closed (and replaced) whenever a slot frees
	refused uint64        // for telemetry and tests

	closeOnce sync.Once
	done      chan struct{}
}

func newLimitListener(l net.Listener, max int, admit func(net.Conn)) *limitListener {
	return &limitListener{
		Listener: l, max: max, grace: reconnectGrace, admit: admit,
		per: map[string]int{}, waiting: map[string]int{}, freed: make(chan struct{}), done: make(chan struct{}),
	}
}

// Accept returns the next connection under the cap.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		host := hostOf(c.RemoteAddr())
		l.mu.Lock()
		switch {
		case l.max <= 0 || l.per[host] < l.max:
			l.per[host]++
			l.mu.Unlock()
			return &limitConn{Conn: c, l: l, host: host}, nil
		case l.waiting[host] < l.max && l.grace > 0 && l.admit != nil:
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

// Close stops accepting (waiters give up); admitted connections go on.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// waitForSlot serves c as soon as a slot for host frees within the grace,
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
			l.admit(&limitConn{Conn: c, l: l, host: host})
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

// NetConn is the connection under the cap's bookkeeping (the connection
// watch asks its socket what waits unread).
func (c *limitConn) NetConn() net.Conn { return c.Conn }

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
