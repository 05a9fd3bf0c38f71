package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/cluster/natstest"
	"github.com/termarena/termarena/sshtest"
	"github.com/termarena/termarena/store/postgres/pgtest"
)

// --nats alone, or beside the bbolt file, is refused before anything
// starts, saying what a cluster needs; so is --node without --nats and a
// URL that is not NATS's.
func TestClusterFlagsNeedASharedStore(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--nats", "nats://127.0.0.1:4222"}, nil, "--nats needs --store postgres://"},
		{nil, map[string]string{"TERMARENA_NATS": "nats://127.0.0.1:4222"}, "--nats needs --store postgres://"},
		{[]string{"--node", "eu-1"}, nil, "--node names a node of a cluster: it needs --nats"},
		{[]string{"--nats", "127.0.0.1:4222"}, nil, "wants a nats:// or tls:// URL"},
		{[]string{"--nats", "nats://127.0.0.1:4222", "--store", "postgres://db/t", "--node", "n@1"}, nil, "a node's name is 1 to 64 letters, digits"},
	} {
		var errOut bytes.Buffer
		if code := run(context.Background(), tc.args, env(tc.env), io.Discard, &errOut); code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v %v: exit %d, stderr %q, want exit 2 saying %q", tc.args, tc.env, code, errOut.String(), tc.want)
		}
	}
}

// A node is named after its host unless --node says otherwise.
func TestClusterNodeDefaultsToTheHostName(t *testing.T) {
	host := func() (string, error) { return "box7", nil }
	node := ""
	if err := checkCluster(&node, "nats://n:4222", "postgres://db/t", host); err != nil || node != "box7" {
		t.Fatalf("node %q, err %v; want box7", node, err)
	}
	node = "eu-1"
	if err := checkCluster(&node, "nats://n:4222", "postgres://db/t", host); err != nil || node != "eu-1" {
		t.Fatalf("node %q, err %v; want eu-1 as given", node, err)
	}
	node = ""
	noHost := func() (string, error) { return "", errors.New("no uts") }
	if err := checkCluster(&node, "nats://n:4222", "postgres://db/t", noHost); err == nil || !strings.Contains(err.Error(), "name this node with --node") {
		t.Fatalf("without a host name: %v", err)
	}
}

// A node started with the name of a live node stops at start with exit 1
// and says which host has the name, before its SSH port opens; the first
// node plays on.
func TestClusterNodeNameInUseRefused(t *testing.T) {
	url := pgtest.URL(t)
	nats := natstest.Start(t)
	first := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stdout1, stderr1 syncBuffer
	go func() {
		done <- run(ctx, []string{"--listen", first, "--data", t.TempDir(), "--store", url, "--nats", nats, "--node", "eu-1"}, env(nil), &stdout1, &stderr1)
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("the first eu-1: exit %d: %s", code, stderr1.String())
		}
	}()
	waitUp(t, first).Close()

	second := freeAddr(t)
	var stderr2 bytes.Buffer
	// Refused within a renewal (2 s); one that starts instead is stopped
	// here, and fails the test.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel2()
	code := run(ctx2, []string{"--listen", second, "--data", t.TempDir(), "--store", url, "--nats", nats, "--node", "EU-1"}, env(nil), io.Discard, &stderr2)
	if code != 1 || !strings.Contains(stderr2.String(), `another live node has this node's name: node "EU-1" is running on host`) ||
		!strings.Contains(stderr2.String(), "give this one another --node") {
		t.Fatalf("a second eu-1: exit %d, stderr %q; want exit 1 naming the host that has the name", code, stderr2.String())
	}
	if c, err := net.DialTimeout("tcp", second, time.Second); err == nil {
		c.Close()
		t.Error("the refused node opened its SSH port")
	}
	if r := sshtest.Run(t, first, "quinn", sshtest.NewKey(t), "whoami"); r.Code != 0 {
		t.Errorf("the first eu-1 after the second was refused: %+v", r)
	}
}
