package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

const (
	// bucketReplays maps matchKey(id) to the encoded replay. Unlike every
	// other value these bytes are not JSON: the spectator package's
	// encoding carries its own magic and format version, and the store
	// treats it as opaque.
	bucketReplays = "replays"

	// defaultPruneBatch is how many replays PruneReplays reads or deletes
	// per transaction: small enough that the writer lock (and a read
	// transaction's hold on the file's pages) is brief, large enough that
	// pruning thousands takes a handful of commits.
	defaultPruneBatch = 256

	// stagePruneBatch is passed to the test hook at the end of each of
	// PruneReplays' delete transactions, before it commits.
	stagePruneBatch = "prune-batch"
)

// PutReplay stores data as the replay of match matchID, replacing any
// earlier one, and sets that match's Replay flag in the same transaction,
// so a match never claims a replay that is not there. An unknown match is
// ErrNotFound. data is copied; the caller may reuse it.
func (s *Store) PutReplay(ctx context.Context, matchID uint64, data []byte) error {
	if len(data) == 0 {
		return fmt.Errorf("store: put replay of match %d: empty replay", matchID)
	}
	if len(data) > store.MaxReplayLen {
		return fmt.Errorf("store: put replay of match %d: %d bytes, at most %d", matchID, len(data), store.MaxReplayLen)
	}
	// bbolt keeps a reference to the value until commit; a copy means a
	// caller reusing its buffer from another goroutine cannot change what
	// gets written.
	data = bytes.Clone(data)
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		matches, replays, err := replayBuckets(tx)
		if err != nil {
			return err
		}
		if err := setReplayFlag(matches, matchID, true); err != nil {
			return err
		}
		if err := replays.Put(matchKey(matchID), data); err != nil {
			return fmt.Errorf("write replay: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: put replay of match %d: %w", matchID, err)
	}
	return nil
}

// Replay returns a copy of match matchID's replay, or ErrNotFound.
func (s *Store) Replay(ctx context.Context, matchID uint64) ([]byte, error) {
	var out []byte
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		_, replays, err := replayBuckets(tx)
		if err != nil {
			return err
		}
		raw := replays.Get(matchKey(matchID))
		if raw == nil {
			return store.ErrNotFound
		}
		out = bytes.Clone(raw)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: replay of match %d: %w", matchID, err)
	}
	return out, nil
}

// PruneReplays deletes every replay that is both older than keepFor (its
// match ended before now−keepFor) and not among the keepPerPlayer newest
// replays of any keyed player in that match, clears those matches' Replay
// flags, and reports how many it deleted. keepFor 0 makes age no
// protection; keepPerPlayer 0 makes recency none.
//
// It works in small transactions (see defaultPruneBatch) so the server
// keeps recording matches while it runs: first it reads the replays newest
// to oldest in batches, counting each player's, then it deletes the chosen
// ones in batches. A replay stored meanwhile is newer than all it read, so
// it can only push older replays further out of a player's newest few:
// everything chosen stays safe to delete. On an error, the batches already
// committed stay deleted and the count says how many.
//
// A replay whose match record is missing is never deleted: without the
// record there is no age or player list to judge it by.
//
// Pruning reads every replay's page and many match records, so it is what
// meets a damaged page first, on a server that has long been serving: a
// page bbolt panics or faults on ends this call with a *BucketDamageError
// naming the bucket (replays or matches) whose pages do not read, instead
// of ending the process.
func (s *Store) PruneReplays(ctx context.Context, keepPerPlayer int, keepFor time.Duration, now time.Time) (n int, err error) {
	if keepPerPlayer < 0 || keepFor < 0 {
		return 0, fmt.Errorf("store: prune replays: negative keep (%d per player, %s)", keepPerPlayer, keepFor)
	}
	err = guarded("pruning replays", func() error {
		var err error
		n, err = s.pruneReplays(ctx, keepPerPlayer, now.Add(-keepFor))
		return err
	})
	if errors.Is(err, store.ErrDamaged) {
		var de *store.BucketDamageError
		if !errors.As(err, &de) {
			err = s.bucketDamage(err, bucketReplays, bucketMatches)
		}
		return n, fmt.Errorf("store: prune replays: %w", err)
	}
	return n, err
}

// bucketDamage names, in a *BucketDamageError wrapping err, the first of
// buckets whose pages do not read (as Health walks them); err as it is
// when they all read.
func (s *Store) bucketDamage(err error, buckets ...string) error {
	for _, name := range buckets {
		werr := guarded("reading it", func() error {
			return s.db.View(func(tx *bbolt.Tx) error {
				if b := tx.Bucket([]byte(name)); b != nil {
					return walk(b)
				}
				return nil
			})
		})
		if werr != nil {
			return &store.BucketDamageError{Bucket: name, Err: err}
		}
	}
	return err
}

func (s *Store) pruneReplays(ctx context.Context, keepPerPlayer int, cutoff time.Time) (int, error) {
	doomed, err := s.pruneCandidates(ctx, keepPerPlayer, cutoff)
	if err != nil {
		return 0, fmt.Errorf("store: prune replays: %w", err)
	}
	batch := s.pruneBatchSize()
	deleted := 0
	for start := 0; start < len(doomed); start += batch {
		ids := doomed[start:min(start+batch, len(doomed))]
		n := 0
		err := s.update(ctx, func(tx *bbolt.Tx) error {
			n = 0
			matches, replays, err := replayBuckets(tx)
			if err != nil {
				return err
			}
			for _, id := range ids {
				key := matchKey(id)
				if replays.Get(key) == nil {
					continue
				}
				if err := replays.Delete(key); err != nil {
					return fmt.Errorf("delete replay %d: %w", id, err)
				}
				if err := setReplayFlag(matches, id, false); err != nil {
					return err
				}
				n++
			}
			return s.testFail(stagePruneBatch)
		})
		if err != nil {
			return deleted, fmt.Errorf("store: prune replays: after deleting %d: %w", deleted, err)
		}
		deleted += n
	}
	return deleted, nil
}

// pruneCandidates walks the replays newest first, batch by batch, and
// returns the ids PruneReplays should delete, newest first.
func (s *Store) pruneCandidates(ctx context.Context, keepPerPlayer int, cutoff time.Time) ([]uint64, error) {
	batch := s.pruneBatchSize()
	seen := map[string]int{} // replays of each player newer than the current one
	var doomed []uint64
	var last []byte // key the previous batch stopped at; nil before the first
	for done := false; !done; {
		err := s.view(ctx, func(tx *bbolt.Tx) error {
			matches, replays, err := replayBuckets(tx)
			if err != nil {
				return err
			}
			c := replays.Cursor()
			var k []byte
			if last == nil {
				k, _ = c.Last()
			} else if k, _ = c.Seek(last); k == nil {
				k, _ = c.Last()
			} else {
				// Seek lands on last itself, or on the next key up if
				// last is gone; either way the one before is next.
				k, _ = c.Prev()
			}
			for i := 0; i < batch && k != nil; i++ {
				key := k
				k, _ = c.Prev()
				if len(key) != 8 {
					return fmt.Errorf("%s key %x: bad length", bucketReplays, key)
				}
				id := binary.BigEndian.Uint64(key)
				last = matchKey(id) // a copy: k is bbolt's memory
				m, err := getMatch(matches, id)
				if errors.Is(err, store.ErrNotFound) {
					continue
				}
				if err != nil {
					return fmt.Errorf("match %d: %w", id, err)
				}
				recent := false
				for _, p := range m.Players {
					if p.Fingerprint == "" {
						continue
					}
					if seen[p.Fingerprint] < keepPerPlayer {
						recent = true
					}
					seen[p.Fingerprint]++
				}
				if !recent && m.Start.Add(m.Duration).Before(cutoff) {
					doomed = append(doomed, id)
				}
			}
			done = k == nil
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return doomed, nil
}

func (s *Store) pruneBatchSize() int {
	if s.pruneBatch > 0 {
		return s.pruneBatch
	}
	return defaultPruneBatch
}

// setReplayFlag rewrites match id's record with Replay set to on, leaving
// it untouched when it already says so.
func setReplayFlag(matches *bbolt.Bucket, id uint64, on bool) error {
	key := matchKey(id)
	raw := matches.Get(key)
	if raw == nil {
		return fmt.Errorf("match %d: %w", id, store.ErrNotFound)
	}
	rec, err := decodeMatch(raw)
	if err != nil {
		return fmt.Errorf("match %d: %w", id, err)
	}
	if rec.Replay == on {
		return nil
	}
	rec.Replay = on
	enc, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode match %d: %w", id, err)
	}
	if err := matches.Put(key, enc); err != nil {
		return fmt.Errorf("write match %d: %w", id, err)
	}
	return nil
}

func replayBuckets(tx *bbolt.Tx) (matches, replays *bbolt.Bucket, err error) {
	matches = tx.Bucket([]byte(bucketMatches))
	replays = tx.Bucket([]byte(bucketReplays))
	if matches == nil || replays == nil {
		// Open's migrations create both, so this means the file was
		// altered behind our back.
		return nil, nil, fmt.Errorf("bucket %s or %s missing", bucketMatches, bucketReplays)
	}
	return matches, replays, nil
}
