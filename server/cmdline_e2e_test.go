package server_test

import (
	"strings"
	"testing"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// A 100 KB command line is a usage error like any other bad command: a
// message on stderr and exit status 2, not a refused exec request (which
// OpenSSH reports only as "exec request failed on channel 0", exit 255).
func TestHugeCommandLineIsAUsageError(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	cmd := "profile " + strings.Repeat("a", 100*1024)
	r := sshtest.Run(t, h.Addr, "ann", sshtest.NewKey(t), cmd)
	if r.Code != server.ExitUsage || !strings.Contains(r.Stderr, "the command line is 102408 bytes long; commands are at most 4096 bytes") {
		t.Fatalf("100 KB command: exit %d, stderr %q", r.Code, r.Stderr)
	}
	// Just under the limit is still a command.
	if r := sshtest.Run(t, h.Addr, "ann", sshtest.NewKey(t), "whoami "+strings.Repeat(" ", 4000)); r.Code != 0 {
		t.Fatalf("whoami with 4 KB of spaces: %+v", r)
	}
}
