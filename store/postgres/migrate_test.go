package postgres

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/postgres/pgtest"
)

func openTest(t *testing.T, url string) *Store {
	t.Helper()
	s, err := Open(context.Background(), url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func execSQL(t *testing.T, url, sql string, args ...any) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func TestOpenCreatesSchemaThenKeepsIt(t *testing.T) {
	url := pgtest.URL(t)
	s := openTest(t, url)
	latest := migrations[len(migrations)-1].version
	if v, err := s.SchemaVersion(context.Background()); err != nil || v != latest {
		t.Fatalf("schema version %d (%v), want %d", v, err, latest)
	}
	ctx := context.Background()
	if _, err := s.pool.Exec(ctx, "INSERT INTO players (fingerprint, name, first_seen, last_seen) VALUES ('SHA256:a', 'ann', now(), now())"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openTest(t, url) // a second start migrates nothing and loses nothing
	var n, steps int
	if err := s.pool.QueryRow(ctx, "SELECT (SELECT count(*) FROM players), (SELECT count(*) FROM schema_version)").Scan(&n, &steps); err != nil {
		t.Fatal(err)
	}
	if n != 1 || steps != latest {
		t.Fatalf("after reopening: %d players, %d schema steps; want 1 and %d", n, steps, latest)
	}
}

// Nodes started at once against an empty database: one migrates, the
// others wait for it and find the schema current.
func TestOpenConcurrently(t *testing.T) {
	url := pgtest.URL(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			s, err := Open(context.Background(), url, Options{})
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("node %d: %v", i, err)
		}
	}
	s := openTest(t, url)
	var steps int
	if err := s.pool.QueryRow(context.Background(), "SELECT count(*) FROM schema_version").Scan(&steps); err != nil {
		t.Fatal(err)
	}
	if steps != len(migrations) {
		t.Fatalf("%d schema steps recorded, want %d (each once)", steps, len(migrations))
	}
}

// A database a newer build has migrated is refused, and left as it was.
func TestOpenRefusesNewerSchema(t *testing.T) {
	url := pgtest.URL(t)
	openTest(t, url).Close()
	latest := migrations[len(migrations)-1].version
	execSQL(t, url, "INSERT INTO schema_version (version) VALUES ($1)", latest+1)
	_, err := Open(context.Background(), url, Options{})
	if !errors.Is(err, store.ErrSchemaTooNew) {
		t.Fatalf("Open: %v, want ErrSchemaTooNew", err)
	}
	if !strings.Contains(err.Error(), "run a newer termarena") {
		t.Errorf("the error does not say what to do: %v", err)
	}
}

func TestOpenRefusesReadOnlyDatabase(t *testing.T) {
	url := pgtest.URL(t)
	openTest(t, url).Close()
	ctx := context.Background()
	var db string
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	execSQL(t, url, "ALTER DATABASE "+pgx.Identifier{db}.Sanitize()+" SET default_transaction_read_only = on")
	_, err = Open(ctx, url, Options{})
	if !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Open of a read-only database: %v, want ErrReadOnly", err)
	}
}

func TestOpenRefusesUserWhoMayOnlyRead(t *testing.T) {
	url := pgtest.URL(t)
	openTest(t, url).Close()
	execSQL(t, url, "DROP ROLE IF EXISTS termarena_reader")
	execSQL(t, url, "CREATE ROLE termarena_reader LOGIN")
	t.Cleanup(func() {
		execSQL(t, url, "DROP OWNED BY termarena_reader")
		execSQL(t, url, "DROP ROLE termarena_reader")
	})
	execSQL(t, url, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO termarena_reader")
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	reader := strings.Replace(url, "user="+cfg.ConnConfig.User, "user=termarena_reader", 1)
	if reader == url {
		t.Skip("the test server's URL names its user some other way")
	}
	_, err = Open(context.Background(), reader, Options{})
	if !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Open as a user who may only read: %v, want ErrReadOnly", err)
	}
}

func TestOpenBadURLAndUnreachable(t *testing.T) {
	ctx := context.Background()
	_, err := Open(ctx, "postgres://ann:secret@host:notaport/db", Options{})
	if !errors.Is(err, ErrBadURL) {
		t.Errorf("bad URL: %v, want ErrBadURL", err)
	}
	if err != nil && strings.Contains(err.Error(), "secret") {
		t.Errorf("the error shows the password: %v", err)
	}
	_, err = Open(ctx, "postgres:///termarena?host="+t.TempDir()+"&user=ann&password=secret", Options{})
	if !errors.Is(err, ErrUnreachable) {
		t.Errorf("no server: %v, want ErrUnreachable", err)
	}
	if err != nil && strings.Contains(err.Error(), "secret") {
		t.Errorf("the error shows the password: %v", err)
	}
}

// Migrations go forward from every older version, each in order, and a
// step that fails leaves the schema as it was.
func TestMigrateForwardFromEachVersion(t *testing.T) {
	steps := []migration{
		{1, "one", "CREATE TABLE t (a int)"},
		{2, "two", "ALTER TABLE t ADD COLUMN b int"},
		{3, "three", "INSERT INTO t VALUES (1, 2)"},
	}
	ctx := context.Background()
	for from := 0; from <= len(steps); from++ {
		url := pgtest.URL(t)
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		if from > 0 {
			if v, err := migrate(ctx, pool, steps[:from]); err != nil || v != from {
				t.Fatalf("to %d: version %d, %v", from, v, err)
			}
		}
		if v, err := migrate(ctx, pool, steps); err != nil || v != len(steps) {
			t.Fatalf("from %d: version %d, %v", from, v, err)
		}
		var rows int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM t WHERE b = 2").Scan(&rows); err != nil || rows != 1 {
			t.Fatalf("from %d: %d rows, %v", from, rows, err)
		}
		pool.Close()
	}

	url := pgtest.URL(t)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := migrate(ctx, pool, steps[:1]); err != nil {
		t.Fatal(err)
	}
	broken := append(steps[:1:1], migration{2, "two", "ALTER TABLE t ADD COLUMN b int"}, migration{3, "broken", "SELECT no_such_thing"})
	if _, err := migrate(ctx, pool, broken); err == nil || !strings.Contains(err.Error(), "schema migration 3 (broken)") {
		t.Fatalf("a failing step: %v", err)
	}
	if v, err := migrate(ctx, pool, steps[:1]); err != nil || v != 1 {
		t.Fatalf("after a failed migration the schema is at %d (%v), want 1: step 2 is rolled back with 3", v, err)
	}
}

func TestLoadMigrationsChecksNumbering(t *testing.T) {
	for name, files := range map[string][]string{
		"gap":        {"0001_a.sql", "0003_c.sql"},
		"repeat":     {"0001_a.sql", "0001_b.sql"},
		"unnumbered": {"0001_a.sql", "init.sql"},
		"none":       {},
	} {
		fsys := fstest.MapFS{}
		for _, f := range files {
			fsys["migrations/"+f] = &fstest.MapFile{Data: []byte("SELECT 1")}
		}
		if _, err := loadMigrations(fsys); err == nil {
			t.Errorf("%s: %v accepted", name, files)
		}
	}
	if len(migrations) == 0 || migrations[0].version != 1 {
		t.Fatalf("the embedded migrations: %+v", migrations)
	}
}

// The audit log takes inserts only: not even the store's own connection
// can rewrite or delete a line.
func TestAuditTableIsAppendOnly(t *testing.T) {
	s := openTest(t, pgtest.URL(t))
	ctx := context.Background()
	if _, err := s.pool.Exec(ctx, "INSERT INTO audit (at, actor, action) VALUES (now(), 'root', 'ban')"); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{"UPDATE audit SET actor = 'someone'", "DELETE FROM audit", "TRUNCATE audit"} {
		if _, err := s.pool.Exec(ctx, sql); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v, want refused as append-only", sql, err)
		}
	}
	var n int
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM audit WHERE actor = 'root'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d lines (%v), want the one written", n, err)
	}
}
