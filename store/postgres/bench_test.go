package postgres

import (
	"context"
	"testing"

	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/postgres/pgtest"
	"github.com/termarena/termarena/store/storebench"
)

// go test -run '^$' -bench . ./store/postgres/ (beside a server: see
// pgtest); store/bolt runs the same set.
func BenchmarkStore(b *testing.B) {
	storebench.Run(b, func(b *testing.B) store.Store {
		s, err := Open(context.Background(), pgtest.URL(b), Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}, func(b *testing.B, s store.Store) {
		// A benchmark seeds and reads within a second; a server's tables
		// are analysed by autovacuum as they grow.
		if _, err := s.(*Store).pool.Exec(context.Background(), "ANALYZE"); err != nil {
			b.Fatal(err)
		}
	})
}
