package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

func TestAdminBanOverSSH(t *testing.T) {
	dir := t.TempDir()
	adminKey, malloryKey := sshtest.NewKey(t), sshtest.NewKey(t)
	admins := map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true}
	h := start(t, dir, server.DefaultConfig(), admins)

	sshtest.Run(t, h.Addr, "root", adminKey, "whoami") // the admin exists as a player too
	mallory := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("mallory", malloryKey)), 80, 24, "")
	mallory.WaitFor(wait, "Welcome, mallory!")

	// A player who is not an admin gets 77, for listings too.
	for _, cmd := range []string{"admin bans", "admin ban mallory 1h x", "admin backup"} {
		if r := sshtest.Run(t, h.Addr, "mallory", malloryKey, cmd); r.Code != 77 {
			t.Fatalf("non-admin %q: %+v", cmd, r)
		}
	}
	r := sshtest.Run(t, h.Addr, "root", adminKey, "admin ban mallory 1h spam")
	if r.Code != 0 {
		t.Fatalf("admin ban: %+v", r)
	}
	// Mallory's screen shows why, and the session ends with 77.
	code, err := mallory.Wait(wait)
	if err != nil || code != 77 {
		t.Fatalf("banned session: code %d err %v", code, err)
	}
	if raw := string(mallory.Raw()); !strings.Contains(raw, "banned until") || !strings.Contains(raw, "spam") {
		t.Fatalf("the banned player was not told why: %q", raw)
	}
	// The same key is refused at login, with the reason.
	refused := sshtest.Run(t, h.Addr, "mallory", malloryKey, "whoami")
	if refused.Code != 77 || !strings.Contains(refused.Stderr, "spam") || refused.Stdout != "" {
		t.Fatalf("banned login: %+v", refused)
	}
	// The audit log has it.
	r = sshtest.Run(t, h.Addr, "root", adminKey, "admin audit --json")
	var audit []struct{ Actor, Action, Target, Reason string }
	if err := json.Unmarshal([]byte(r.Stdout), &audit); err != nil || len(audit) == 0 || audit[0].Action != "ban" || audit[0].Target != "mallory" || audit[0].Reason != "spam" {
		t.Fatalf("audit: %v %s", err, r.Stdout)
	}
	// Backup streams a bbolt file with the same players.
	c := sshtest.Dial(t, h.Addr, sshtest.Config("root", adminKey))
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	var backup bytes.Buffer
	s.Stdout = &backup
	if err := s.Run("admin backup"); err != nil {
		t.Fatalf("backup: %v", err)
	}
	path := filepath.Join(t.TempDir(), "backup.db")
	if err := os.WriteFile(path, backup.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatalf("backup does not open as bbolt: %v", err)
	}
	players := 0
	_ = db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte("players")); b != nil {
			players = b.Stats().KeyN
		}
		return nil
	})
	db.Close()
	if n, _ := h.Store.CountPlayers(context.Background()); players != n || n < 2 {
		t.Fatalf("backup has %d players, server %d", players, n)
	}

	// The ban survives a restart.
	h.Stop()
	h2 := start(t, dir, server.DefaultConfig(), admins)
	if r := sshtest.Run(t, h2.Addr, "mallory", malloryKey, "whoami"); r.Code != 77 {
		t.Fatalf("ban lost across restart: %+v", r)
	}
	if r := sshtest.Run(t, h2.Addr, "root", adminKey, "admin unban mallory"); r.Code != 0 {
		t.Fatalf("unban: %+v", r)
	}
	if r := sshtest.Run(t, h2.Addr, "mallory", malloryKey, "whoami"); r.Code != 0 {
		t.Fatalf("after unban: %+v", r)
	}
}

// `admin sessions` shows where each player is now, not the command their
// session started with, and follows them as they move.
func TestAdminSessionsShowWherePlayersAre(t *testing.T) {
	adminKey := sshtest.NewKey(t)
	h := start(t, t.TempDir(), server.DefaultConfig(), map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true})
	root := sshtest.Dial(t, h.Addr, sshtest.Config("root", adminKey))
	where := func() map[string]string {
		t.Helper()
		r := sshtest.RunOn(t, root, "admin sessions --json")
		var list []struct{ Name, Where string }
		if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || r.Code != 0 {
			t.Fatalf("admin sessions --json: %v %+v", err, r)
		}
		out := map[string]string{}
		for _, s := range list {
			out[s.Name] = s.Where
		}
		return out
	}
	waitWhere := func(name, want string) {
		t.Helper()
		deadline := time.Now().Add(wait)
		for got := where()[name]; got != want; got = where()[name] {
			if time.Now().After(deadline) {
				t.Fatalf("admin sessions shows %s in %q, want %q", name, got, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!")
	waitWhere("alice", "lobby")
	alice.Type("c")
	alice.WaitFor(wait, "New room")
	alice.Type("\r")
	alice.WaitFor(wait, "r1 · 1v1 · casual")
	waitWhere("alice", "room r1")

	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 80, 24, "spectate r1")
	bob.WaitFor(wait, "watching r1")
	waitWhere("bob", "watching r1")
	carol := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("carol", sshtest.NewKey(t))), 80, 24, "play")
	carol.WaitFor(wait, "in the queue")
	waitWhere("carol", "queue pong-1v1")

	r := sshtest.RunOn(t, root, "admin sessions")
	if !strings.Contains(r.Stdout, "room r1") || !strings.Contains(r.Stdout, "watching r1") || !strings.Contains(r.Stdout, "queue pong-1v1") {
		t.Fatalf("admin sessions:\n%s", r.Stdout)
	}

	// Moving on is followed: alice leaves, the room closes, and bob's
	// watch with it.
	alice.Type("q")
	alice.WaitFor(wait, "Welcome, alice!")
	waitWhere("alice", "lobby")
	waitWhere("bob", "lobby")
}
