package pgtest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Each test gets a database of its own, empty, and it is gone once the
// test ends.
func TestURLFreshDatabaseDroppedAfter(t *testing.T) {
	ctx := context.Background()
	URL(t) // skips here without a server
	var names [2]string
	for i := range names {
		t.Run("db", func(t *testing.T) {
			conn, err := pgx.Connect(ctx, URL(t))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&names[i]); err != nil {
				t.Fatal(err)
			}
			var tables int
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&tables); err != nil {
				t.Fatal(err)
			}
			if tables != 0 {
				t.Fatalf("a fresh database has %d tables", tables)
			}
			// Left for the next subtest to not see.
			if _, err := conn.Exec(ctx, "CREATE TABLE left_behind (x int)"); err != nil {
				t.Fatal(err)
			}
		})
	}
	if names[0] == "" || names[0] == names[1] {
		t.Fatalf("databases %q and %q: want two distinct ones", names[0], names[1])
	}
	conn, err := pgx.Connect(ctx, os.Getenv(EnvURL))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, n := range names {
		var exists bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", n).Scan(&exists); err != nil {
			t.Fatal(err)
		}
		if exists {
			t.Errorf("database %s still exists after its test ended", n)
		}
	}
}

// Without a server a test skips saying how to get one, and under CI=true
// it fails instead: run in a child process so the outcome can be read.
func TestURLWithoutServer(t *testing.T) {
	if os.Getenv("PGTEST_CHILD") == "1" {
		URL(t)
		return
	}
	for _, tc := range []struct {
		ci       string
		wantFail bool
		want     string
	}{
		{ci: "", wantFail: false, want: "--- SKIP"},
		{ci: "true", wantFail: true, want: "--- FAIL"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestURLWithoutServer$", "-test.v")
		cmd.Env = append(os.Environ(), "PGTEST_CHILD=1", "CI="+tc.ci,
			// A socket directory with no server in it.
			EnvURL+"=postgres:///postgres?host="+t.TempDir()+"&user=postgres&connect_timeout=2")
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != tc.wantFail {
			t.Errorf("CI=%q: failed=%v, want %v\n%s", tc.ci, failed, tc.wantFail, out)
		}
		if !strings.Contains(string(out), tc.want) || !strings.Contains(string(out), "scripts/with-postgres.sh") {
			t.Errorf("CI=%q: output lacks %q or how to run a server:\n%s", tc.ci, tc.want, out)
		}
	}
}
