// Package postgres is the PostgreSQL backend of the store: the same
// players, names, ratings, matches, replays, moderation and leave strikes
// as the bbolt file, in tables one database shared by several termarena
// nodes can hold. Its schema is versioned in the repository (migrations/,
// embedded) and brought forward when a store opens; a database whose
// schema is newer than the build is refused.
//
// Open checks everything it can before the server listens: the URL, that
// the server answers, that the database takes writes, and the schema.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Errors Open wraps, for the caller's exit code and hint.
var (
	// ErrBadURL: the URL does not parse as a PostgreSQL connection string.
	ErrBadURL = errors.New("not a PostgreSQL URL")
	// ErrUnreachable: no server answered, or it refused the login.
	ErrUnreachable = errors.New("PostgreSQL is unreachable")
	// ErrReadOnly: the database refuses writes (a standby, or
	// default_transaction_read_only), or the user may not write.
	ErrReadOnly = errors.New("the database refuses writes")
)

// defaultConnectTimeout bounds each connection attempt when the URL sets
// no connect_timeout, so a server that drops packets fails the start
// instead of hanging it.
const defaultConnectTimeout = 5 * time.Second

// Options tunes Open; the zero value is ready to use.
type Options struct {
	// Now is the store's clock (tests pass a fake one); time.Now if nil.
	Now func() time.Time
	// MaxConns caps the pool (pgxpool's default when 0: 4 or the number
	// of CPUs, whichever is more).
	MaxConns int32
}

// Store is the PostgreSQL backend. It is safe for concurrent use: every
// method takes a connection from the pool for as long as it needs one.
type Store struct {
	pool *pgxpool.Pool
	now  func() time.Time
}

// Open connects to the database at url, checks that it takes writes and
// brings its schema forward to this build's. It returns ErrBadURL,
// ErrUnreachable, ErrReadOnly or ErrSchemaTooNew (wrapped, with the
// server's own words) so the caller can tell the operator which.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgconn's parse error masks a password in the URL it quotes.
		return nil, fmt.Errorf("store: postgres: %w: %w", ErrBadURL, err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	where := describe(cfg.ConnConfig)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: postgres %s: %w", where, err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: postgres %s: %w: %w", where, ErrUnreachable, err)
	}
	s := &Store{pool: pool, now: opts.Now}
	if s.now == nil {
		s.now = time.Now
	}
	if _, err = migrate(ctx, pool, migrations); err != nil {
		pool.Close()
		if readOnly(err) && !errors.Is(err, ErrReadOnly) {
			err = fmt.Errorf("%w: %w", ErrReadOnly, err)
		}
		return nil, fmt.Errorf("store: postgres %s: %w", where, err)
	}
	if err := checkWritable(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: postgres %s: %w", where, err)
	}
	return s, nil
}

// checkWritable refuses a user who may only read the tables (they were
// made by another role and not granted): every login writes.
func checkWritable(ctx context.Context, pool *pgxpool.Pool) error {
	var writable bool
	var user string
	err := pool.QueryRow(ctx, "SELECT has_table_privilege('players', 'INSERT, UPDATE, DELETE'), current_user").Scan(&writable, &user)
	if err != nil {
		return fmt.Errorf("check privileges: %w", err)
	}
	if !writable {
		return fmt.Errorf("%w (the user %s may not write the players table)", ErrReadOnly, user)
	}
	return nil
}

// describe names the database for messages: user, host and database,
// never the password.
func describe(c *pgx.ConnConfig) string {
	return fmt.Sprintf("%s@%s:%d/%s", c.User, c.Host, c.Port, c.Database)
}

// readOnly reports whether err is the server refusing a write: a read-only
// transaction (25006) or missing privileges (42501).
func readOnly(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "25006" || pe.Code == "42501")
}

// Close closes every connection of the pool.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// CheckURL parses url as Open would, without connecting: for a flag's
// check before the server starts. The error never shows a password.
func CheckURL(url string) error {
	if _, err := pgxpool.ParseConfig(url); err != nil {
		return fmt.Errorf("%w: %w", ErrBadURL, err)
	}
	return nil
}
