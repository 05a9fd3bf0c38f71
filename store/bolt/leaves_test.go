package bolt

import (
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

// Leave records survive closing the file; spent ones are dropped as they
// are loaded, and a record of an unknown version is refused, not skipped
// (that would forgive a leaver silently).
func TestLeavesRoundTripAndPrune(t *testing.T) {
	path := dbPath(t)
	s := openTest(t, path, Options{})
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	live := store.Leaves{Strikes: 2, Last: t0, Until: t0.Add(5 * time.Minute)}
	if err := s.PutLeaves(ctx, "SHA256:live", live); err != nil {
		t.Fatal(err)
	}
	if err := s.PutLeaves(ctx, "SHA256:spent", store.Leaves{Strikes: 1, Last: t0.Add(-48 * time.Hour), Until: t0.Add(-48 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutLeaves(ctx, "bad fp", live); err == nil {
		t.Fatal("a leave record under a malformed fingerprint was stored")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openTest(t, path, Options{})
	got, err := s.LoadLeaves(ctx, func(l store.Leaves) bool { return l.Strikes == 1 })
	if err != nil || len(got) != 1 || !got["SHA256:live"].Until.Equal(live.Until) || got["SHA256:live"].Strikes != 2 {
		t.Fatalf("loaded %+v, %v; want only the live record", got, err)
	}
	if got, err := s.LoadLeaves(ctx, nil); err != nil || len(got) != 1 {
		t.Fatalf("the spent record was not deleted: %+v %v", got, err)
	}
	if err := s.DB().Update(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte(bucketLeaves)).Put([]byte("SHA256:new"), []byte(`{"v":9,"strikes":3}`))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LoadLeaves(ctx, nil); err == nil {
		t.Fatal("a leave record of an unknown version was read")
	}
}

// A file written before leave records were kept opens, gains the bucket,
// and keeps what it had.
func TestMigration4AddsLeavesToASchema3File(t *testing.T) {
	path := dbPath(t)
	s := openWithTest(t, path, migrations()[:3])
	mustLogin(t, s, fpAlice, "alice")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openWithTest(t, path, migrations()[:4])
	t.Cleanup(func() { _ = s.Close() })
	if v, err := s.SchemaVersion(ctx); err != nil || v != 4 {
		t.Fatalf("schema after upgrade %d, %v; want 4", v, err)
	}
	if got, err := s.LoadLeaves(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("leaves of an upgraded file: %+v %v", got, err)
	}
	if err := s.PutLeaves(ctx, fpAlice, store.Leaves{Strikes: 1}); err != nil {
		t.Fatal(err)
	}
	if p, err := s.PlayerByName(ctx, "alice"); err != nil || p.Fingerprint != fpAlice {
		t.Fatalf("alice after the upgrade: %+v %v", p, err)
	}
}
