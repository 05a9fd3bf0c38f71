package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// ? in a replay shows its keys over the board, as it does for a player
// and a watcher (it did nothing); ? again, or any other key, closes them,
// and that key still does what it does: space pauses at once.
func TestReplayHelpShowsItsKeysE2E(t *testing.T) {
	dir := t.TempDir()
	old, err := os.ReadFile(filepath.Join("testdata", "termarena-973820c.db")) // match 1: a recorded ranked 1v1
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "termarena.db"), old, 0o600); err != nil {
		t.Fatal(err)
	}
	h := start(t, dir, server.DefaultConfig(), nil)
	tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("eve", sshtest.NewKey(t))), 80, 24, "replay 1")
	tm.WaitFor(wait, "alice", "bob", "space pause")
	tm.Type("-") // 0.5×: the 11 s match lasts the whole test
	tm.WaitFor(wait, "0.5×")
	const helpLine = "? or any key closes this"

	tm.Type("?")
	scr := tm.WaitFor(wait, "Keys", helpLine)
	for _, k := range []string{"pause", "speed", "seek 10 s", "leave the replay", "chat"} {
		if !strings.Contains(scr, k) {
			t.Errorf("the replay's help does not name %q:\n%s", k, scr)
		}
	}
	tm.Type("?")
	waitUntil(t, "the help to close", wait, func() bool { return !strings.Contains(tm.Screen(), helpLine) })

	tm.Type("?")
	tm.WaitFor(wait, helpLine)
	tm.Type(" ") // closes the help and pauses
	tm.WaitFor(wait, "⏸")
	waitUntil(t, "the help to close", wait, func() bool { return !strings.Contains(tm.Screen(), helpLine) })
}
