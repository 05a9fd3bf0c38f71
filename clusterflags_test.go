package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
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
