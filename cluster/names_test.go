package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/cluster/natstest"
)

// One name, one live node: a second node with a live node's name (in any
// case: room ids are lower case) is refused, naming the host that has it;
// a name given back at a clean stop is free at once; the name of a node
// killed without a word is free once its claim lapses, and a node started
// with it meanwhile waits rather than failing.
func TestNodeNamesAreUnique(t *testing.T) {
	url := natstest.Start(t)
	short := NameTiming{TTL: 600 * time.Millisecond, Renew: 200 * time.Millisecond}
	ctx := context.Background()

	first := connect(t, url, "n1")
	stop1, err := first.ClaimName(ctx, short)
	if err != nil {
		t.Fatal(err)
	}
	twin := connect(t, url, "N1")
	if _, err := twin.ClaimName(ctx, short); !errors.Is(err, ErrNameTaken) || !strings.Contains(err.Error(), `node "N1" is running on host`) {
		t.Fatalf("a second n1 while the first lives: %v, want ErrNameTaken naming the host", err)
	}

	stop1()
	again := connect(t, url, "n1")
	start := time.Now()
	stop2, err := again.ClaimName(ctx, short)
	if err != nil {
		t.Fatalf("n1 after a clean stop: %v", err)
	}
	if waited := time.Since(start); waited > short.TTL {
		t.Errorf("n1 after a clean stop waited %v: the name was not given back", waited)
	}
	_ = stop2 // killed below instead

	again.nc.Close() // as kill -9: no goodbye, no more renewals
	restarted := connect(t, url, "n1")
	start = time.Now()
	stop3, err := restarted.ClaimName(ctx, short)
	if err != nil {
		t.Fatalf("n1 restarted after its node was killed: %v", err)
	}
	defer stop3()
	t.Logf("the name of a killed node was taken again after %v (TTL %v)", time.Since(start).Round(time.Millisecond), short.TTL)
	stop2()
}
