package server_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
	"github.com/termarena/termarena/store"
)

// TestFullDiskStillLetsPlayersAndAdminsIn runs the server on a small tmpfs
// and fills it: every login used to write the player's last-seen time, so
// nobody could connect ("could not load your player record"), admins with
// their tools for that moment included. Now a known player and an admin log
// in, admin stats and admin backup work, and a new key plays as a guest,
// told the server cannot save right now. Root only (it mounts a tmpfs);
// store.TestLoginWhenNothingCanBeSaved covers the store's part without.
func TestFullDiskStillLetsPlayersAndAdminsIn(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() }) // after the server stops
	adminKey, aliceKey := sshtest.NewKey(t), sshtest.NewKey(t)
	h := start(t, dir, server.DefaultConfig(), map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true})
	if r := sshtest.Run(t, h.Addr, "alice", aliceKey, "whoami"); r.Code != 0 {
		t.Fatalf("alice before the disk fills: %+v", r)
	}
	if r := sshtest.Run(t, h.Addr, "root", adminKey, "whoami"); r.Code != 0 {
		t.Fatalf("admin before the disk fills: %+v", r)
	}

	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := f.Write(make([]byte, 4096)); err != nil {
			break
		}
	}
	f.Close()
	// New players take the last free pages until the file must grow.
	for i := 0; ; i++ {
		_, _, err := h.Store.Login(context.Background(), fmt.Sprintf("SHA256:filler%d", i), "ssh-ed25519", "")
		if errors.Is(err, store.ErrCannotSave) {
			break
		}
		if err != nil || i == 5000 {
			t.Fatalf("filling the database: %d logins, %v", i, err)
		}
	}

	for range 3 {
		if r := sshtest.Run(t, h.Addr, "alice", aliceKey, "whoami"); r.Code != 0 || !strings.Contains(r.Stdout, "alice") {
			t.Fatalf("alice on a full disk: %+v", r)
		}
	}
	r := sshtest.Run(t, h.Addr, "newbie", sshtest.NewKey(t), "whoami")
	if r.Code != 0 || !strings.Contains(r.Stdout, "guest-") || !strings.Contains(r.Stdout, "cannot save right now") {
		t.Errorf("a new key on a full disk: %+v; want a guest told the server cannot save", r)
	}
	if r := sshtest.Run(t, h.Addr, "root", adminKey, "admin stats"); r.Code != 0 {
		t.Errorf("admin stats on a full disk: %+v", r)
	}
	r = sshtest.Run(t, h.Addr, "root", adminKey, "admin backup")
	if r.Code != 0 || len(r.Stdout) < 4096 || binary.NativeEndian.Uint32([]byte(r.Stdout)[16:]) != 0xED0CDAED {
		t.Errorf("admin backup on a full disk: exit %d, %d bytes, stderr %q", r.Code, len(r.Stdout), r.Stderr)
	}
}
