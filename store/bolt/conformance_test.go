package bolt

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/storetest"
)

// TestConformance holds the bbolt file to the contract every backend
// keeps (store/storetest). One handle at a time holds the file's lock,
// so the suite's "second handle" is the same file reopened.
func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Backend{
		Open: func(t *testing.T, now func() time.Time) store.Store {
			return openTest(t, filepath.Join(t.TempDir(), "termarena.db"), Options{Now: now})
		},
		Again: func(t *testing.T, s store.Store) store.Store {
			bs := s.(*Store)
			return openTest(t, bs.Path(), Options{Now: bs.now})
		},
		Exclusive: true,
	})
}
