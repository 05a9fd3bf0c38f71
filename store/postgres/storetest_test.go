package postgres

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/postgres/pgtest"
	"github.com/termarena/termarena/store/storetest"
)

// TestStoretest holds PostgreSQL to the contract every backend keeps
// (store/storetest): each test gets a fresh database, and the suite's
// second handle is a second pool on it, as a second node would have.
func TestStoretest(t *testing.T) {
	pgtest.URL(t) // skips the suite, not each of its tests, without a server
	var mu sync.Mutex
	type opened struct {
		url string
		now func() time.Time
	}
	stores := map[store.Store]opened{}
	openOn := func(t *testing.T, url string, now func() time.Time) store.Store {
		s, err := Open(context.Background(), url, Options{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		mu.Lock()
		stores[s] = opened{url, now}
		mu.Unlock()
		return s
	}
	storetest.Run(t, storetest.Backend{
		Open: func(t *testing.T, now func() time.Time) store.Store { return openOn(t, pgtest.URL(t), now) },
		Again: func(t *testing.T, s store.Store) store.Store {
			mu.Lock()
			o := stores[s]
			mu.Unlock()
			return openOn(t, o.url, o.now)
		},
	})
}
