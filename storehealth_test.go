package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/bolt"
)

// TestHealthcheckReportsADamagedStore damages a page of one bucket (the
// audit log) under a server that already said "serving", as a bad sector
// would: commands reading it fail, so `termarena healthcheck` must fail
// too (it passed before, the server still answering SSH), /metrics must
// say so, and the log must name the bucket.
func TestHealthcheckReportsADamagedStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	dbFile := filepath.Join(dir, "termarena.db")
	st, err := bolt.Open(dbFile, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 150 {
		if err := st.Audit(context.Background(), store.AuditEntry{Actor: "ops", Action: store.ActionAnnounce, Reason: fmt.Sprintf("notice %d of a long enough text to fill pages", i)}); err != nil {
			t.Fatal(err)
		}
	}
	var page, pageSize int64
	if err := st.DB().View(func(tx *bbolt.Tx) error {
		page, pageSize = int64(tx.Bucket([]byte("audit")).Root()), int64(tx.DB().Info().PageSize)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if page == 0 {
		t.Fatal("the audit bucket is inline: no page of its own to damage")
	}

	imageEnv := env(map[string]string{
		"TERMARENA_ADDR_FILE":            filepath.Join(t.TempDir(), "addr"),
		"TERMARENA_DATA":                 dir,
		"TERMARENA_STORE_CHECK_INTERVAL": "20ms",
	})
	metrics := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var log syncBuffer
	go func() {
		done <- run(ctx, []string{"--listen", "127.0.0.1:0", "--metrics-listen", metrics}, imageEnv, &log, io.Discard)
	}()
	healthcheck := func() (int, string) {
		var errOut bytes.Buffer
		code := run(context.Background(), []string{"healthcheck"}, imageEnv, io.Discard, &errOut)
		return code, errOut.String()
	}
	storeGauge := func() string {
		resp, err := http.Get("http://" + metrics + "/metrics")
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		for l := range strings.Lines(string(body)) {
			if strings.HasPrefix(l, "termarena_store_healthy ") {
				return strings.TrimSpace(l)
			}
		}
		return ""
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s never happened; log:\n%s", what, log.String())
			}
		}
	}
	waitFor("a passing healthcheck", func() bool { code, _ := healthcheck(); return code == 0 })
	if g := storeGauge(); g != "termarena_store_healthy 1" {
		t.Errorf("metrics of a healthy store: %q", g)
	}

	f, err := os.OpenFile(dbFile, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	garbage := bytes.Repeat([]byte{0x5a, 0xa5, 0x13, 0x37}, int(pageSize)/4)
	if _, err := f.WriteAt(garbage, page*pageSize); err != nil {
		t.Fatal(err)
	}
	f.Close()

	var msg string
	waitFor("a failing healthcheck", func() bool {
		var code int
		code, msg = healthcheck()
		return code == 1
	})
	if !strings.Contains(msg, `bucket "audit" is damaged`) {
		t.Errorf("healthcheck's message: %q; want the damaged bucket named", msg)
	}
	if g := storeGauge(); g != "termarena_store_healthy 0" {
		t.Errorf("metrics of a damaged store: %q", g)
	}
	if !strings.Contains(log.String(), "database damaged") || !strings.Contains(log.String(), "bucket=audit") {
		t.Errorf("the log does not name the damaged bucket:\n%s", log.String())
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("server exit %d", code)
	}
}
