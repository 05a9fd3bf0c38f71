package server

import (
	"fmt"
	"net"
	"sync"
	"time"
)

// limitListener enforces the per-IP cap on concurrent connections at
// accept time, before any key exchange: a refused connection costs one
// write and a close, not a handshake.
type limitListener struct {
	net.Listener
	max int
	mu  sync.Mutex
	per map[string]int
	// refused counts refusals for telemetry and tests.
	refused uint64
}

func newLimitListener(l net.Listener, max int) *limitListener {
	return &limitListener{Listener: l, max: max, per: map[string]int{}}
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		host := hostOf(c.RemoteAddr())
		l.mu.Lock()
		n := l.per[host]
		if l.max > 0 && n >= l.max {
			l.refused++
			l.mu.Unlock()
			// Plain text before the SSH identification line is allowed by
			// RFC 4253 §4.2; raw TCP clients and `ssh -v` show it.
			_ = c.SetWriteDeadline(time.Now().Add(time.Second))
			_, _ = fmt.Fprintf(c, "termarena: too many connections from %s (limit %d); close some and retry\r\n", host, l.max)
			_ = c.Close()
			continue
		}
		l.per[host] = n + 1
		l.mu.Unlock()
		return &limitConn{Conn: c, l: l, host: host}, nil
	}
}

func (l *limitListener) release(host string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.per[host] <= 1 {
		delete(l.per, host)
		return
	}
	l.per[host]--
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
