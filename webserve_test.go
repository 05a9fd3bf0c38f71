package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The web face is served beside SSH on --http, from the same server: the
// front page lists the ranked modes of the server's catalogue.
func TestWebFaceServesBesideSSH(t *testing.T) {
	sshAddr, webAddr := freeAddr(t), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--listen", sshAddr, "--http", webAddr, "--data", filepath.Join(t.TempDir(), "d")}, env(nil), io.Discard, io.Discard)
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("server exit %d", code)
		}
	}()
	waitUp(t, sshAddr).Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + webAddr + "/")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(body), `href="/leaderboard/tron-ffa"`) {
				t.Fatalf("front page: %d\n%s", resp.StatusCode, body)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the web face never answered: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An address the web face cannot have stops the start with a message
// naming the flag, before anyone connects; --http "" needs no address.
func TestWebListenFailureIsAStartupError(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	var errOut syncBuffer
	code := run(context.Background(), []string{"--listen", "127.0.0.1:0", "--http", taken.Addr().String(), "--data", filepath.Join(t.TempDir(), "d")}, env(nil), io.Discard, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), `--http `+taken.Addr().String()+`; --http "" turns the web face off`) {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}

	ctx, cancel := context.WithCancel(context.Background())
	sshAddr := freeAddr(t)
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--listen", sshAddr, "--http", "", "--data", filepath.Join(t.TempDir(), "d")}, env(map[string]string{"TERMARENA_HTTP": ":8080"}), io.Discard, io.Discard)
	}()
	waitUp(t, sshAddr).Close()
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("with --http \"\": exit %d", code)
	}
}
