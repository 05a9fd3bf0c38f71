package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/termarena/termarena/store"
)

// The schema's history: migrations/NNNN_what.sql, applied in order, each
// once. A released file is never edited; a change is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered step of the schema.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations is this build's schema history, read from the embedded files
// when the package loads; a gap or a duplicate number is a build mistake,
// caught by the package's tests.
var migrations = mustLoad(migrationFiles)

func mustLoad(fsys fs.FS) []migration {
	m, err := loadMigrations(fsys)
	if err != nil {
		panic(err)
	}
	return m
}

// loadMigrations reads migrations/*.sql, checking they are numbered 1, 2,
// 3… with no gap or repeat.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, n := range names { // Glob sorts
		base := path.Base(n)
		num, rest, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: the name is not NNNN_what.sql", base)
		}
		if v != len(out)+1 {
			return nil, fmt.Errorf("migration %s: version %d follows %d", base, v, len(out))
		}
		sql, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: strings.TrimSuffix(rest, ".sql"), sql: string(sql)})
	}
	if len(out) == 0 {
		return nil, errors.New("no migrations")
	}
	return out, nil
}

// migrationLock is the advisory lock key that serialises schema changes:
// nodes starting at once against one database migrate one at a time, and
// the later ones find nothing left to do.
const migrationLock = 0x7465726d6172656e // "termaren"

// migrate brings the database to the last of steps in one transaction (DDL
// is transactional in PostgreSQL: a failing step leaves the schema as it
// was) and returns the version it is at. A database at a version past the
// last step was written by a newer build: it is left alone and refused
// with store.ErrSchemaTooNew. A read-only database fails here, at the
// first statement that writes.
func migrate(ctx context.Context, pool *pgxpool.Pool, steps []migration) (int, error) {
	latest := steps[len(steps)-1].version
	var version int
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLock)); err != nil {
			return fmt.Errorf("lock the schema: %w", err)
		}
		// A standby or a read-only database would open and then fail at
		// the first login; refuse it before the server listens.
		var ro string
		if err := tx.QueryRow(ctx, "SHOW transaction_read_only").Scan(&ro); err != nil {
			return fmt.Errorf("read transaction_read_only: %w", err)
		}
		if ro == "on" {
			return fmt.Errorf("%w (transaction_read_only is on: a standby, or default_transaction_read_only)", ErrReadOnly)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
			version integer NOT NULL,
			applied timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
			return fmt.Errorf("schema version table: %w", err)
		}
		if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_version").Scan(&version); err != nil {
			return fmt.Errorf("read the schema version: %w", err)
		}
		if version > latest {
			return fmt.Errorf("database schema version %d, this build knows up to %d (run a newer termarena): %w", version, latest, store.ErrSchemaTooNew)
		}
		for _, m := range steps[version:] {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("schema migration %d (%s): %w", m.version, m.name, err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO schema_version (version) VALUES ($1)", m.version); err != nil {
				return fmt.Errorf("schema migration %d (%s): %w", m.version, m.name, err)
			}
			version = m.version
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return version, nil
}
