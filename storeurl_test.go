package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/termarena/termarena/sshtest"
	"github.com/termarena/termarena/store/postgres"
	"github.com/termarena/termarena/store/postgres/pgtest"
)

// A --store that is not a PostgreSQL URL is a usage error, before
// anything starts, and the message never shows a password.
func TestStoreURLIsChecked(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
	}{
		{[]string{"--store", "./data/termarena.db"}, nil},
		{[]string{"--store", "mysql://db/termarena"}, nil},
		{nil, map[string]string{"TERMARENA_STORE": "postgres://ann:hunter2@db:notaport/termarena"}},
	} {
		var errOut bytes.Buffer
		code := run(context.Background(), tc.args, env(tc.env), io.Discard, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), "--store") {
			t.Errorf("%v %v: exit %d, stderr %q; want 2 naming --store", tc.args, tc.env, code, errOut.String())
		}
		if strings.Contains(errOut.String(), "hunter2") {
			t.Errorf("the error shows the password: %q", errOut.String())
		}
	}
}

// startOn runs the real binary (this test binary acting as it) with
// --store url and returns its exit code, stderr and whether its SSH port
// ever answered. Every case here must be refused before that.
func startOn(t *testing.T, url string) (code int, stderr string, listened bool) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, "--listen", addr, "--data", t.TempDir())
	cmd.Env = append(os.Environ(), "TERMARENA_TEST_MAIN=1", "TERMARENA_HTTP=127.0.0.1:0", "TERMARENA_STORE="+url)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	for {
		select {
		case <-done:
			if ctx.Err() != nil {
				t.Fatalf("termarena started on a database it should refuse: %s", errOut.String())
			}
			return cmd.ProcessState.ExitCode(), errOut.String(), listened
		case <-time.After(20 * time.Millisecond):
			if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
				c.Close()
				listened = true
			}
		}
	}
}

// A database the server cannot use stops it at start with exit 1 and a
// message that says what is wrong and what to do, before the SSH port
// opens: no player meets a server that cannot save them.
func TestStoreRefusedBeforeListening(t *testing.T) {
	url := pgtest.URL(t)
	st, err := postgres.Open(context.Background(), url, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	admin := os.Getenv(pgtest.EnvURL)
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	var db string
	if err := conn.QueryRow(context.Background(), "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	conn.Close(context.Background())
	sql := func(url, q string) {
		t.Helper()
		c, err := pgx.Connect(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	for _, tc := range []struct {
		name  string
		url   string
		setup func()
		want  []string
	}{
		{"unreachable", "postgres:///termarena?host=" + filepath.Join(t.TempDir(), "nothing") + "&user=ann&password=hunter2",
			nil, []string{"unreachable", "is PostgreSQL running"}},
		{"newer schema", url, func() { sql(url, "INSERT INTO schema_version (version) VALUES (999)") },
			[]string{"999", "run that version or a later one"}},
		{"read-only", url, func() {
			sql(url, "DELETE FROM schema_version WHERE version = 999")
			sql(admin, "ALTER DATABASE "+pgx.Identifier{db}.Sanitize()+" SET default_transaction_read_only = on")
		}, []string{"refuses writes", "not a standby"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup()
			}
			code, stderr, listened := startOn(t, tc.url)
			if code != 1 {
				t.Errorf("exit %d, want 1; stderr:\n%s", code, stderr)
			}
			if listened {
				t.Errorf("the SSH port opened before the store was refused")
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "hunter2") {
				t.Errorf("stderr shows the password:\n%s", stderr)
			}
		})
	}
}

// A server on PostgreSQL keeps its players there, not in --data: started
// again with another, empty data dir, it knows them.
func TestServeOnPostgresKeepsPlayers(t *testing.T) {
	url := pgtest.URL(t)
	key := sshtest.NewKey(t)
	serveOnce := func(data string) (string, string) {
		addr := freeAddr(t)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, 1)
		var stdout, stderr syncBuffer
		go func() {
			done <- run(ctx, []string{"--listen", addr, "--data", data, "--store", url}, env(nil), &stdout, &stderr)
		}()
		waitUp(t, addr).Close()
		r := sshtest.Run(t, addr, "quinn", key, "whoami --json")
		cancel()
		if code := <-done; code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		if r.Code != 0 {
			t.Fatalf("whoami: %+v", r)
		}
		return r.Stdout, stdout.String()
	}
	dirA, dirB := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	first, log := serveOnce(dirA)
	if !strings.Contains(log, "store=\"PostgreSQL postgres@") {
		t.Errorf("the log does not say where the data is:\n%s", log)
	}
	if _, err := os.Stat(filepath.Join(dirA, "termarena.db")); err == nil {
		t.Errorf("a bbolt file was made beside a PostgreSQL store")
	}
	second, _ := serveOnce(dirB)
	var a, b struct {
		Name      string `json:"name"`
		FirstSeen string `json:"first_seen"`
	}
	if err := errors.Join(json.Unmarshal([]byte(first), &a), json.Unmarshal([]byte(second), &b)); err != nil {
		t.Fatalf("%v: %s %s", err, first, second)
	}
	if a.Name != "quinn" || a.FirstSeen == "" || a != b {
		t.Fatalf("whoami after a restart on another data dir: %+v, want as before: %+v", b, a)
	}
}
