package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/termarena/termarena/store"
)

func isCannotSave(err error) bool { return errors.Is(err, store.ErrCannotSave) }

// Health is nil while the database answers and takes writes; else an
// error matching store.ErrCannotSave (gone, or read-only after a
// failover to a standby).
func (s *Store) Health(ctx context.Context) error {
	var ro string
	if err := s.pool.QueryRow(ctx, "SHOW transaction_read_only").Scan(&ro); err != nil {
		return fmt.Errorf("store: health: %w", classify(err))
	}
	if ro == "on" {
		return fmt.Errorf("store: health: %w: %w", store.ErrCannotSave, ErrReadOnly)
	}
	return nil
}

// SchemaVersion is the schema version the database is at now (another
// node may have migrated it since this one opened it).
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.pool.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("store: schema version: %w", classify(err))
	}
	return v, nil
}

var _ store.Store = (*Store)(nil)
