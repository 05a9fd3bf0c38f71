package lobby

import (
	"net"
	"strings"
)

// SSHCommand is the OpenSSH command line that reaches a node advertised
// at addr (host:port), followed by a command when one is given: "ssh -p
// 2222 n2.example.com", "ssh -p 2222 -t n2.example.com spectate r3@n2".
// A command other than a plain-text one needs a terminal, hence -t; port
// 22 needs no -p. "" when addr is empty (not known).
func SSHCommand(addr string, command ...string) string {
	if addr == "" {
		return ""
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = addr, "22"
	}
	parts := []string{"ssh"}
	if port != "22" {
		parts = append(parts, "-p", port)
	}
	if len(command) > 0 {
		parts = append(parts, "-t")
	}
	parts = append(parts, host)
	return strings.Join(append(parts, command...), " ")
}

// SetSSH records the address this hub's node is reached at over SSH (its
// advertised address, --advertise): sessions that enter from now on carry
// it (Presence.SSH). It is set once, before sessions are served.
func (h *Hub) SetSSH(addr string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ssh = addr
}
