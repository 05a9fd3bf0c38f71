package server_test

import (
	"strings"
	"testing"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// `join` refuses with a plain line and an exit status what the room cannot
// take: a side its mode does not have (2) and a full room (1).
func TestJoinRefusesMissingSidesAndFullRooms(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	carol := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("carol", sshtest.NewKey(t))), 80, 24, "")
	carol.WaitFor(wait, "Welcome, carol!")
	carol.Type("c")
	carol.WaitFor(wait, "mode: 1v1")
	carol.Type("p") // private
	carol.WaitFor(wait, "private (join code)")
	carol.Type("\r")
	scr := carol.WaitFor(wait, "private · code ")
	code := strings.Fields(scr[strings.Index(scr, "code ")+len("code "):])[0]

	joinAs := func(name, args string) (int, string) {
		t.Helper()
		tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config(name, sshtest.NewKey(t))), 80, 24, "join "+args)
		st, err := tm.Wait(wait)
		if err != nil {
			t.Fatalf("join %s: %v\n%s", args, err, tm.Screen())
		}
		return st, tm.Screen()
	}

	st, out := joinAs("dave", code+" bottom")
	if st != 2 || !strings.Contains(out, `r1 is a 1v1 room with no seat "bottom": its seats are left and right`) || strings.Contains(out, "no such slot") {
		t.Fatalf("join %s bottom on a 1v1: exit %d\n%s", code, st, out)
	}
	st, out = joinAs("dave", code+" 3")
	if st != 2 || !strings.Contains(out, `no seat "3": its seats are left and right`) {
		t.Fatalf("join %s 3 on a 1v1: exit %d\n%s", code, st, out)
	}

	erin := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("erin", sshtest.NewKey(t))), 80, 24, "join "+code)
	erin.WaitFor(wait, "carol", "erin", "(you)")
	st, out = joinAs("frank", code+" left")
	if st != 1 || !strings.Contains(out, "r1 is full") || strings.Contains(out, "free: .") {
		t.Fatalf("join %s left into a full room: exit %d\n%s", code, st, out)
	}
	st, out = joinAs("frank", code)
	if st != 1 || !strings.Contains(out, "r1 is full") {
		t.Fatalf("join %s into a full room: exit %d\n%s", code, st, out)
	}
}
