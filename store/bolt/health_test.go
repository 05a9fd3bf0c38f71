package bolt

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

// readOnlyFile opens the data file so that bbolt can read it and every
// write fails: the store seen from a full disk.
func readOnlyFile(name string, _ int, _ os.FileMode) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY, 0)
}

// TestLoginWhenNothingCanBeSaved: on a file that takes no writes, a known
// player (an admin among them) logs in with the last-seen time saved
// before; a new player is refused with ErrCannotSave, not a generic
// failure; Health says the store cannot save until a write succeeds.
func TestLoginWhenNothingCanBeSaved(t *testing.T) {
	clock := newClock()
	path := dbPath(t)
	s := openTest(t, path, Options{Now: clock.Now})
	alice := mustLogin(t, s, "SHA256:alice", "alice")
	if err := s.Health(ctx); err != nil {
		t.Fatalf("Health of a working store: %v", err)
	}
	s.Close()

	clock.Advance(time.Hour)
	s = openTest(t, path, Options{Now: clock.Now, openFile: readOnlyFile})
	p, created, err := s.Login(ctx, "SHA256:alice", "ssh-ed25519", "alice")
	if err != nil || created || p.Name != "alice" || !p.LastSeen.Equal(alice.LastSeen) {
		t.Errorf("known player on a full disk: %+v created=%v err=%v; want alice as saved before", p, created, err)
	}
	_, _, err = s.Login(ctx, "SHA256:bob", "ssh-ed25519", "bob")
	if !errors.Is(err, store.ErrCannotSave) {
		t.Errorf("new player on a full disk: %v; want ErrCannotSave", err)
	}
	if err := s.Health(ctx); !errors.Is(err, store.ErrCannotSave) {
		t.Errorf("Health after a failed write: %v; want ErrCannotSave", err)
	}
	if n, err := s.CountPlayers(ctx); err != nil || n != 1 {
		t.Errorf("reads after a failed write: %d players, %v", n, err)
	}
}

// TestHealthNamesTheDamagedBucket writes garbage over a page of the
// matches bucket in a real file, as a disk error would, and expects
// Health to fail naming that bucket, while the players bucket still reads.
func TestHealthNamesTheDamagedBucket(t *testing.T) {
	path, _ := filledDB(t)
	s := openTest(t, path, Options{})
	corruptBucket(t, s, bucketPlayers)
	err := s.Health(ctx)
	var de *store.BucketDamageError
	if !errors.As(err, &de) || de.Bucket != bucketPlayers || !errors.Is(err, store.ErrDamaged) {
		t.Fatalf("Health: %v; want damage in bucket %q", err, bucketPlayers)
	}
	if _, err := s.SchemaVersion(ctx); err != nil {
		t.Errorf("the meta bucket no longer reads: %v", err)
	}
	// A read of the damaged bucket is an error, not a panic that ends the
	// session (or the server, from a shared worker).
	if _, err := s.PlayerByFingerprint(ctx, "SHA256:fp00042"); !errors.Is(err, store.ErrDamaged) {
		t.Errorf("reading a player from the damaged bucket: %v; want ErrDamaged", err)
	}
	if _, err := s.CountPlayers(ctx); !errors.Is(err, store.ErrDamaged) {
		t.Errorf("counting players in the damaged bucket: %v; want ErrDamaged", err)
	}
}

// corruptBucket overwrites the root page of bucket name, while s has the
// file open, with bytes no page has: bbolt maps the file shared, so the
// running store sees the damage at once, as after a bad sector.
func corruptBucket(t *testing.T, s *Store, name string) {
	t.Helper()
	var pgid, pageSize int64
	if err := s.db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(name))
		if b == nil {
			return fmt.Errorf("no bucket %q", name)
		}
		pgid, pageSize = int64(b.Root()), int64(tx.DB().Info().PageSize)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if pgid == 0 {
		t.Fatalf("bucket %q is inline: no page of its own to damage", name)
	}
	f, err := os.OpenFile(s.Path(), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	garbage := make([]byte, pageSize)
	for i := range garbage {
		garbage[i] = byte(i*7 + 3)
	}
	if _, err := f.WriteAt(garbage, pgid*pageSize); err != nil {
		t.Fatal(err)
	}
}

// TestLoginOnAFullFilesystem fills a real (tmpfs) filesystem under a live
// store: new players are refused with ErrCannotSave once the file cannot
// grow, known players still log in, Health says so, and all is well again
// once space is freed. Root only (it mounts a tmpfs).
func TestLoginOnAFullFilesystem(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("mounting a small tmpfs needs root; TestLoginWhenNothingCanBeSaved covers the same without it")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	s, err := Open(filepath.Join(dir, "termarena.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustLogin(t, s, "SHA256:admin", "admin-ann")
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := f.Write(make([]byte, 4096)); err != nil {
			break
		}
	}
	f.Close()
	full := -1
	for i := range 1000 {
		if _, _, err := s.Login(ctx, fmt.Sprintf("SHA256:new%d", i), "ssh-ed25519", fmt.Sprintf("new%d", i)); err != nil {
			if !errors.Is(err, store.ErrCannotSave) {
				t.Fatalf("new player %d on a full disk: %v; want ErrCannotSave", i, err)
			}
			full = i
			break
		}
	}
	if full < 0 {
		t.Fatal("1,000 new players fitted on a full 256 KB filesystem")
	}
	if err := s.Health(ctx); !errors.Is(err, store.ErrCannotSave) {
		t.Errorf("Health on a full disk: %v", err)
	}
	for range 20 {
		if p, _, err := s.Login(ctx, "SHA256:admin", "ssh-ed25519", "admin-ann"); err != nil || p.Name != "admin-ann" {
			t.Fatalf("known player on a full disk: %+v %v", p, err)
		}
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Login(ctx, fmt.Sprintf("SHA256:new%d", full), "ssh-ed25519", "later"); err != nil {
		t.Fatalf("new player once space is free: %v", err)
	}
	if err := s.Health(ctx); err != nil {
		t.Errorf("Health once space is free: %v", err)
	}
}

// TestMatchKeepsItsReplayOrNeither: a match recorded with its replay keeps
// it, in the same transaction; on a file that takes no writes (a full
// disk) RecordMatch fails with ErrCannotSave and leaves neither, so no
// match is ever saved claiming no replay while its replay was lost.
func TestMatchKeepsItsReplayOrNeither(t *testing.T) {
	path := dbPath(t)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, fp := range []string{fpAlice, fpBob} {
		mustLogin(t, s, fp, strings.TrimPrefix(fp, "SHA256:"))
	}
	m := duel(fpAlice, fpBob)
	saved, err := s.RecordMatch(ctx, store.MatchEnd{Match: m, Rate: shift(8, -8), Replay: []byte("replay one")})
	if err != nil || !saved.Replay {
		t.Fatalf("recorded with a replay: Replay=%v, %v", saved.Replay, err)
	}
	if got, err := s.Replay(ctx, saved.ID); err != nil || string(got) != "replay one" {
		t.Errorf("Replay(%d) = %q, %v", saved.ID, got, err)
	}
	s.Close()

	s = openTest(t, path, Options{openFile: readOnlyFile})
	if _, err := s.RecordMatch(ctx, store.MatchEnd{Match: m, Rate: shift(8, -8), Replay: []byte("replay two")}); !errors.Is(err, store.ErrCannotSave) {
		t.Fatalf("RecordMatch on a full disk: %v; want ErrCannotSave", err)
	}
	s.Close()
	s = openTest(t, path, Options{})
	ms, err := s.Matches(ctx, fpAlice, 10)
	if err != nil || len(ms) != 1 || ms[0].ID != saved.ID {
		t.Errorf("after the failed write: matches %+v, %v; want only the first", ms, err)
	}
	if _, err := s.Replay(ctx, saved.ID+1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a replay of the unsaved match: %v", err)
	}
}

// BenchmarkHealth is the cost of one store check (the server runs one
// every --store-check-interval) on a file of 3,000 players.
func BenchmarkHealth(b *testing.B) {
	path, _ := filledDB(b)
	s, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for b.Loop() {
		if err := s.Health(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
