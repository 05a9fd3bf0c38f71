package bolt

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

// ctx is what the tests call the store with: none of them cancels it
// (the ones that cancel make their own).
var ctx = context.Background()

// fakeClock lets tests move time by hand; Login may read it from many
// goroutines.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func dbPath(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "termarena.db")
}

func openTest(t *testing.T, path string, opts Options) *Store {
	t.Helper()
	s, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func mustLogin(t *testing.T, s *Store, fp, user string) store.Player {
	t.Helper()
	p, _, err := s.Login(ctx, fp, "ssh-ed25519", user)
	if err != nil {
		t.Fatalf("Login(%q, %q): %v", fp, user, err)
	}
	return p
}

// checkIndex asserts that players and names are exact mirrors: every player's
// name points back at it and no name points anywhere else.
func checkIndex(t *testing.T, s *Store) {
	t.Helper()
	err := s.DB().View(func(tx *bbolt.Tx) error {
		players, names, err := playerBuckets(tx)
		if err != nil {
			return err
		}
		nPlayers := 0
		err = players.ForEach(func(k, v []byte) error {
			nPlayers++
			rec, err := decodePlayer(v)
			if err != nil {
				return err
			}
			if got := string(names.Get([]byte(rec.Name))); got != string(k) {
				t.Errorf("names[%q] = %q, want %q", rec.Name, got, k)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if n := names.Stats().KeyN; n != nPlayers {
			t.Errorf("names index has %d entries, players %d", n, nPlayers)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("checkIndex: %v", err)
	}
}
