package bolt

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

// holdLockEnv makes the test binary act as a second termarena process that
// holds the store open until its stdin closes.
const holdLockEnv = "TERMARENA_STORE_TEST_HOLD"

func TestMain(m *testing.M) {
	if path := os.Getenv(holdLockEnv); path != "" {
		os.Exit(holdLock(path))
	}
	os.Exit(m.Run())
}

func holdLock(path string) int {
	s, err := Open(path, Options{})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println("locked")
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := s.Close(); err != nil {
		fmt.Println("error:", err)
		return 1
	}
	return 0
}

func TestOpenCreatesFile0600(t *testing.T) {
	path := dbPath(t)
	s := openTest(t, path, Options{})
	if s.Path() != path {
		t.Errorf("Path = %q, want %q", s.Path(), path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("mode = %v, want 0600", perm)
	}
}

func TestOpenMissingDir(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "nope", "termarena.db"), Options{})
	if err == nil {
		t.Fatal("Open succeeded without its directory")
	}
	if errors.Is(err, store.ErrInUse) {
		t.Errorf("missing dir reported as in use: %v", err)
	}
}

func TestOpenNotABoltFile(t *testing.T) {
	path := dbPath(t)
	if err := os.WriteFile(path, bytes.Repeat([]byte("not a database "), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(path, Options{}); err == nil {
		s.Close()
		t.Fatal("Open accepted garbage")
	}
}

func TestDataSurvivesReopen(t *testing.T) {
	path := dbPath(t)
	clock := newClock()
	s, err := Open(path, Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	alice := mustLogin(t, s, "SHA256:alice", "alice")
	bob := mustLogin(t, s, "SHA256:bob", "root")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openTest(t, path, Options{Now: clock.Now})
	for _, want := range []store.Player{alice, bob} {
		got, err := s.PlayerByFingerprint(ctx, want.Fingerprint)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("after reopen got %+v, want %+v", got, want)
		}
		if byName, err := s.PlayerByName(ctx, want.Name); err != nil || byName != want {
			t.Errorf("PlayerByName(%q) after reopen = %+v, %v", want.Name, byName, err)
		}
	}
	if n, err := s.CountPlayers(ctx); err != nil || n != 2 {
		t.Errorf("CountPlayers = %d, %v; want 2", n, err)
	}
	if _, created, _ := s.Login(ctx, "SHA256:alice", "ssh-ed25519", "alice"); created {
		t.Error("known player re-created after reopen")
	}
}

func TestSecondOpenInUse(t *testing.T) {
	path := dbPath(t)
	first := openTest(t, path, Options{})
	mustLogin(t, first, "SHA256:bob", "bob")

	_, err := Open(path, Options{Timeout: 100 * time.Millisecond})
	if !errors.Is(err, store.ErrInUse) {
		t.Fatalf("second Open err = %v, want ErrInUse", err)
	}

	// The failed attempt must not disturb the holder.
	if _, err := first.PlayerByName(ctx, "bob"); err != nil {
		t.Errorf("first handle broken after refused open: %v", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	s := openTest(t, path, Options{Timeout: 100 * time.Millisecond})
	if _, err := s.PlayerByName(ctx, "bob"); err != nil {
		t.Errorf("after the holder closed: %v", err)
	}
}

func TestSecondOpenInUseAcrossProcesses(t *testing.T) {
	path := dbPath(t)
	if s, err := Open(path, Options{}); err != nil {
		t.Fatal(err)
	} else if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), holdLockEnv+"="+path)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("helper process said %q, %v", line, err)
	}

	_, err = Open(path, Options{Timeout: 100 * time.Millisecond})
	if !errors.Is(err, store.ErrInUse) {
		t.Fatalf("Open while another process holds the file: err = %v, want ErrInUse", err)
	}

	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper process: %v", err)
	}
	openTest(t, path, Options{})
}

func TestBackup(t *testing.T) {
	s := openTest(t, dbPath(t), Options{})
	want := []store.Player{
		mustLogin(t, s, "SHA256:alice", "alice"),
		mustLogin(t, s, "SHA256:bob", "bob"),
		mustLogin(t, s, "SHA256:carol", ""),
	}

	var buf bytes.Buffer
	n, err := s.Backup(ctx, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Errorf("Backup reported %d bytes, wrote %d", n, buf.Len())
	}
	// Writes after the snapshot must not leak into it.
	mustLogin(t, s, "SHA256:dave", "dave")

	backup := filepath.Join(t.TempDir(), "backup.db")
	if err := os.WriteFile(backup, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	db, err := bbolt.Open(backup, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatalf("backup is not a bbolt file: %v", err)
	}
	err = db.View(func(tx *bbolt.Tx) error {
		players, names, err := playerBuckets(tx)
		if err != nil {
			return err
		}
		if got := players.Stats().KeyN; got != len(want) {
			t.Errorf("backup holds %d players, want %d", got, len(want))
		}
		for _, p := range want {
			got, err := getPlayer(players, p.Fingerprint)
			if err != nil {
				return err
			}
			if got != p {
				t.Errorf("backup has %+v, want %+v", got, p)
			}
			if fp := string(names.Get([]byte(p.Name))); fp != p.Fingerprint {
				t.Errorf("backup names[%q] = %q", p.Name, fp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// And it restores: the store opens it as-is.
	restored := openTest(t, backup, Options{})
	if p, err := restored.PlayerByName(ctx, "bob"); err != nil || p != want[1] {
		t.Errorf("restored PlayerByName(bob) = %+v, %v", p, err)
	}
	if v, err := restored.SchemaVersion(ctx); err != nil || v != latestVersion() {
		t.Errorf("restored SchemaVersion = %d, %v", v, err)
	}
}

// A data file that cannot be opened is named once in the error, as the
// operating system names it.
func TestOpenErrorNamesThePathOnce(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(file, "termarena.db") // under a file: not a directory
	_, err := Open(path, Options{})
	if err == nil || strings.Count(err.Error(), path) != 1 || !strings.HasPrefix(err.Error(), "store: open ") {
		t.Fatalf("error %v", err)
	}
}
