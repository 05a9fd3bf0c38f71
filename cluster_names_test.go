package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/store/postgres/pgtest"
)

// A node restarted with its data dir right after a kill -9 takes its name
// back at once: the name's key still holds the dead process's claim, which
// the data dir's instance file proves gone (the restarted process holds
// its lock). Before, the restart waited out the name's lapse (up to 12 s,
// "this node's name is held; waiting"). A second process started with the
// same name and the same data dir while the node runs is still refused:
// it cannot take the file's lock, so it proves nothing.
func TestClusterNodeRestartedAfterKill9TakesItsNameBackE2E(t *testing.T) {
	db := pgtest.URL(t)
	url := natstest.Start(t)
	dir := filepath.Join(t.TempDir(), "n1")
	n1 := startNodeProcess(t, url, db, "n1", "--data", dir)
	n1.kill9(t)

	at := time.Now()
	n1 = startNodeProcess(t, url, db, "n1", "--data", dir)
	t.Logf("restarted after kill -9 and serving in %v", time.Since(at).Round(time.Millisecond))
	log := n1.log.String()
	if strings.Contains(log, "this node's name is held; waiting") || !strings.Contains(log, "took this node's name back from its previous process") {
		t.Fatalf("the restarted n1 did not take its name back at once:\n%s", log)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	code := run(ctx, []string{"--listen", freeAddr(t), "--data", dir, "--store", db, "--nats", url, "--node", "n1"}, env(nil), io.Discard, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), `another live node has this node's name: node "n1" is running`) {
		t.Fatalf("a second n1 on the live n1's data dir: exit %d, stderr %q; want exit 1, refused", code, stderr.String())
	}
}
