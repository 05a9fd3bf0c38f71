package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/sshtest"
)

// TestMain doubles as the termarena binary when TERMARENA_TEST_MAIN is set,
// so a test can run the server as another user (see runAs).
func TestMain(m *testing.M) {
	if os.Getenv("TERMARENA_TEST_MAIN") == "1" {
		main()
	}
	if os.Getenv("TERMARENA_TEST_CRASH") == "1" {
		crash() // exits as a crashed server does (systemd_test.go)
	}
	os.Exit(m.Run())
}

// env is an environment of m. The web face listens on a port the kernel
// picks unless m says otherwise, so tests never contend for :8080.
func env(m map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := m[k]; ok || k != "TERMARENA_HTTP" {
			return v
		}
		return "127.0.0.1:0"
	}
}

func TestHelpDocumentsEveryFlagAndEnv(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, env(nil), io.Discard, &out); code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for _, name := range []string{"listen", "data", "store", "admin-keys", "log-level", "log-format", "max-conns-per-ip", "metrics-listen", "fps", "lag-compensation", "client-timeout", "session-open-timeout", "idle-timeout", "max-keys-per-sec", "max-watchers-per-room", "http", "bots", "max-bot-rooms"} {
		envName := "TERMARENA_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if !strings.Contains(out.String(), "-"+name) || !strings.Contains(out.String(), envName) {
			t.Errorf("--help lacks %s / %s", name, envName)
		}
	}
	// A flag's line names it and at most one word for its value: Go's
	// flag package takes a backquoted word in the usage as the value's
	// name, and "for `termarena healthcheck`" made "-addr-file termarena
	// healthcheck" (issue 20).
	for _, l := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(l); strings.HasPrefix(l, "  -") && len(f) > 2 {
			t.Errorf("--help flag line %q: more than a flag and its value's name", l)
		}
	}
	if !strings.Contains(out.String(), "-addr-file FILE") {
		t.Errorf("--help does not name --addr-file's value FILE:\n%s", out.String())
	}
}

func TestBadConfigIsAUsageError(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--log-level", "loud"}, nil, "--log-level"},
		{[]string{"--log-format", "xml"}, nil, "--log-format"},
		{nil, map[string]string{"TERMARENA_MAX_CONNS_PER_IP": "lots"}, "TERMARENA_MAX_CONNS_PER_IP"},
		{nil, map[string]string{"TERMARENA_HANDSHAKE_TIMEOUT": "soon"}, "TERMARENA_HANDSHAKE_TIMEOUT"},
		{nil, map[string]string{"TERMARENA_CLIENT_TIMEOUT": "10"}, "TERMARENA_CLIENT_TIMEOUT"},
		{[]string{"--fps", "500"}, nil, "--fps"},
		{[]string{"--max-keys-per-sec", "10"}, nil, "--max-keys-per-sec"},
		{nil, map[string]string{"TERMARENA_MAX_KEYS_PER_SEC": "-1"}, "--max-keys-per-sec"},
		{[]string{"--max-watchers-per-room", "-5"}, nil, "--max-watchers-per-room"},
		{[]string{"--max-bot-rooms", "0"}, nil, "--max-bot-rooms"},
		{nil, map[string]string{"TERMARENA_BOTS": "maybe"}, "TERMARENA_BOTS"},
		{[]string{"--lag-compensation", "2s"}, nil, "--lag-compensation"},
		{[]string{"--lag-compensation", "-1ms"}, nil, "--lag-compensation"},
		{nil, map[string]string{"TERMARENA_LAG_COMPENSATION": "fair"}, "TERMARENA_LAG_COMPENSATION"},
		{[]string{"extra"}, nil, "unexpected argument"},
	} {
		var errOut bytes.Buffer
		if code := run(context.Background(), tc.args, env(tc.env), io.Discard, &errOut); code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v %v: exit %d, stderr %q", tc.args, tc.env, code, errOut.String())
		}
	}
}

// TestServeFromEnvAndShutdown starts the real binary's entry point with
// configuration from the environment only, plays a command against it,
// reads /metrics, then cancels (SIGTERM's path) and expects a clean exit.
// The log is on stdout (where `docker logs termarena | grep host_key`
// looks), names the build, and its last line comes once the database is
// closed.
func TestServeFromEnvAndShutdown(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	addr, metrics := freeAddr(t), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stdout, stderr syncBuffer
	go func() {
		done <- run(ctx, nil, env(map[string]string{
			"TERMARENA_LISTEN": addr, "TERMARENA_DATA": dir, "TERMARENA_LOG_FORMAT": "json",
			"TERMARENA_METRICS_LISTEN": metrics,
		}), &stdout, &stderr)
	}()
	c := waitUp(t, addr)
	if r := sshtest.RunOn(t, c, "whoami"); r.Code != 0 || !strings.Contains(r.Stdout, "ops") {
		t.Fatalf("whoami: %+v", r)
	}
	c.Close()
	if code := checkHealth(addr, io.Discard); code != 0 {
		t.Fatalf("healthcheck %d", code)
	}
	resp, err := http.Get("http://" + metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "termarena_players_online") {
		t.Fatalf("metrics: %s", body)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("did not shut down within 10 s")
	}
	if code := checkHealth(addr, io.Discard); code != 1 {
		t.Fatalf("healthcheck after shutdown %d, want 1", code)
	}

	if stderr.String() != "" {
		t.Errorf("a clean run wrote to stderr: %q", stderr.String())
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	find := func(msg string) map[string]any {
		for _, l := range lines {
			if l["msg"] == msg {
				return l
			}
		}
		t.Fatalf("no %q in the log on stdout:\n%s", msg, stdout.String())
		return nil
	}
	if hk, _ := find("termarena serving")["host_key"].(string); !strings.HasPrefix(hk, "SHA256:") {
		t.Errorf("host_key on stdout: %q", hk)
	}
	for _, k := range []string{"version", "revision", "built"} {
		if v, _ := find("termarena starting")[k].(string); v == "" {
			t.Errorf("startup log lacks %s", k)
		}
	}
	if p, _ := find("created a new, empty database: no players, ratings or bans yet")["path"].(string); p != filepath.Join(dir, "termarena.db") {
		t.Errorf("the new database's log line names %q", p)
	}
	if last := lines[len(lines)-1]["msg"]; last != "database closed; termarena stopped" {
		t.Errorf("last log line %q, want the one written after the database closed", last)
	}
}

// TestVersion: `termarena --version` names the version, VCS revision and
// build date on one line and exits 0.
func TestVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"--version"}, env(nil), &out, &errOut); code != 0 {
		t.Fatalf("--version exit %d: %s", code, errOut.String())
	}
	if !strings.HasPrefix(out.String(), "termarena ") || !strings.Contains(out.String(), "revision ") ||
		!strings.Contains(out.String(), "built ") || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("--version printed %q", out.String())
	}
}

// TestHealthcheckFollowsTheRealAddress is `docker run … termarena --listen
// ADDR`: the healthcheck sees only the image's environment, whose
// TERMARENA_LISTEN is not where the server listens, and must still find
// the server (here on a port the kernel chose).
func TestHealthcheckFollowsTheRealAddress(t *testing.T) {
	imageEnv := env(map[string]string{
		"TERMARENA_LISTEN":    freeAddr(t), // nothing listens there
		"TERMARENA_ADDR_FILE": filepath.Join(t.TempDir(), "addr"),
		"TERMARENA_DATA":      filepath.Join(t.TempDir(), "data"),
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"--listen", "127.0.0.1:0"}, imageEnv, io.Discard, io.Discard) }()
	deadline := time.Now().Add(10 * time.Second)
	var errOut bytes.Buffer
	for run(context.Background(), []string{"healthcheck"}, imageEnv, io.Discard, &errOut) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("healthcheck never passed: %s", errOut.String())
		}
		errOut.Reset()
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("server exit %d", code)
	}
	if code := run(context.Background(), []string{"healthcheck"}, imageEnv, io.Discard, io.Discard); code != 1 {
		t.Fatalf("healthcheck after shutdown %d, want 1", code)
	}
}

// TestPermissionErrorsNameTheUIDAndTheFix is a root-owned bind mount as the
// data dir, and a root-owned 0600 admin keys file: the server, running as
// the image's uid 65532 (or as the test's user when that is not root),
// must fail with exit 1 and say which uid needs access and how to give it.
func TestPermissionErrorsNameTheUIDAndTheFix(t *testing.T) {
	base := openDir(t)
	uid, gid := 65532, 65532
	if os.Getuid() != 0 {
		uid, gid = os.Getuid(), os.Getgid()
	}

	hostDir := filepath.Join(base, "host-data")
	if err := os.Mkdir(hostDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() != 0 {
		if err := os.Chmod(hostDir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(hostDir, 0o755) })
	}
	code, msg := runAs(t, base, "--listen", "127.0.0.1:0", "--data", hostDir)
	if want := fmt.Sprintf("chown -R %d:%d %s", uid, gid, hostDir); code != 1 || !strings.Contains(msg, "permission denied") ||
		!strings.Contains(msg, fmt.Sprintf("uid %d", uid)) || !strings.Contains(msg, want) {
		t.Errorf("unwritable data dir: exit %d, stderr %q; want exit 1 naming uid %d and %q", code, msg, uid, want)
	}

	ownData := filepath.Join(base, "data")
	keys := filepath.Join(base, "admin_keys")
	if err := os.Mkdir(ownData, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keys, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		if err := os.Chown(ownData, uid, gid); err != nil {
			t.Fatal(err)
		}
	} else if err := os.Chmod(keys, 0o200); err != nil {
		t.Fatal(err)
	}
	code, msg = runAs(t, base, "--listen", "127.0.0.1:0", "--data", ownData, "--admin-keys", keys)
	if code != 1 || !strings.Contains(msg, fmt.Sprintf("uid %d", uid)) || !strings.Contains(msg, "chmod 0644 it") ||
		!strings.Contains(msg, fmt.Sprintf("chown %d %s", uid, keys)) {
		t.Errorf("unreadable admin keys: exit %d, stderr %q", code, msg)
	}
}

// runAs runs termarena with args: as uid 65532 in a child process when the
// test runs as root (root reads and writes anything), else in-process as
// the test's own user. It returns the exit code and stderr.
func runAs(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if os.Getuid() != 0 {
		var errOut bytes.Buffer
		return run(ctx, args, env(nil), io.Discard, &errOut), errOut.String()
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary lives in a directory only root can enter.
	bin := filepath.Join(dir, "termarena")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = []string{"TERMARENA_TEST_MAIN=1", "TERMARENA_HTTP=127.0.0.1:0"} // never :8080, which another server may hold
	cmd.Dir = dir
	cmd.Stderr = &errOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65532, Gid: 65532}}
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("termarena %v did not exit: %s", args, errOut.String())
	}
	if err != nil && cmd.ProcessState == nil {
		t.Fatalf("run as uid 65532: %v", err)
	}
	return cmd.ProcessState.ExitCode(), errOut.String()
}

// openDir is a temporary directory anyone may enter, as a host directory's
// parent is.
func openDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "termarena-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func waitUp(t *testing.T, addr string) *gossh.Client {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := gossh.Dial("tcp", addr, sshtest.Config("ops", sshtest.NewKey(t)))
		if err == nil {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("server never came up: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// syncBuffer is a bytes.Buffer the server's goroutines may log into while
// the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestLoopbackOnly: the metrics addresses a container's host cannot reach
// when published, and those it can.
func TestLoopbackOnly(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:9100": true, "localhost:9100": true, "[::1]:9100": true, "127.0.0.2:9100": true,
		":9100": false, "0.0.0.0:9100": false, "[::]:9100": false, "10.0.0.5:9100": false, "9100": false,
	} {
		if got := loopbackOnly(addr); got != want {
			t.Errorf("loopbackOnly(%q) = %v, want %v", addr, got, want)
		}
	}
}

// Issue 20: an existing data dir of mode 0755 was used without a word.
// The log warns, naming the mode and the chmod; a 0700 one is not warned.
func TestOpenDataDirIsWarnedInTheLog(t *testing.T) {
	for _, mode := range []os.FileMode{0o755, 0o700} {
		dir := filepath.Join(t.TempDir(), "data")
		if err := os.Mkdir(dir, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil { // whatever the umask
			t.Fatal(err)
		}
		addr := freeAddr(t)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, 1)
		var stdout syncBuffer
		go func() {
			done <- run(ctx, nil, env(map[string]string{"TERMARENA_LISTEN": addr, "TERMARENA_DATA": dir}), &stdout, io.Discard)
		}()
		waitUp(t, addr).Close()
		cancel()
		<-done
		warned := strings.Contains(stdout.String(), "the data dir is open to other users of this host (mode 0755): chmod 700 "+dir)
		if warned != (mode == 0o755) {
			t.Errorf("data dir %04o: warned %v:\n%s", mode, warned, stdout.String())
		}
	}
}
