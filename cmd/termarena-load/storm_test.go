package main

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

func TestStormModeAgainstRealServer(t *testing.T) {
	t.Parallel()
	addr, _ := startServerWith(t, 1000)
	rep := runTool(t, "--addr", addr, "--mode", "storm", "--players", "4", "--ramp", "100", "--duration", "3s")
	checkStorm(t, rep.Termarena, false)
}

func TestStormFreshKeysAgainstRealServer(t *testing.T) {
	t.Parallel()
	addr, _ := startServerWith(t, 1000)
	rep := runTool(t, "--addr", addr, "--mode", "storm", "--storm-fresh", "--storm-keys", "5000", "--players", "4", "--ramp", "100", "--duration", "3s")
	st := checkStorm(t, rep.Termarena, true)
	if st.KeysMade != 5000 || st.KeysUsed < int(st.Completed) || st.KeysRanOutAt != 0 {
		t.Errorf("keys made %d used %d (ran out at %.1fs) for %d sessions; want 5000, at least one per session, never out", st.KeysMade, st.KeysUsed, st.KeysRanOutAt, st.Completed)
	}
}

// TestStormFreshKeysRunOut: a pool smaller than the storm needs stops the
// bots and says so, rather than reusing keys.
func TestStormFreshKeysRunOut(t *testing.T) {
	t.Parallel()
	addr, _ := startServerWith(t, 1000)
	rep := runTool(t, "--addr", addr, "--mode", "storm", "--storm-fresh", "--storm-keys", "6", "--players", "2", "--ramp", "100", "--duration", "3s")
	st := rep.Termarena.Summary.Storm
	if st == nil || st.KeysUsed != 6 || st.Completed != 6 || st.Failed != 0 || st.KeysRanOutAt == 0 {
		t.Fatalf("storm %+v; want all 6 keys used for 6 sessions, then a note that they ran out", st)
	}
}

// TestStormBaseline: the baseline server answers whoami like termarena,
// with key authentication, so --compare works in storm mode.
func TestStormBaseline(t *testing.T) {
	t.Parallel()
	rep := runTool(t, "--baseline", "--mode", "storm", "--players", "2", "--ramp", "100", "--duration", "2s")
	checkStorm(t, rep.Baseline, false)
	if rep.Baseline.Summary.Server == nil || rep.Baseline.Summary.Server.UsPerSession <= 0 {
		t.Errorf("baseline CPU %+v: want µs per session", rep.Baseline.Summary.Server)
	}
}

func checkStorm(t *testing.T, res *result, fresh bool) *stormSummary {
	t.Helper()
	if res == nil || res.Summary.Storm == nil {
		t.Fatal("no storm summary")
	}
	st := res.Summary.Storm
	if st.Completed == 0 || st.Failed != 0 || st.Failures.total() != 0 || len(res.Summary.Errors) != 0 {
		t.Errorf("completed %d, failed %d %+v %v; want some and no failures", st.Completed, st.Failed, st.Failures, res.Summary.Errors)
	}
	if st.FreshKeys != fresh || st.Latency.Count != st.Completed || st.Latency.P50 <= 0 || st.Latency.P99 < st.Latency.P50 || st.Latency.Max < st.Latency.P99/1.02 {
		t.Errorf("fresh %v, latency %+v for %d sessions", st.FreshKeys, st.Latency, st.Completed)
	}
	var sum uint64
	for _, s := range res.Samples {
		if s.Storm == nil {
			t.Fatalf("sample at %.1fs has no storm figures", s.T)
		}
		sum += s.Storm.Completed
	}
	if sum != st.Completed {
		t.Errorf("per-second completions add up to %d, summary says %d", sum, st.Completed)
	}
	return st
}

// TestStormClassifiesPerIPCap holds the only connection a server allows
// from 127.0.0.1 open, so the next login must be refused by the cap and
// reported as such, not as a handshake failure.
func TestStormClassifiesPerIPCap(t *testing.T) {
	t.Parallel()
	addr, _ := startServerWith(t, 1)
	k, err := newStormKey("capbot")
	if err != nil {
		t.Fatal(err)
	}
	// Logins work while the address is free.
	if _, kind, err := stormSession(t.Context(), addr, nil, k); err != nil {
		t.Fatalf("first login: kind %d: %v", kind, err)
	}
	// Hold a connection that the server counts: it sent its SSH banner.
	// The first may still be refused: the server releases the login's
	// slot only once it has seen that connection close.
	var hold net.Conn
	for attempt := 0; hold == nil; attempt++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		buf := make([]byte, 4)
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := io.ReadFull(c, buf)
		switch {
		case string(buf[:n]) == "SSH-":
			hold = c
		case attempt == 50:
			t.Fatalf("no connection accepted in 50 attempts: %q %v", buf[:n], err)
		default:
			c.Close()
			time.Sleep(20 * time.Millisecond)
		}
	}
	_, kind, err := stormSession(t.Context(), addr, nil, k)
	if kind != failPerIPCap || err == nil || !strings.Contains(err.Error(), "too many connections") {
		t.Errorf("login over the cap: kind %d, err %v; want the per-IP cap", kind, err)
	}
	// A server that closes without a word is a handshake failure.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, kind, err := stormSession(ctx, ln.Addr().String(), nil, k); kind != failHandshake || err == nil {
		t.Errorf("login to a closing listener: kind %d, err %v; want a handshake failure", kind, err)
	}
}

func TestCheckWhoami(t *testing.T) {
	const fp = "SHA256:abc"
	out := "name         ann\nfingerprint  SHA256:abc\nkey type     ssh-ed25519\nfirst seen   2026-01-02 03:04 UTC\n"
	for _, tc := range []struct {
		out, name string
		ok        bool
	}{
		{out, "ann", true},
		{strings.Replace(out, "ann", "ann-2", 1), "ann", true}, // the name was taken: the server derived one
		{strings.Replace(out, "ann", "bob", 1), "ann", false},
		{strings.Replace(out, "abc", "abd", 1), "ann", false},
		{"name         ann\n", "ann", false},
		{"", "ann", false},
	} {
		if why := checkWhoami(tc.out, tc.name, fp); (why == "") != tc.ok {
			t.Errorf("%q as %s: %q, want ok=%v", tc.out, tc.name, why, tc.ok)
		}
	}
}

func TestLatencyHistogram(t *testing.T) {
	var h latHist
	// 0 and 1..1000 ms: nearest rank p50 500 ms, p90 900 ms, p99 990 ms.
	for i := 1; i <= 1000; i++ {
		h.observe(time.Duration(i) * time.Millisecond)
	}
	h.observe(0) // the first bucket takes what is below it
	s := h.snapshot()
	if s.count() != 1001 {
		t.Fatalf("count %d", s.count())
	}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Millisecond}, {0.9, 900 * time.Millisecond}, {0.99, 990 * time.Millisecond}} {
		got, ok := s.quantile(tc.q)
		if !ok || got < tc.want*98/100 || got > tc.want*102/100 {
			t.Errorf("p%g = %v, want %v within 2%%", 100*tc.q, got, tc.want)
		}
	}
	// The difference of two snapshots holds only what came between.
	for range 10 {
		h.observe(5 * time.Second)
	}
	d := h.snapshot().minus(s)
	if got, _ := d.quantile(0.5); d.count() != 10 || got < 4900*time.Millisecond || got > 5100*time.Millisecond {
		t.Errorf("difference: %d observations, p50 %v; want 10 at 5s", d.count(), got)
	}
	if st := h.snapshot().stats(true); st.Max != 5000 {
		t.Errorf("max %v ms, want 5000", st.Max)
	}
	if _, ok := (latSnap{}).quantile(0.5); ok {
		t.Error("quantile of nothing")
	}
}

func TestAutoStormKeys(t *testing.T) {
	for _, tc := range []struct {
		players int
		d       time.Duration
		want    int
	}{
		{4, 10 * time.Second, 4000},             // 100/s per bot
		{64, 10 * time.Second, 10000},           // 1000/s in all
		{64, 10 * time.Hour, maxStormKeys},      // capped
		{5000, 100 * time.Millisecond, 5000},    // at least one per bot
		{16, 1500 * time.Millisecond, 2 * 1000}, // whole seconds, rounded up
	} {
		if got := autoStormKeys(tc.players, tc.d); got != tc.want {
			t.Errorf("autoStormKeys(%d, %v) = %d, want %d", tc.players, tc.d, got, tc.want)
		}
	}
}
