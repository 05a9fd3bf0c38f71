package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/termarena/termarena/cluster/natstest"
)

// A join code is one node's: a second node cannot claim it while the
// first lives, finds the first's room by it, and takes it over once the
// first node is gone (killed: its name lapsed); a code given back is free
// at once.
func TestJoinCodesAreTheClusters(t *testing.T) {
	url := natstest.Start(t)
	short := NameTiming{TTL: 600 * time.Millisecond, Renew: 200 * time.Millisecond}
	node := func(name string) *Codes {
		n := connect(t, url, name)
		stop, err := n.ClaimName(context.Background(), short)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
		n.Advertise(name + ".example.com:2222")
		c, stopCodes, err := n.ShareCodes()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stopCodes)
		return c
	}
	c1, c2 := node("n1"), node("n2")
	if ok, err := c1.Claim("abcde"); !ok || err != nil {
		t.Fatalf("n1 claims a new code: %v %v", ok, err)
	}
	c1.Bind("abcde", "r4@n1")
	if ok, err := c2.Claim("abcde"); ok || err != nil {
		t.Fatalf("n2 claims n1's code: %v %v; want refused", ok, err)
	}
	eventually(t, "n2 finds n1's room by its code, with n1's address", func() bool {
		room, node, ssh, ok := c2.Find("abcde")
		return ok && room == "r4@n1" && node == "n1" && ssh == "n1.example.com:2222"
	})
	if _, _, _, ok := c1.Find("abcde"); ok {
		t.Error("n1 finds its own code in the book: its own rooms are its own map's")
	}
	c1.Release("abcde")
	eventually(t, "a code given back is free", func() bool {
		ok, _ := c2.Claim("abcde")
		return ok
	})
	if ok, _ := c2.Claim("fghjk"); !ok {
		t.Fatal("n2 claims another code")
	}
	// n2 dies without a word: once its name lapses its code is free.
	c3 := node("n3")
	if ok, _ := c3.Claim("fghjk"); ok {
		t.Fatal("n3 took n2's code while n2 lives")
	}
	c2.n.nc.Close()
	eventually(t, "n3 takes the code of the killed n2", func() bool { ok, _ := c3.Claim("fghjk"); return ok })
	if _, _, _, ok := c1.Find("fghjk"); !ok {
		t.Error("n1 does not find n3's room by the code it took over")
	}
}
