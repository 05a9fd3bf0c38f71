package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store/bolt"
)

// startBinary runs the termarena binary (this test binary acting as it)
// on data dir dir and returns its exit code and stderr. A start that does
// not exit within 20 s is a failure: every case here must be refused.
func startBinary(t *testing.T, dir string) (int, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, "--listen", "127.0.0.1:0", "--data", dir)
	// The web face on a free port: a server on :8080 elsewhere on the
	// host must not decide this test.
	cmd.Env = append(os.Environ(), "TERMARENA_TEST_MAIN=1", "TERMARENA_HTTP=127.0.0.1:0")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	_ = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("termarena started on a database it should refuse: %s", errOut.String())
	}
	return cmd.ProcessState.ExitCode(), errOut.String()
}

// TestDamagedDatabaseRefused: a data file cut short (at 5, 50 and 95 % of
// what its pages use) or emptied to 0 bytes stops the server at start with
// exit 1 and a message that says what is wrong and how to restore a backup
// — not a Go stack dump with exit 2 (which systemd restarts for ever), and
// not a new, empty server that has forgotten every player and ban.
func TestDamagedDatabaseRefused(t *testing.T) {
	src := t.TempDir()
	st, err := bolt.Open(filepath.Join(src, "termarena.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 2000 {
		wg.Go(func() {
			if _, _, err := st.Login(context.Background(), fmt.Sprintf("SHA256:k%04d", i), "ssh-ed25519", fmt.Sprintf("p%04d", i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var used int64
	if err := st.DB().View(func(tx *bbolt.Tx) error { used = tx.Size(); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(src, "termarena.db"))
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		size int64
		want []string
	}{
		{"cut at 5%", used * 5 / 100, []string{"damaged", "restore your latest backup", "admin backup"}},
		{"cut at 50%", used * 50 / 100, []string{"damaged", "restore your latest backup", "admin backup"}},
		{"cut at 95%", used * 95 / 100, []string{"damaged", "cut short", "restore your latest backup"}},
		{"empty", 0, []string{"empty (0 bytes)", "restore your latest backup", "remove the file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "termarena.db")
			if err := os.WriteFile(path, data[:tc.size], 0o600); err != nil {
				t.Fatal(err)
			}
			code, stderr := startBinary(t, dir)
			if code != 1 {
				t.Errorf("exit %d, want 1; stderr:\n%s", code, stderr)
			}
			for _, w := range append(tc.want, path) {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "goroutine ") {
				t.Errorf("a stack dump instead of a message:\n%.600s", stderr)
			}
			if fi, err := os.Stat(path); err != nil || fi.Size() != tc.size {
				t.Errorf("the refused file was changed: %v, %v", fi, err)
			}
		})
	}
}
