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
	})
}
