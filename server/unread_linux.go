package server

import (
	"net"
	"syscall"
	"unsafe"
)

// unreadInput reports whether bytes from the client wait in the kernel's
// receive buffer, not yet read by the server (false when c is not a socket
// or the kernel cannot say).
func unreadInput(c net.Conn) bool {
	for {
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		c = u.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	n := 0
	_ = rc.Control(func(fd uintptr) {
		var v int32
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&v))); errno == 0 {
			n = int(v)
		}
	})
	return n > 0
}
