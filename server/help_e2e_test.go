package server_test

import (
	"strings"
	"testing"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// `help COMMAND` explains one command; an unknown one is a usage error
// that lists them all.
func TestHelpOnOneCommand(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	key := sshtest.NewKey(t)
	r := sshtest.Run(t, h.Addr, "alice", key, "help join")
	if r.Code != 0 || !strings.Contains(r.Stdout, "usage: ssh -t HOST join ROOM|CODE [SEAT]") ||
		!strings.Contains(r.Stdout, "Exit status 1 when no such room is open, when it is full") || strings.Contains(r.Stdout, "whoami") {
		t.Fatalf("help join: %+v", r)
	}
	if r := sshtest.Run(t, h.Addr, "alice", key, "help whoami"); r.Code != 0 || !strings.Contains(r.Stdout, "usage: ssh HOST whoami [--json]") {
		t.Fatalf("help whoami: %+v", r)
	}
	r = sshtest.Run(t, h.Addr, "alice", key, "help dance")
	if r.Code != 2 || !strings.Contains(r.Stderr, `unknown command "dance"`) || !strings.Contains(r.Stderr, "rename NAME") || r.Stdout != "" {
		t.Fatalf("help dance: %+v", r)
	}
	if r := sshtest.Run(t, h.Addr, "alice", key, "help join play"); r.Code != 2 {
		t.Fatalf("help with two commands: %+v", r)
	}
}
