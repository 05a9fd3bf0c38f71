package bolt

import (
	"path/filepath"
	"testing"

	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/storebench"
)

// The store benchmarks every backend runs (store/storebench), on a bbolt
// file in a temporary dir: set beside store/postgres's in BENCHMARKS.md.
func BenchmarkStore(b *testing.B) {
	storebench.Run(b, func(b *testing.B) store.Store {
		s, err := Open(filepath.Join(b.TempDir(), "termarena.db"), Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}, nil)
}
