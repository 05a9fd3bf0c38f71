package bolt

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

const fpDave = "SHA256:dave"

// casual is an unranked match of the given players (a "" is a guest)
// that started at start and lasted a minute.
func casual(start time.Time, fps ...string) store.MatchRecord {
	m := store.MatchRecord{Mode: "casual-1v1", Start: start, Duration: time.Minute}
	for i, fp := range fps {
		m.Players = append(m.Players, store.MatchPlayer{Fingerprint: fp, Slot: i, Place: i + 1})
	}
	return m
}

func replayBytes(id uint64) []byte { return []byte(fmt.Sprintf("TMRP replay of %d", id)) }

func TestReplayPutGet(t *testing.T) {
	s := openPlayers(t, Options{})
	m := mustRecord(t, s, casual(time.Now(), fpAlice, fpBob), nil)
	if m.Replay {
		t.Fatal("fresh match claims a replay")
	}
	data := replayBytes(m.ID)
	if err := s.PutReplay(ctx, m.ID, data); err != nil {
		t.Fatal(err)
	}
	want := bytes.Clone(data)
	data[0] = 'X' // the store must have copied it

	got, err := s.Replay(ctx, m.ID)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Replay = %q, %v; want %q", got, err, want)
	}
	got[0] = 'Y' // and hand out a copy
	if again, _ := s.Replay(ctx, m.ID); !bytes.Equal(again, want) {
		t.Errorf("changing a returned replay changed the store: %q", again)
	}
	if stored, err := s.Match(ctx, m.ID); err != nil || !stored.Replay {
		t.Errorf("match after PutReplay = %+v, %v; want Replay set", stored, err)
	}

	if _, err := s.Replay(ctx, m.ID+1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Replay(no replay) err = %v, want ErrNotFound", err)
	}
	if err := s.PutReplay(ctx, m.ID+1, []byte("x")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PutReplay(unknown match) err = %v, want ErrNotFound", err)
	}
	if err := s.PutReplay(ctx, m.ID, nil); err == nil {
		t.Error("PutReplay accepted an empty replay")
	}
	if err := s.PutReplay(ctx, m.ID, make([]byte, store.MaxReplayLen+1)); err == nil {
		t.Error("PutReplay accepted an oversized replay")
	}
}

// pruneFixture records matches with replays and returns the store, the
// ids in recording order, and the time "now" is for pruning.
//
//	id  age    players          replay
//	1   10d    carol, bob       yes   carol's only replay: kept
//	2   10d    alice, bob       yes
//	3   10d    alice, guest     yes   guests protect nothing
//	4   10d    alice, bob       yes
//	5   10d    alice, bob       no    (does not count towards anyone's last 2)
//	6   10d    alice, bob       yes   alice's and bob's 2nd newest: kept
//	7   1h     dave, bob        yes   young: kept; bob's newest
//	8   1h     alice, dave      yes   young: kept; alice's newest
func pruneFixture(t *testing.T) (*Store, []uint64, time.Time) {
	t.Helper()
	s := openPlayers(t, Options{})
	mustLogin(t, s, fpDave, "dave")
	now := time.Date(2025, 3, 20, 12, 0, 0, 0, time.UTC)
	old, young := now.Add(-10*24*time.Hour), now.Add(-time.Hour)
	fixture := []struct {
		m      store.MatchRecord
		replay bool
	}{
		{casual(old, fpCarol, fpBob), true},
		{casual(old, fpAlice, fpBob), true},
		{casual(old, fpAlice, ""), true},
		{casual(old, fpAlice, fpBob), true},
		{casual(old, fpAlice, fpBob), false},
		{casual(old, fpAlice, fpBob), true},
		{casual(young, fpDave, fpBob), true},
		{casual(young, fpAlice, fpDave), true},
	}
	var ids []uint64
	for _, f := range fixture {
		m := mustRecord(t, s, f.m, nil)
		ids = append(ids, m.ID)
		if f.replay {
			if err := s.PutReplay(ctx, m.ID, replayBytes(m.ID)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s, ids, now
}

func replayIDs(t *testing.T, s *Store, ids []uint64) []uint64 {
	t.Helper()
	var out []uint64
	for _, id := range ids {
		_, err := s.Replay(ctx, id)
		has := err == nil
		switch {
		case has:
			out = append(out, id)
		case !errors.Is(err, store.ErrNotFound):
			t.Fatalf("Replay(%d): %v", id, err)
		}
		m, err := s.Match(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if m.Replay != has {
			t.Errorf("match %d Replay flag = %v, disagrees with the replays bucket", id, m.Replay)
		}
	}
	return out
}

func TestPruneReplays(t *testing.T) {
	s, ids, now := pruneFixture(t)
	s.pruneBatch = 2
	batches := 0
	s.failAfter = func(stage string) error {
		if stage == stagePruneBatch {
			batches++
		}
		return nil
	}

	n, err := s.PruneReplays(ctx, 2, 24*time.Hour, now)
	if err != nil || n != 3 {
		t.Fatalf("PruneReplays = %d, %v; want 3", n, err)
	}
	if got, want := replayIDs(t, s, ids), []uint64{ids[0], ids[5], ids[6], ids[7]}; !slices.Equal(got, want) {
		t.Errorf("replays left = %v, want %v", got, want)
	}
	if batches != 2 {
		t.Errorf("deleted in %d transactions, want 2 (batches of 2)", batches)
	}

	// Nothing more qualifies: a second run is a no-op.
	if n, err := s.PruneReplays(ctx, 2, 24*time.Hour, now); err != nil || n != 0 {
		t.Errorf("second PruneReplays = %d, %v; want 0", n, err)
	}
	// Keeping one per player frees alice's and bob's second newest.
	if n, err := s.PruneReplays(ctx, 1, 24*time.Hour, now); err != nil || n != 1 {
		t.Errorf("PruneReplays(1) = %d, %v; want 1", n, err)
	}
	if got, want := replayIDs(t, s, ids), []uint64{ids[0], ids[6], ids[7]}; !slices.Equal(got, want) {
		t.Errorf("replays left = %v, want %v", got, want)
	}
	// With no protection at all, only age matters.
	if n, err := s.PruneReplays(ctx, 0, 2*time.Hour, now); err != nil || n != 1 {
		t.Errorf("PruneReplays(0, 2h) = %d, %v; want 1", n, err)
	}
	if n, err := s.PruneReplays(ctx, 0, 0, now); err != nil || n != 2 {
		t.Errorf("PruneReplays(0, 0) = %d, %v; want 2", n, err)
	}
	if got := replayIDs(t, s, ids); len(got) != 0 {
		t.Errorf("replays left = %v, want none", got)
	}
	if _, err := s.PruneReplays(ctx, -1, 0, now); err == nil {
		t.Error("PruneReplays accepted a negative keep")
	}
}

func TestPruneReplaysKeepsCommittedBatches(t *testing.T) {
	s, ids, now := pruneFixture(t)
	s.pruneBatch = 1
	boom := errors.New("disk on fire")
	calls := 0
	s.failAfter = func(stage string) error {
		if stage != stagePruneBatch {
			return nil
		}
		if calls++; calls == 2 {
			return boom
		}
		return nil
	}
	n, err := s.PruneReplays(ctx, 2, 24*time.Hour, now)
	if !errors.Is(err, boom) || n != 1 {
		t.Fatalf("PruneReplays = %d, %v; want 1 and the batch's error", n, err)
	}
	// Newest candidate first: match 4 went in the first batch, match 3's
	// batch rolled back with its flag intact.
	if got, want := replayIDs(t, s, ids), []uint64{ids[0], ids[1], ids[2], ids[5], ids[6], ids[7]}; !slices.Equal(got, want) {
		t.Errorf("replays left = %v, want %v", got, want)
	}

	s.failAfter = nil
	if n, err := s.PruneReplays(ctx, 2, 24*time.Hour, now); err != nil || n != 2 {
		t.Errorf("retry = %d, %v; want the remaining 2", n, err)
	}
}

func TestPruneReplaysLeavesOrphans(t *testing.T) {
	s, ids, now := pruneFixture(t)
	s.pruneBatch = 3 // the scan spans several read transactions too
	// A replay whose match record is gone cannot be judged, so it stays.
	if err := s.DB().Update(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte(bucketMatches)).Delete(matchKey(ids[1]))
	}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.PruneReplays(ctx, 0, 0, now); err != nil || n != 6 {
		t.Errorf("PruneReplays = %d, %v; want 6", n, err)
	}
	if _, err := s.Replay(ctx, ids[1]); err != nil {
		t.Errorf("orphan replay was deleted: %v", err)
	}
}

// TestPruneNamesADamagedBucket: a page of the replays bucket goes bad under
// a running store (garbage written over it, as a bad sector would); bbolt
// panics on it, which used to end the server from the pruning goroutine.
// Pruning now fails with an error naming the bucket, and the store still
// answers for what does read.
func TestPruneNamesADamagedBucket(t *testing.T) {
	s := openPlayers(t, Options{})
	old := time.Now().Add(-48 * time.Hour)
	big := bytes.Repeat([]byte("replay "), 300) // the bucket gets pages of its own
	for range 20 {
		m := mustRecord(t, s, casual(old, fpAlice, fpBob), nil)
		if err := s.PutReplay(ctx, m.ID, big); err != nil {
			t.Fatal(err)
		}
	}
	corruptBucket(t, s, bucketReplays)
	_, err := s.PruneReplays(ctx, 0, time.Hour, time.Now())
	var de *store.BucketDamageError
	if !errors.As(err, &de) || de.Bucket != bucketReplays || !errors.Is(err, store.ErrDamaged) {
		t.Fatalf("PruneReplays on a damaged page: %v; want damage in bucket %q", err, bucketReplays)
	}
	if ms, err := s.Matches(ctx, fpAlice, 5); err != nil || len(ms) != 5 {
		t.Fatalf("the matches no longer read: %d, %v", len(ms), err)
	}
}
