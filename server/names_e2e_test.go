package server_test

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// A new player who does not get the name they asked for is told why, at
// first login, in the lobby and in whoami; rename chooses another under
// the same rules, once a day (admins exempt), and the audit log has it.
func TestNamesExplainedAndRename(t *testing.T) {
	adminKey := sshtest.NewKey(t)
	cfg := server.DefaultConfig()
	cfg.MaxConnsPerIP = 64 // every sshtest.Run holds its connection until the test ends
	h := start(t, t.TempDir(), cfg, map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true})
	if r := sshtest.Run(t, h.Addr, "alice", sshtest.NewKey(t), "whoami"); r.Code != 0 || strings.Contains(r.Stdout, "rename") {
		t.Fatalf("alice's first whoami: %+v", r)
	}

	// Taken: told in the lobby, at first login only.
	key2 := sshtest.NewKey(t)
	lobbyTerm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", key2)), 80, 24, "")
	// The hint is a command to paste: this server's address and port.
	host, port, _ := net.SplitHostPort(h.Addr)
	rename := "ssh -p " + port + " " + host + " rename NAME"
	// (The lobby wraps the notice: the command's start is on one line.)
	lobbyTerm.WaitFor(wait, "Welcome, alice-2!", "alice is taken: you are alice-2;", "rename with: ssh -p "+port+" "+host)
	if r := sshtest.Run(t, h.Addr, "alice", key2, "whoami"); strings.Contains(r.Stdout, "taken") {
		t.Fatalf("the name note came again at a later login: %q", r.Stdout)
	}
	// Invalid: told in whoami, text and JSON.
	r := sshtest.Run(t, h.Addr, "Bob Smith!", sshtest.NewKey(t), "whoami")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"Bob Smith!" cannot be a name`) || !strings.Contains(r.Stdout, "you are bobsmith; rename with: "+rename) {
		t.Fatalf("whoami with an invalid name: %+v", r)
	}
	var who struct {
		Name     string
		NameNote string `json:"name_note"`
	}
	r = sshtest.Run(t, h.Addr, "root", sshtest.NewKey(t), "whoami --json")
	if err := json.Unmarshal([]byte(r.Stdout), &who); err != nil || !strings.Contains(who.NameNote, `"root" cannot be a name (name "root" is reserved): you are player-`) {
		t.Fatalf("whoami --json with a reserved name: %v %+v", err, who)
	}

	// Rename, with its errors and exit codes.
	for _, c := range []struct {
		args string
		code int
		want string
	}{
		{"rename", 2, "usage: rename NAME"},
		{"rename a b", 2, "usage: rename NAME"},
		{"rename Al!ce", 2, "name must be 2–16 characters"},
		{"rename guest-7", 2, "reserved for guests"},
		{"rename ALICE", 1, "alice is taken"},
		{"rename alice-2", 0, "you are already alice-2"},
		{"rename Ally", 0, "you are now ally (was alice-2)"},
		{"rename allie", 1, "you can rename once a day; next in 23h59m"},
	} {
		r := sshtest.Run(t, h.Addr, "alice", key2, c.args)
		if r.Code != c.code || !strings.Contains(r.Stdout+r.Stderr, c.want) {
			t.Fatalf("%s: exit %d %q %q, want %d %q", c.args, r.Code, r.Stdout, r.Stderr, c.code, c.want)
		}
	}
	if r := sshtest.Run(t, h.Addr, "whoever", key2, "whoami"); !strings.Contains(r.Stdout, "name         ally\n") {
		t.Fatalf("whoami after rename: %q", r.Stdout)
	}
	if r := sshtest.Run(t, h.Addr, "g", nil, "rename gina"); r.Code != 77 {
		t.Fatalf("a guest's rename: %+v", r)
	}
	// Admins are exempt from the limit; names keep all 16 characters.
	for _, n := range []string{"ops", "sixteen-chars-ok"} {
		if r := sshtest.Run(t, h.Addr, "op", adminKey, "rename "+n); r.Code != 0 {
			t.Fatalf("admin rename %s: %+v", n, r)
		}
	}
	if r := sshtest.Run(t, h.Addr, "op", adminKey, "whoami"); !strings.Contains(r.Stdout, "name         sixteen-chars-ok\n") {
		t.Fatalf("a 16-character name: %q", r.Stdout)
	}
	r = sshtest.Run(t, h.Addr, "op", adminKey, "admin audit --json")
	var audit []struct{ Actor, Action, Target, Reason string }
	if err := json.Unmarshal([]byte(r.Stdout), &audit); err != nil || len(audit) < 3 {
		t.Fatalf("audit: %v %s", err, r.Stdout)
	}
	if a := audit[len(audit)-1]; a.Action != "rename" || a.Actor != "alice-2" || a.Target != "ally" || a.Reason != "was alice-2" {
		t.Fatalf("the first rename in the audit log: %+v", a)
	}
}
