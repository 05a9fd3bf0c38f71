package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/termarena/termarena/store"
)

// maxAttempts bounds how often a transaction that lost a deadlock or a
// serialization race is run again; two matches sharing a player that end
// at once are the expected case, and one retry settles it.
const maxAttempts = 5

// write runs fn in a read-committed transaction and commits it, running it
// again (fn must allow that) when PostgreSQL aborted it for a deadlock or
// a serialization failure. A failure of the database itself (gone, full,
// read-only after a failover) matches store.ErrCannotSave: nothing of fn
// is kept, and the caller can say the server cannot save right now.
func (s *Store) write(ctx context.Context, fn func(pgx.Tx) error) error {
	var err error
	for range maxAttempts {
		err = pgx.BeginFunc(ctx, s.pool, fn)
		if !retryable(err) {
			break
		}
	}
	return classify(err)
}

// read runs fn in a repeatable-read, read-only transaction: one snapshot,
// so a listing that takes several queries sees one moment.
func (s *Store) read(ctx context.Context, fn func(pgx.Tx) error) error {
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
	return classify(err)
}

// classify wraps a failure of the database itself in store.ErrCannotSave,
// leaving the store's own errors (ErrNotFound, ErrNameTaken, …) and a
// caller's cancelled context as they are.
func classify(err error) error {
	if err == nil || !unavailable(err) {
		return err
	}
	return fmt.Errorf("%w: %w", store.ErrCannotSave, err)
}

func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// unavailable reports whether err is the database failing rather than a
// statement being wrong: a lost or refused connection, the server shutting
// down, out of disk or memory, or read-only.
func unavailable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	// Failing to connect is the database being unavailable whatever the
	// server said (it may refuse with any code: too many clients, the
	// database not accepting connections, shutting down).
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code[:2] {
		case "08", "53", "57", "58": // connection, resources, operator intervention, system
			return true
		}
		return pe.Code == "25006" // read-only transaction: a standby after a failover
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || pgconn.Timeout(err)
}

// uniqueViolation reports whether err is a unique constraint refusing a
// row, naming the constraint.
func uniqueViolation(err error) (constraint string, ok bool) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return pe.ConstraintName, true
	}
	return "", false
}

// ts is a time as the database keeps it: UTC, microseconds, no monotonic
// reading. Everything written goes through it, so what a method returns
// equals what a later read gives back.
func ts(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// nullTime is a time that may be unset: NULL for the zero time.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := ts(t)
	return &u
}

// fromNull reads what nullTime wrote.
func fromNull(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

func (s *Store) clock() time.Time { return ts(s.now()) }
