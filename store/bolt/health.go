package bolt

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

// writeFailure is the last commit that failed, kept until one succeeds.
type writeFailure struct {
	at  time.Time
	err error
}

// update runs fn in a write transaction, batch in one bbolt may share with
// concurrent callers. An error fn returns comes back as it is; a commit
// that fails is wrapped in ErrCannotSave and remembered, so Health reports
// it until a later commit succeeds.
func (s *Store) update(ctx context.Context, fn func(*bbolt.Tx) error) error {
	return s.write(ctx, s.db.Update, fn)
}

func (s *Store) batch(ctx context.Context, fn func(*bbolt.Tx) error) error {
	return s.write(ctx, s.db.Batch, fn)
}

// write checks ctx before it starts: bbolt itself takes no context, and
// its transactions are short, so a caller that has given up is refused at
// the door rather than interrupted.
func (s *Store) write(ctx context.Context, do func(func(*bbolt.Tx) error) error, fn func(*bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var fnErr error
	called, returned := false, false
	// A damaged page panics inside bbolt: in fn (Batch hands that back as
	// an error, then reruns fn alone with Update, which does not), or in
	// the commit. Either way it becomes an error wrapping ErrDamaged.
	err := guarded("writing it", func() error {
		return do(func(tx *bbolt.Tx) error {
			called, returned = true, false
			fnErr = fn(tx)
			returned = true
			return fnErr
		})
	})
	switch {
	case err == nil:
		s.writeFailed.Store(nil)
		return nil
	case errors.Is(err, store.ErrDamaged):
		return err
	case called && !returned:
		return fmt.Errorf("%w: %v", store.ErrDamaged, err)
	case fnErr != nil, errors.Is(err, bbolt.ErrDatabaseNotOpen):
		return err
	case errors.Is(err, bbolt.ErrDatabaseReadOnly):
		return fmt.Errorf("%w: opened read-only: %w", store.ErrCannotSave, err)
	}
	s.writeFailed.Store(&writeFailure{at: s.now().UTC(), err: err})
	return fmt.Errorf("%w: %w", store.ErrCannotSave, err)
}

// view runs fn in a read transaction. A page bbolt panics or faults on
// (garbage where a page of the bucket should be) becomes an error wrapping
// ErrDamaged, so the command that met it fails with an error, as any other
// store error, rather than a panic that ends the session, or the process
// when the reader is a shared worker.
func (s *Store) view(ctx context.Context, fn func(*bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return guarded("reading it", func() error { return s.db.View(fn) })
}

// Health tells a store that works from one that does not: nil, an error
// wrapping ErrCannotSave while the last write failed (a full disk), or a
// *BucketDamageError (matching ErrDamaged) naming the first bucket whose
// pages cannot be read. It walks every key of every bucket in one read
// transaction — what a command reading that bucket would touch, without
// decoding values — so it costs about a millisecond per few thousand
// records and takes no writer lock; run it every few seconds, not per
// request.
func (s *Store) Health(ctx context.Context) error {
	if wf := s.writeFailed.Load(); wf != nil {
		return fmt.Errorf("%w: the last write, at %s, failed: %w", store.ErrCannotSave, wf.at.Format(time.RFC3339), wf.err)
	}
	var bucket string
	err := guarded("reading it", func() error {
		return s.db.View(func(tx *bbolt.Tx) error {
			return tx.ForEach(func(name []byte, b *bbolt.Bucket) error {
				bucket = string(name)
				return walk(b)
			})
		})
	})
	if err == nil {
		return nil
	}
	if bucket == "" {
		return fmt.Errorf("store: health: %w", err)
	}
	if !errors.Is(err, store.ErrDamaged) {
		err = fmt.Errorf("%w: %w", store.ErrDamaged, err)
	}
	return &store.BucketDamageError{Bucket: bucket, Err: err}
}

// walk visits every key of b and of the buckets nested in it. bbolt
// panics (or faults) on a page that is not what its parent says it is;
// Health's guard turns that into an error.
func walk(b *bbolt.Bucket) error {
	return b.ForEach(func(k, v []byte) error {
		if v != nil {
			return nil
		}
		if nb := b.Bucket(k); nb != nil {
			return walk(nb)
		}
		return nil
	})
}
