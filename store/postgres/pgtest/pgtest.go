// Package pgtest hands each test a fresh, empty PostgreSQL database on the
// server named by TERMARENA_TEST_POSTGRES, and drops it when the test ends.
//
// Without a reachable server a test skips, saying how to get one
// (scripts/with-postgres.sh starts a throwaway server and sets the
// variable); under CI=true it fails instead, so CI cannot pass by skipping
// the PostgreSQL backend.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the variable holding the test server's URL: any database on
// it that the user may connect to, with the right to create databases.
const EnvURL = "TERMARENA_TEST_POSTGRES"

const howTo = "run the tests with scripts/with-postgres.sh (for example: scripts/with-postgres.sh go test ./store/...), " +
	"which starts a throwaway server, or set " + EnvURL + " to a server's URL"

// URL returns a connection URL for a new empty database that exists until
// the test (and its subtests) end. It skips the test when no server is
// configured or reachable, or fails it under CI=true.
func URL(t testing.TB) string {
	t.Helper()
	admin := os.Getenv(EnvURL)
	if admin == "" {
		unavailable(t, EnvURL+" is not set")
	}
	cfg, err := pgx.ParseConfig(admin)
	if err != nil {
		t.Fatalf("pgtest: %s: %v", EnvURL, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		unavailable(t, fmt.Sprintf("cannot reach the server in %s: %v", EnvURL, err))
	}
	defer conn.Close(context.Background())

	name := "termarena_test_" + randomHex(8)
	// Identifiers cannot be bound as parameters; the name is ours and
	// made only of [a-z0-9_], and Sanitize quotes it anyway.
	ident := pgx.Identifier{name}.Sanitize()
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+ident); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() { drop(t, cfg, ident) })

	return withDatabase(admin, name)
}

// withDatabase points a URL or a key=value connection string at another
// database, keeping everything else (host, socket directory, user, TLS).
func withDatabase(conn, name string) string {
	if strings.HasPrefix(conn, "postgres://") || strings.HasPrefix(conn, "postgresql://") {
		if u, err := url.Parse(conn); err == nil {
			u.Path = "/" + name
			u.RawPath = ""
			return u.String()
		}
	}
	// In a key=value string the last of a repeated key wins.
	return conn + " dbname=" + name
}

// drop removes the test's database, closing whatever connections the test
// left open (WITH (FORCE), PostgreSQL 13+), so a test that leaks a pool
// leaves nothing behind on the server.
func drop(t testing.TB, cfg *pgx.ConnConfig, ident string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Errorf("pgtest: drop database %s: %v", ident, err)
		return
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
		t.Errorf("pgtest: drop database %s: %v", ident, err)
	}
}

func unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("pgtest: PostgreSQL is required under CI=true: %s; %s", why, howTo)
	}
	t.Skipf("pgtest: no PostgreSQL: %s; %s", why, howTo)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}
