package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/sshtest"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestHelpDocumentsEveryFlagAndEnv(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, env(nil), io.Discard, &out); code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for _, name := range []string{"listen", "data", "admin-keys", "log-level", "log-format", "max-conns-per-ip", "metrics-listen", "fps"} {
		envName := "TERMARENA_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if !strings.Contains(out.String(), "-"+name) || !strings.Contains(out.String(), envName) {
			t.Errorf("--help lacks %s / %s", name, envName)
		}
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
		{[]string{"--fps", "500"}, nil, "--fps"},
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
func TestServeFromEnvAndShutdown(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	addr, metrics := freeAddr(t), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, nil, env(map[string]string{
			"TERMARENA_LISTEN": addr, "TERMARENA_DATA": dir, "TERMARENA_LOG_FORMAT": "json",
			"TERMARENA_METRICS_LISTEN": metrics,
		}), io.Discard, io.Discard)
	}()
	var c *gossh.Client
	deadline := time.Now().Add(10 * time.Second)
	for {
		var err error
		if c, err = gossh.Dial("tcp", addr, sshtest.Config("ops", sshtest.NewKey(t))); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server never came up: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
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
