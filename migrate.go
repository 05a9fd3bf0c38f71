package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/bolt"
	"github.com/termarena/termarena/store/dump"
	"github.com/termarena/termarena/store/postgres"
)

// dataFile is the bbolt file's name in a data dir (as app.Assemble opens
// it), for a --from or --to that names the directory.
const dataFile = "termarena.db"

// lockWait is how long migrate waits for a bbolt file's lock: a running
// server holds it for as long as it runs, so waiting longer helps no one.
const lockWait = time.Second

// exporter is a store migrate copies from: every record it holds.
type exporter interface {
	Export(ctx context.Context, emit func(dump.Record) error) error
}

// importer is a store migrate copies into: what it lacks, in one
// transaction.
type importer interface {
	Import(ctx context.Context, src func(emit func(dump.Record) error) error) (dump.Counts, error)
}

// migrateUsage is the usage line, also in run's.
const migrateUsage = "termarena migrate --from SOURCE --to TARGET  copy a node's data (bbolt file or data dir, a backup, postgres://…) into a new store; a second run copies nothing"

// runMigrate copies everything durable from one store to another:
//
//	termarena migrate --from DATA/termarena.db --to postgres://…
//	termarena migrate --from postgres://… --to DIR/termarena.db
//	termarena migrate --from backup.jsonl --to …   (admin backup on PostgreSQL)
//
// It copies through the stores' export and import (package dump), not
// their serving interfaces, which assign ids, clocks and audit entries
// themselves: a copy must keep every id (a replay's match, a profile's
// history, the audit log's order) and recognise what an earlier run
// already copied. The import is one transaction, so a failure (a
// conflict, a record the target refuses) copies nothing.
func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("termarena migrate", flag.ContinueOnError)
	fset.SetOutput(stderr)
	from := fset.String("from", "", "`SOURCE`: a bbolt data file or data dir (not in use by a running server), a backup written by admin backup, or a postgres:// URL")
	to := fset.String("to", "", "`TARGET`: a postgres:// URL, or a bbolt data file or data dir (made when missing)")
	fset.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+migrateUsage)
		fset.PrintDefaults()
	}
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(stderr, "termarena migrate: unexpected argument %q (see termarena migrate --help)\n", fset.Arg(0))
		return 2
	}
	if *from == "" || *to == "" {
		fmt.Fprintln(stderr, "termarena migrate: both --from and --to are required (see termarena migrate --help)")
		return 2
	}
	if !isPostgresURL(*to) && isDumpPath(*to) {
		fmt.Fprintf(stderr, "termarena migrate: --to %s is a backup file; migrate writes into a bbolt file or PostgreSQL (a backup is made with ssh HOST admin backup)\n", *to)
		return 2
	}
	if same(*from, *to) {
		fmt.Fprintln(stderr, "termarena migrate: --from and --to are the same store")
		return 2
	}

	src, srcName, closeSrc, err := openSource(ctx, *from)
	if err != nil {
		fmt.Fprintln(stderr, "termarena migrate: --from:", err)
		return 1
	}
	defer closeSrc()
	dst, dstName, closeDst, err := openTarget(ctx, *to)
	if err != nil {
		fmt.Fprintln(stderr, "termarena migrate: --to:", err)
		return 1
	}
	defer closeDst()

	fmt.Fprintf(stdout, "termarena migrate: from %s to %s\n", srcName, dstName)
	counts, err := dst.Import(ctx, src)
	if err != nil {
		var conflict *dump.ConflictError
		if errors.As(err, &conflict) {
			fmt.Fprintln(stderr, "termarena migrate:", conflict)
		} else {
			fmt.Fprintln(stderr, "termarena migrate: nothing was copied:", err)
		}
		return 1
	}
	printCounts(stdout, counts)
	return 0
}

// printCounts is the per-entity table and a last line saying whether
// anything changed.
func printCounts(w io.Writer, c dump.Counts) {
	row := func(what string, copied, same int) {
		fmt.Fprintf(w, "  %-22s %6d copied %6d already there\n", what, copied, same)
	}
	for _, k := range dump.Kinds() {
		name := k.String()
		if k == dump.KindPlayer {
			name = "players and names"
		}
		row(name, c.Copied[k], c.Same[k])
		if k == dump.KindPlayer {
			row("roles (moderators)", c.CopiedModerators, c.SameModerators)
		}
	}
	copied, same := c.Total()
	if copied == 0 {
		fmt.Fprintf(w, "nothing to copy: the target already holds all %d records\n", same)
		return
	}
	fmt.Fprintf(w, "copied %d records (%d were already there)\n", copied, same)
}

func isPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// dataPath is a bbolt file's path: a data dir's termarena.db, or the
// path itself.
func dataPath(p string) string {
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return filepath.Join(p, dataFile)
	}
	return p
}

// isDumpPath reports whether p is an existing file holding a dump.
func isDumpPath(p string) bool {
	f, err := os.Open(dataPath(p))
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	return dump.IsDump(head[:n])
}

func same(a, b string) bool {
	if isPostgresURL(a) || isPostgresURL(b) {
		return a == b
	}
	fa, errA := os.Stat(dataPath(a))
	fb, errB := os.Stat(dataPath(b))
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// openSource opens what --from names: a PostgreSQL database, a dump
// file, or a bbolt file opened read-only (its lock shared, so a running
// server, which holds it alone, is detected rather than raced).
func openSource(ctx context.Context, from string) (src func(func(dump.Record) error) error, name string, closeFn func(), err error) {
	if isPostgresURL(from) {
		st, err := postgres.Open(ctx, from, postgres.Options{})
		if err != nil {
			return nil, "", nil, err
		}
		return func(emit func(dump.Record) error) error { return st.Export(ctx, emit) },
			"PostgreSQL " + st.Describe(), func() { _ = st.Close() }, nil
	}
	path := dataPath(from)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", nil, fmt.Errorf("%s: no such file (give a bbolt data file, a data dir, a backup or a postgres:// URL)", path)
		}
		return nil, "", nil, err
	}
	if isDumpPath(path) {
		src := func(emit func(dump.Record) error) error {
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = dump.Read(f, emit)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			return nil
		}
		return src, "backup " + path, func() {}, nil
	}
	st, err := bolt.Open(path, bolt.Options{ReadOnly: true, Timeout: lockWait})
	closeFn = func() { _ = st.Close() }
	if errors.Is(err, bbolt.ErrDatabaseReadOnly) {
		// An older build's file: its schema must be brought forward
		// before it reads as this build's, which a read-only open cannot
		// do. The source is left as it was: a copy is brought forward.
		st, closeFn, err = openOlder(path)
	}
	if err != nil {
		return nil, "", nil, boltHint(err, path)
	}
	var ex exporter = st
	return func(emit func(dump.Record) error) error { return ex.Export(ctx, emit) },
		"bbolt file " + path, closeFn, nil
}

// openOlder opens a private copy of an older build's bbolt file, brought
// up to this build's schema, and removes the copy on close. The read-only
// open before it has just found no server holding the file.
func openOlder(path string) (*bolt.Store, func(), error) {
	dir, err := os.MkdirTemp("", "termarena-migrate-*")
	if err != nil {
		return nil, nil, fmt.Errorf("copy of an older file: %w", err)
	}
	copyPath := filepath.Join(dir, dataFile)
	if err := copyFile(path, copyPath); err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("copy of an older file: %w", err)
	}
	st, err := bolt.Open(copyPath, bolt.Options{Timeout: lockWait})
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return st, func() { _ = st.Close(); _ = os.RemoveAll(dir) }, nil
}

// copyFile copies src to a new file dst, private to the user (it holds
// every player's data).
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// openTarget opens what --to names: a PostgreSQL database (its schema
// brought forward, a newer one refused) or a bbolt file, made when
// missing.
func openTarget(ctx context.Context, to string) (dst importer, name string, closeFn func(), err error) {
	if isPostgresURL(to) {
		st, err := postgres.Open(ctx, to, postgres.Options{})
		if err != nil {
			return nil, "", nil, err
		}
		return st, "PostgreSQL " + st.Describe(), func() { _ = st.Close() }, nil
	}
	path := dataPath(to)
	st, err := bolt.Open(path, bolt.Options{Timeout: lockWait})
	if err != nil {
		return nil, "", nil, boltHint(err, path)
	}
	return st, "bbolt file " + path, func() { _ = st.Close() }, nil
}

// boltHint says what to do about a bbolt file migrate cannot open.
func boltHint(err error, path string) error {
	switch {
	case errors.Is(err, store.ErrInUse):
		return fmt.Errorf("%s is in use by a running termarena (it holds the file's lock): stop that server first, or migrate from its backup (ssh HOST admin backup > copy.db): %w", path, err)
	case errors.Is(err, store.ErrSchemaTooNew):
		return fmt.Errorf("%w: use the newer termarena's migrate", err)
	}
	return damageHint(err)
}
