package bolt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

// bucketLeaves holds each ranked leaver's strikes, keyed by fingerprint,
// so a restart does not forgive every leaver their queue cooldown.
const bucketLeaves = "leaves"

type leavesRecord struct {
	V       int       `json:"v"`
	Strikes int       `json:"strikes"`
	Last    time.Time `json:"last"`
	Until   time.Time `json:"until"`
}

func (r leavesRecord) version() int { return r.V }

// PutLeaves replaces fp's leave record.
func (s *Store) PutLeaves(ctx context.Context, fp string, l store.Leaves) error {
	raw, err := encodeLeaves(fp, l)
	if err != nil {
		return fmt.Errorf("store: put leaves: %w", err)
	}
	err = s.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucketLeaves))
		if b == nil {
			return fmt.Errorf("bucket %s missing", bucketLeaves)
		}
		return b.Put([]byte(fp), raw)
	})
	if err != nil {
		return fmt.Errorf("store: put leaves of %s: %w", fp, err)
	}
	return nil
}

// encodeLeaves is fp's leave record as stored.
func encodeLeaves(fp string, l store.Leaves) ([]byte, error) {
	if err := store.CheckFingerprint(fp); err != nil {
		return nil, err
	}
	raw, err := json.Marshal(leavesRecord{V: recordVersion, Strikes: l.Strikes, Last: l.Last.UTC(), Until: l.Until.UTC()})
	if err != nil {
		return nil, fmt.Errorf("encode leaves of %s: %w", fp, err)
	}
	return raw, nil
}

// LoadLeaves returns every stored leave record by fingerprint, and deletes
// those stale says are no longer worth keeping (strikes forgiven and
// cooldown over), in the same transaction. A record that cannot be decoded
// is an error: skipping it would forgive a leaver silently.
func (s *Store) LoadLeaves(ctx context.Context, stale func(store.Leaves) bool) (map[string]store.Leaves, error) {
	out, err := s.loadLeaves(ctx, stale, true)
	if errors.Is(err, store.ErrCannotSave) {
		// A full disk must not stop the server starting: the stale
		// entries stay until a later start can drop them.
		out, err = s.loadLeaves(ctx, stale, false)
	}
	return out, err
}

func (s *Store) loadLeaves(ctx context.Context, stale func(store.Leaves) bool, prune bool) (map[string]store.Leaves, error) {
	out := map[string]store.Leaves{}
	run := s.update
	if !prune {
		run = s.view
	}
	err := run(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucketLeaves))
		if b == nil {
			return fmt.Errorf("bucket %s missing", bucketLeaves)
		}
		var drop [][]byte
		err := b.ForEach(func(k, v []byte) error {
			r, err := decodeRecord[leavesRecord](v, "leaves")
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			l := store.Leaves{Strikes: r.Strikes, Last: r.Last, Until: r.Until}
			if stale != nil && stale(l) {
				drop = append(drop, append([]byte(nil), k...))
				return nil
			}
			out[string(k)] = l
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range drop {
			if !prune {
				break
			}
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: leaves: %w", err)
	}
	return out, nil
}
