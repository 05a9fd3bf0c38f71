package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/termarena/termarena/store"
)

// PutLeaves replaces fp's leave record.
func (s *Store) PutLeaves(ctx context.Context, fp string, l store.Leaves) error {
	if err := store.CheckFingerprint(fp); err != nil {
		return fmt.Errorf("store: put leaves: %w", err)
	}
	if err := s.write(ctx, func(tx pgx.Tx) error { return putLeaves(ctx, tx, fp, l) }); err != nil {
		return fmt.Errorf("store: put leaves of %s: %w", fp, err)
	}
	return nil
}

func putLeaves(ctx context.Context, tx pgx.Tx, fp string, l store.Leaves) error {
	_, err := tx.Exec(ctx, `INSERT INTO leaves (fingerprint, strikes, last_leave, cooldown) VALUES ($1, $2, $3, $4)
		ON CONFLICT (fingerprint) DO UPDATE SET strikes = excluded.strikes, last_leave = excluded.last_leave, cooldown = excluded.cooldown`,
		fp, l.Strikes, ts(l.Last), ts(l.Until))
	if err != nil {
		return fmt.Errorf("write leaves of %s: %w", fp, err)
	}
	return nil
}

// LoadLeaves is every stored leave record by fingerprint; those stale
// says are no longer worth keeping are deleted in the same transaction.
// A database that refuses writes still gives the records (the stale ones
// stay for a later start to drop), so it cannot keep the server from
// starting.
func (s *Store) LoadLeaves(ctx context.Context, stale func(store.Leaves) bool) (map[string]store.Leaves, error) {
	var out map[string]store.Leaves
	err := s.write(ctx, func(tx pgx.Tx) error {
		var drop []string
		var err error
		if out, drop, err = readLeaves(ctx, tx, stale, " FOR UPDATE"); err != nil || len(drop) == 0 {
			return err
		}
		_, err = tx.Exec(ctx, "DELETE FROM leaves WHERE fingerprint = ANY($1)", drop)
		return err
	})
	if err != nil && isCannotSave(err) {
		err = s.read(ctx, func(tx pgx.Tx) error {
			var err error
			out, _, err = readLeaves(ctx, tx, stale, "")
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("store: leaves: %w", err)
	}
	return out, nil
}

func readLeaves(ctx context.Context, tx pgx.Tx, stale func(store.Leaves) bool, lock string) (map[string]store.Leaves, []string, error) {
	rows, err := tx.Query(ctx, "SELECT fingerprint, strikes, last_leave, cooldown FROM leaves"+lock)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]store.Leaves{}
	var drop []string
	var fp string
	var strikes int
	var last, until time.Time
	_, err = pgx.ForEachRow(rows, []any{&fp, &strikes, &last, &until}, func() error {
		l := store.Leaves{Strikes: strikes, Last: last.UTC(), Until: until.UTC()}
		if stale != nil && stale(l) {
			drop = append(drop, fp)
		} else {
			out[fp] = l
		}
		return nil
	})
	return out, drop, err
}
