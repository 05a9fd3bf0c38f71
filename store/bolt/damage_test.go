package bolt

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

// filledDB writes a real data file with a few thousand players, closes it, and returns its path and the bytes its pages use
// (what the meta page records: pages × page size).
func filledDB(t testing.TB) (string, int64) {
	t.Helper()
	path := dbPath(t)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Concurrent logins share transactions (Login batches), as a login
	// storm does, so this takes a moment rather than 3,000 fsyncs.
	var wg sync.WaitGroup
	errs := make(chan error, 3000)
	for i := range 3000 {
		wg.Go(func() {
			if _, _, err := s.Login(ctx, fmt.Sprintf("SHA256:fp%05d", i), "ssh-ed25519", fmt.Sprintf("p%05d", i)); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var used int64
	if err := s.db.View(func(tx *bbolt.Tx) error { used = tx.Size(); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path, used
}

// TestOpenRefusesATruncatedFile cuts a real file short at 5, 50 and 95 % of
// what its pages use: bbolt itself panics ("invalid freelist page") or
// faults (SIGSEGV/SIGBUS on a page past the end) on such files, which ends
// the process; Open must instead say the file is damaged.
func TestOpenRefusesATruncatedFile(t *testing.T) {
	orig, used := filledDB(t)
	data, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	for _, pct := range []int64{5, 50, 95} {
		t.Run(fmt.Sprintf("%d%%", pct), func(t *testing.T) {
			path := dbPath(t)
			if err := os.WriteFile(path, data[:used*pct/100], 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(path, Options{})
			if err == nil {
				s.Close()
				t.Fatal("Open accepted a file cut short")
			}
			if !errors.Is(err, store.ErrDamaged) || !strings.Contains(err.Error(), path) {
				t.Errorf("Open: %v; want an error naming the file and wrapping ErrDamaged", err)
			}
		})
	}
}

// TestOpenRefusesADamagedMetaPage: with both meta pages garbled, bbolt
// cannot know the file's layout; Open says the file is damaged. With only
// one garbled (a torn write of the newer one), bbolt falls back to the
// other, and so does Open.
func TestOpenRefusesDamagedMetaPages(t *testing.T) {
	orig, _ := filledDB(t)
	data, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	ps := int(bbolt.Options{}.PageSize)
	if ps == 0 {
		ps = os.Getpagesize()
	}
	garble := func(b []byte, at int) { copy(b[at+40:at+64], "garbage garbage garbage!") }

	one := append([]byte(nil), data...)
	garble(one, 0)
	path := dbPath(t)
	if err := os.WriteFile(path, one, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("one meta page garbled: %v", err)
	}
	// The other meta page may be the one before the last transaction, so
	// the last batch of logins may be missing, but the rest reads.
	if n, err := s.CountPlayers(ctx); err != nil || n == 0 {
		t.Errorf("one meta page garbled: %d players, %v", n, err)
	}
	s.Close()

	both := append([]byte(nil), one...)
	garble(both, ps)
	if err := os.WriteFile(path, both, 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(path, Options{}); err == nil {
		s.Close()
		t.Fatal("Open accepted a file with both meta pages garbled")
	} else if !errors.Is(err, store.ErrDamaged) {
		t.Errorf("both meta pages garbled: %v; want ErrDamaged", err)
	}
}

// TestOpenRefusesAnEmptyFile: an existing 0-byte file is not a new server.
// bbolt would make an empty database of it and the server would start with
// every player, rating and ban gone; Open refuses and leaves it as it is.
func TestOpenRefusesAnEmptyFile(t *testing.T) {
	path := dbPath(t)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, Options{})
	if err == nil {
		s.Close()
		t.Fatal("Open made a new database of an empty file")
	}
	if !errors.Is(err, store.ErrEmptyFile) || !strings.Contains(err.Error(), path) {
		t.Errorf("Open: %v; want ErrEmptyFile naming the file", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Errorf("the empty file was changed: %v %v", fi.Size(), err)
	}
}

// TestOpenSaysWhenItCreatesTheFile: Created is what the server logs, true
// only for the start that made the file.
func TestOpenSaysWhenItCreatesTheFile(t *testing.T) {
	path := dbPath(t)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Created() {
		t.Error("first Open: Created() = false")
	}
	mustLogin(t, s, "SHA256:a", "alice")
	s.Close()
	s = openTest(t, path, Options{})
	if s.Created() {
		t.Error("second Open: Created() = true")
	}
	if n, err := s.CountPlayers(ctx); err != nil || n != 1 {
		t.Errorf("reopened: %d players, %v", n, err)
	}
}

// TestOpenTurnsAPageFaultIntoAnError: a file of the right length whose
// freelist page is garbage passes the length check, and bbolt panics on it
// while opening ("invalid freelist page"); Open recovers and says the file
// is damaged instead of ending the process.
func TestOpenTurnsABadPageIntoAnError(t *testing.T) {
	orig, _ := filledDB(t)
	data, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	m0, err := parseMeta(data)
	if err != nil {
		t.Fatal(err)
	}
	m1, err := parseMeta(data[m0.pageSize:])
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []boltMeta{m0, m1} {
		at := int(m.freelist) * int(m.pageSize)
		copy(data[at:at+int(m.pageSize)], strings.Repeat("\xff", int(m.pageSize)))
	}
	path := dbPath(t)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, Options{})
	if err == nil {
		s.Close()
		t.Fatal("Open accepted a garbage freelist page")
	}
	if !errors.Is(err, store.ErrDamaged) || !strings.Contains(err.Error(), "opening it") {
		t.Errorf("Open: %v; want ErrDamaged while opening it", err)
	}
}
