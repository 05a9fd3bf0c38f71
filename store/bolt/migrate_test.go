package bolt

import (
	"errors"
	"strings"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

func countingStep(version int, runs *int) migration {
	return migration{version: version, name: "test step", apply: func(tx *bbolt.Tx) error {
		*runs++
		_, err := tx.CreateBucketIfNotExists([]byte("test"))
		return err
	}}
}

func withSteps(extra ...migration) []migration {
	return append(migrations(), extra...)
}

// latestVersion is the schema a fresh file gets; test steps go after it.
func latestVersion() int {
	steps := migrations()
	return steps[len(steps)-1].version
}

func openWithTest(t *testing.T, path string, steps []migration) *Store {
	t.Helper()
	s, err := openWith(path, Options{}, steps)
	if err != nil {
		t.Fatalf("openWith: %v", err)
	}
	return s
}

func TestFreshFileHasLatestSchema(t *testing.T) {
	s := openTest(t, dbPath(t), Options{})
	v, err := s.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := migrations()[len(migrations())-1].version
	if v != want {
		t.Errorf("SchemaVersion = %d, want %d", v, want)
	}
	err = s.DB().View(func(tx *bbolt.Tx) error {
		for _, b := range []string{bucketMeta, bucketPlayers, bucketNames} {
			if tx.Bucket([]byte(b)) == nil {
				t.Errorf("bucket %s missing", b)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestMigrationRunsOnce(t *testing.T) {
	path := dbPath(t)
	runs := 0
	next := latestVersion() + 1
	steps := withSteps(countingStep(next, &runs))
	for range 2 {
		s := openWithTest(t, path, steps)
		if v, err := s.SchemaVersion(ctx); err != nil || v != next {
			t.Errorf("SchemaVersion = %d, %v; want %d", v, err, next)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if runs != 1 {
		t.Errorf("step ran %d times over two opens, want 1", runs)
	}
}

func TestMigrationAddedLaterRunsOnExistingFile(t *testing.T) {
	path := dbPath(t)
	s := openWithTest(t, path, migrations())
	mustLogin(t, s, "SHA256:bob", "bob")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	runs := 0
	s = openWithTest(t, path, withSteps(countingStep(latestVersion()+1, &runs)))
	defer s.Close()
	if runs != 1 {
		t.Errorf("new step ran %d times, want 1", runs)
	}
	if _, err := s.PlayerByName(ctx, "bob"); err != nil {
		t.Errorf("data lost across migration: %v", err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	path := dbPath(t)
	s := openTest(t, path, Options{})
	if err := s.DB().Update(func(tx *bbolt.Tx) error { return writeSchema(tx, 99) }); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	_, err := Open(path, Options{})
	if !errors.Is(err, store.ErrSchemaTooNew) {
		t.Fatalf("Open err = %v, want ErrSchemaTooNew", err)
	}
	if !strings.Contains(err.Error(), "99") {
		t.Errorf("error %q does not name the file's version", err)
	}

	// Refusing must not have touched the file, and must have let go of it.
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("file still locked or damaged after refusal: %v", err)
	}
	defer db.Close()
	var v int
	if err := db.View(func(tx *bbolt.Tx) error { v, err = readSchema(tx); return err }); err != nil {
		t.Fatal(err)
	}
	if v != 99 {
		t.Errorf("schema after refused open = %d, want 99", v)
	}
}

func TestFailingMigrationLeavesVersion(t *testing.T) {
	path := dbPath(t)
	boom := errors.New("boom")
	step2Runs := 0
	failing := migration{version: 2, name: "add widgets", apply: func(tx *bbolt.Tx) error {
		step2Runs++
		if _, err := tx.CreateBucket([]byte("widgets")); err != nil {
			return err
		}
		return boom
	}}

	step1Runs := 0
	first := migrations()[0]
	counted1 := migration{version: first.version, name: first.name, apply: func(tx *bbolt.Tx) error {
		step1Runs++
		return first.apply(tx)
	}}

	_, err := openWith(path, Options{}, []migration{counted1, failing})
	if !errors.Is(err, boom) {
		t.Fatalf("openWith err = %v, want it to wrap the step's error", err)
	}
	if !strings.Contains(err.Error(), "add widgets") {
		t.Errorf("error %q does not name the failing step", err)
	}

	// Step 1 committed, step 2 rolled back entirely, and the lock is free.
	s := openWithTest(t, path, []migration{counted1})
	if v, err := s.SchemaVersion(ctx); err != nil || v != 1 {
		t.Errorf("SchemaVersion after failed step = %d, %v; want 1", v, err)
	}
	err = s.DB().View(func(tx *bbolt.Tx) error {
		if tx.Bucket([]byte("widgets")) != nil {
			t.Error("failed step's bucket was committed")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// A fixed step 2 runs on the next open; step 1 is not re-run.
	step2Runs = 0
	s = openWithTest(t, path, []migration{counted1, countingStep(2, &step2Runs)})
	defer s.Close()
	if v, _ := s.SchemaVersion(ctx); v != 2 {
		t.Errorf("SchemaVersion = %d, want 2", v)
	}
	if step1Runs != 1 || step2Runs != 1 {
		t.Errorf("runs: step1 %d, step2 %d; want 1 and 1", step1Runs, step2Runs)
	}
}

func TestBadMigrationListRefused(t *testing.T) {
	noop := func(*bbolt.Tx) error { return nil }
	for name, steps := range map[string][]migration{
		"duplicate":    {{version: 1, name: "a", apply: noop}, {version: 1, name: "b", apply: noop}},
		"out of order": {{version: 2, name: "a", apply: noop}, {version: 1, name: "b", apply: noop}},
		"zero":         {{version: 0, name: "a", apply: noop}},
		"nil apply":    {{version: 1, name: "a"}},
	} {
		if _, err := openWith(dbPath(t), Options{}, steps); err == nil {
			t.Errorf("%s: openWith accepted the list", name)
		}
	}
	if err := checkMigrations(migrations()); err != nil {
		t.Errorf("default list: %v", err)
	}
}
