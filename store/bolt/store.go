// Package bolt is the store on one bbolt file, the default backend (a
// single node needs nothing else): the buckets, the JSON encoding of every
// record, the schema version and the migrations that move a file from one
// version to the next, the player identity records (SSH key fingerprint →
// display name) with their name index and role, per-mode ratings, the
// match history with its per-player index, stored replays, moderation
// state (bans, mutes) with its append-only audit log, leave strikes, and
// consistent backups. It implements store.Store; the values, errors and
// interfaces are the store package's.
//
// Every record is JSON carrying "v" so a later migration can tell old shapes
// from new ones. Nothing here is written per game tick: each exported write
// is one small transaction triggered by an event such as a login.
package bolt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

// Bucket names. Later packages add their own buckets through DB and a
// migration step; these are the ones this package reads and writes.
const (
	bucketMeta    = "meta"
	bucketPlayers = "players"
	bucketNames   = "names"

	metaKeySchema = "schema"

	// recordVersion is the "v" written into every JSON value this package
	// stores; decoding refuses anything else so a shape change cannot be
	// misread silently.
	recordVersion = 1

	defaultTimeout = 2 * time.Second
)

// Store is a whole backend.
var _ store.Store = (*Store)(nil)

// Options tune Open. The zero value is ready to use.
type Options struct {
	// Timeout bounds the wait for the data file's lock. Zero means 2s; a
	// negative value tries exactly once. A lock still held after it yields an
	// error wrapping ErrInUse rather than a hang.
	Timeout time.Duration
	// Now is the store's clock: FirstSeen/LastSeen, ban and mute expiry,
	// audit timestamps. nil means time.Now.
	Now func() time.Time

	// ReadOnly opens the file without ever writing it (a shared lock,
	// which other read-only handles may share; it must already exist and
	// be up to date). Every write then fails with ErrCannotSave, as on a
	// full disk: for looking at a copy, and for tests of that outage.
	ReadOnly bool

	// openFile, set only by tests, opens the data file in bbolt's place:
	// one opened read-only makes every commit fail as on a full disk.
	openFile func(string, int, os.FileMode) (*os.File, error)
}

// Store is an open data file. Its methods are safe for concurrent use.
type Store struct {
	db      *bbolt.DB
	path    string
	now     func() time.Time
	created bool // Open made the file

	// writeFailed is the last commit that failed (a full disk), nil once
	// one succeeds: Health reports it.
	writeFailed atomic.Pointer[writeFailure]

	// failAfter, set only by tests before any use, makes RecordMatch fail
	// its transaction after the named stage, to prove nothing is half
	// written, and PruneReplays fail one of its batches, to prove the
	// batches before it stay committed.
	failAfter func(stage string) error
	// pruneBatch, set only by tests, overrides defaultPruneBatch so a
	// handful of replays spans several transactions.
	pruneBatch int
}

// Open opens the bbolt file at path and brings its schema up to date, or
// creates it with mode 0600 when there is no file (Created then reports
// true). The directory must already exist. A file that exists but is empty
// is refused with ErrEmptyFile, and one that is cut short or whose pages
// cannot be read with an error wrapping ErrDamaged, rather than crashing
// the process or starting an empty server in its place.
func Open(path string, opts Options) (*Store, error) {
	return openWith(path, opts, migrations())
}

// openWith is Open with an explicit migration list, so tests can add steps
// without any package-level state to mutate.
func openWith(path string, opts Options, steps []migration) (*Store, error) {
	if err := checkMigrations(steps); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	missing, err := checkExisting(path)
	if err == nil && missing && opts.ReadOnly {
		err = fmt.Errorf("read-only: %w", fs.ErrNotExist)
	} else if err == nil && missing {
		missing, err = create(path)
	}
	if err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			return nil, fmt.Errorf("store: %w", err) // it names the path already
		}
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = defaultTimeout
	}
	var db *bbolt.DB
	err = guarded("opening it", func() error {
		var err error
		db, err = bbolt.Open(path, 0o600, &bbolt.Options{Timeout: timeout, OpenFile: opts.openFile, ReadOnly: opts.ReadOnly})
		return err
	})
	if err != nil {
		if errors.Is(err, bbolt.ErrTimeout) {
			return nil, fmt.Errorf("store: open %s: lock not acquired within %s: %w", path, timeout, store.ErrInUse)
		}
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			return nil, fmt.Errorf("store: %w", err) // it names the path already
		}
		if errors.Is(err, bbolt.ErrInvalid) || errors.Is(err, bbolt.ErrChecksum) {
			err = fmt.Errorf("%w: %w", store.ErrDamaged, err)
		}
		// A fault inside bbolt.Open leaves its file handle and lock behind:
		// the process is about to exit with the error, which releases both.
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := guarded("reading its schema", func() error { return migrate(db, steps) }); err != nil {
		_ = db.Close() // the migration error is the one worth reporting
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, path: path, now: now, created: missing}, nil
}

// create makes a new, whole database at path: bbolt writes its first pages
// into a temporary file, which is then linked into place. So a file at
// path is never one bbolt began and did not finish, which is what lets
// Open refuse an empty file as damage rather than take it for a new
// database. created is false when another process made the file first.
func create(path string) (created bool, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".new-*")
	if err != nil {
		return false, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	db, err := bbolt.Open(tmp.Name(), 0o600, &bbolt.Options{Timeout: defaultTimeout})
	if err != nil {
		return false, fmt.Errorf("create: %w", err)
	}
	if err := db.Close(); err != nil {
		return false, fmt.Errorf("create: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, err
	}
	// The new name must survive a crash as the file's content does.
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return true, nil
}

// Created reports whether Open made a new database because there was no
// file: the server logs it, since it means starting with no players.
func (s *Store) Created() bool { return s.created }

// Close releases the file and its lock.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("store: close %s: %w", s.path, err)
	}
	return nil
}

// Path is the data file's path as given to Open.
func (s *Store) Path() string { return s.path }

// DB exposes the handle so later packages can keep their own buckets in the
// same file (and the same transactions) instead of opening a second one,
// which the file lock forbids anyway.
func (s *Store) DB() *bbolt.DB { return s.db }

// SchemaVersion reports the schema version recorded in the file.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		v, err = readSchema(tx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: schema version: %w", err)
	}
	return v, nil
}

// Backup writes a consistent snapshot of the whole file to w and reports the
// bytes written. The snapshot is a valid bbolt file that Open accepts.
//
// It holds a read transaction until w has taken every byte. While that lasts,
// a write that needs to grow the file waits for it, so a caller streaming to
// a slow peer (an SSH client) should spool to a local file first.
func (s *Store) Backup(ctx context.Context, w io.Writer) (int64, error) {
	var n int64
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("store: backup: %w", err)
	}
	return n, nil
}

// metaRecord is the value under meta/schema.
type metaRecord struct {
	V      int `json:"v"`
	Schema int `json:"schema"`
}

// readSchema returns 0 for a file no migration has touched yet.
func readSchema(tx *bbolt.Tx) (int, error) {
	b := tx.Bucket([]byte(bucketMeta))
	if b == nil {
		return 0, nil
	}
	raw := b.Get([]byte(metaKeySchema))
	if raw == nil {
		return 0, nil
	}
	var m metaRecord
	if err := json.Unmarshal(raw, &m); err != nil {
		return 0, fmt.Errorf("decode %s/%s: %w", bucketMeta, metaKeySchema, err)
	}
	if m.V != recordVersion {
		return 0, fmt.Errorf("decode %s/%s: unknown record version %d", bucketMeta, metaKeySchema, m.V)
	}
	return m.Schema, nil
}

func writeSchema(tx *bbolt.Tx, version int) error {
	b, err := tx.CreateBucketIfNotExists([]byte(bucketMeta))
	if err != nil {
		return fmt.Errorf("create bucket %s: %w", bucketMeta, err)
	}
	raw, err := json.Marshal(metaRecord{V: recordVersion, Schema: version})
	if err != nil {
		return fmt.Errorf("encode schema version: %w", err)
	}
	if err := b.Put([]byte(metaKeySchema), raw); err != nil {
		return fmt.Errorf("write schema version: %w", err)
	}
	return nil
}

// versioned is every stored record: V says which shape it has, so a newer
// server's records are refused rather than misread.
type versioned interface{ version() int }

// decodeRecord unmarshals a stored record. The result holds nothing that
// points into raw (bbolt's memory).
func decodeRecord[T versioned](raw []byte, what string) (T, error) {
	var rec T
	if err := json.Unmarshal(raw, &rec); err != nil {
		var zero T
		return zero, fmt.Errorf("decode %s: %w", what, err)
	}
	if v := rec.version(); v != recordVersion {
		var zero T
		return zero, fmt.Errorf("decode %s: unknown record version %d", what, v)
	}
	return rec, nil
}
