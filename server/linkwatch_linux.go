package server

import (
	"fmt"
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// watchLink has the kernel find a dead link on c by itself, so that a
// connection in the menus costs the process nothing while it sits there
// (connWatch): TCP keepalives once the link has been quiet for half of
// timeout, then every tenth of it (at least a second each: the kernel
// counts them in seconds), and TCP_USER_TIMEOUT of timeout, which resets
// the connection once the peer has acknowledged nothing for that long,
// neither a keepalive nor data sent to it. A live client's kernel answers
// the keepalives without waking its ssh, and ours sends them without
// waking the server.
//
// A quiet dead link is then dropped timeout after the last packet from
// the client (a keepalive's answer comes at least every half timeout, so
// between half a timeout and a timeout after the cut). Bytes written to
// it meanwhile stop the keepalives and the user timeout counts from the
// first of them; connWatch then drops the client a timeout after its
// last acknowledgement itself (linkSilence). It fails, and the probe goes
// on watching, when c is not TCP.
func watchLink(c net.Conn, timeout time.Duration) error {
	tc := tcpOf(c)
	if tc == nil {
		return fmt.Errorf("watch link: %T is not a TCP connection", c)
	}
	idle, every := max(timeout/2, time.Second), max(timeout/10, time.Second)
	if err := tc.SetKeepAliveConfig(net.KeepAliveConfig{Enable: true, Idle: idle, Interval: every,
		Count: max(1, int((timeout-idle+every-1)/every))}); err != nil {
		return fmt.Errorf("watch link: keepalive: %w", err)
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return fmt.Errorf("watch link: %w", err)
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(timeout.Milliseconds()))
	}); err != nil {
		return fmt.Errorf("watch link: %w", err)
	}
	if serr != nil {
		return fmt.Errorf("watch link: TCP_USER_TIMEOUT: %w", serr)
	}
	return nil
}

// tcpOf is the TCP connection under c's wrappers (nil: none).
func tcpOf(c net.Conn) *net.TCPConn {
	for {
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		c = u.NetConn()
	}
	tc, _ := c.(*net.TCPConn)
	return tc
}

// linkSilence says, while data the server sent waits for the client's
// acknowledgement (outstanding), how long ago the last acknowledgement
// came: connWatch drops a client silent for its timeout with data out,
// where the kernel's user timeout would count only from the first byte
// left unacknowledged. ok is false when the kernel cannot say.
func linkSilence(c net.Conn) (since time.Duration, outstanding, ok bool) {
	tc := tcpOf(c)
	if tc == nil {
		return 0, false, false
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return 0, false, false
	}
	var info *unix.TCPInfo
	if err := rc.Control(func(fd uintptr) { info, err = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO) }); err != nil || info == nil {
		return 0, false, false
	}
	return time.Duration(info.Last_ack_recv) * time.Millisecond, info.Unacked > 0, true
}
