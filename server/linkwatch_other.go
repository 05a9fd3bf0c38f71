//go:build !linux

package server

import (
	"errors"
	"net"
	"time"
)

// watchLink: only Linux's TCP_USER_TIMEOUT bounds how long the kernel
// waits on a peer that acknowledges nothing, so elsewhere the RTT probe
// goes on watching every connection (connWatch).
func watchLink(net.Conn, time.Duration) error {
	return errors.New("watch link: the kernel's user timeout is Linux-only")
}

// linkSilence: this kernel is not asked.
func linkSilence(net.Conn) (time.Duration, bool, bool) { return 0, false, false }
