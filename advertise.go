package main

import (
	"fmt"
	"net"
	"strconv"
)

// checkAdvertise refuses an --advertise that is not HOST:PORT, before
// anything starts: players would be told to ssh to it.
func checkAdvertise(addr string) error {
	if addr == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return fmt.Errorf("--advertise (TERMARENA_ADVERTISE) wants HOST:PORT, the address players ssh to, not %q", addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("--advertise %q: the port must be a number from 1 to 65535", addr)
	}
	return nil
}

// advertised is the address players are told to ssh to: --advertise when
// it is set; else the address the SSH listener got (listening, from
// --listen) when its host is a particular one; else, for a listener on
// every address (":2222"), the host name with the listener's port. Behind
// a load balancer or NAT only --advertise can know the right one.
func advertised(flag, listening string, hostname func() (string, error)) string {
	if flag != "" {
		return flag
	}
	host, port, err := net.SplitHostPort(listening)
	if err != nil {
		return listening
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return listening
	}
	name, err := hostname()
	if err != nil || name == "" {
		name = "localhost"
	}
	return net.JoinHostPort(name, port)
}
