package cluster

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/termarena/termarena/cluster/natstest"
)

// holderWatch samples every lease every few milliseconds until stopped and
// remembers the most nodes that held it at one moment.
type holderWatch struct {
	mu     sync.Mutex
	leases []*Lease
	most   atomic.Int32
	stop   chan struct{}
	done   chan struct{}
}

func watchHolders(leases ...*Lease) *holderWatch {
	w := &holderWatch{leases: leases, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			select {
			case <-w.stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			w.mu.Lock()
			n := int32(0)
			for _, l := range w.leases {
				if l.Holding() {
					n++
				}
			}
			w.mu.Unlock()
			if n > w.most.Load() {
				w.most.Store(n)
			}
		}
	}()
	return w
}

func (w *holderWatch) add(l *Lease) { w.mu.Lock(); w.leases = append(w.leases, l); w.mu.Unlock() }

func (w *holderWatch) end() int { close(w.stop); <-w.done; return int(w.most.Load()) }

func holding(nodes []*Node, leases []*Lease) (who []string) {
	for i, l := range leases {
		if l.Holding() {
			who = append(who, nodes[i].name)
		}
	}
	return who
}

// Three nodes compete for the matchmaker lease with the default timing:
// exactly one holds it and every node names it; when the holder's NATS
// connection is cut (as if its process were killed), another takes it
// within 5 s — three times in a row, a new node joining for the third —
// and at no moment do two nodes hold it.
func TestLeaseOneHolderAndFailover(t *testing.T) {
	url := natstest.Start(t)
	var nodes []*Node
	var leases []*Lease
	join := func(name string) {
		n := connect(t, url, name)
		l, stop, err := n.TakeLease(LeaseTiming{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
		nodes, leases = append(nodes, n), append(leases, l)
	}
	for i := range 3 {
		join(fmt.Sprintf("n%d", i+1))
	}
	w := watchHolders(leases...)
	eventually(t, "one node holds the lease", func() bool { return len(holding(nodes, leases)) == 1 })
	holder := holding(nodes, leases)[0]
	eventually(t, "every node names the holder", func() bool {
		for _, l := range leases {
			if l.Holder() != holder {
				return false
			}
		}
		return true
	})

	dead := map[string]bool{}
	var took []time.Duration
	for run := range 3 {
		if run == 2 {
			join("n4")
			w.add(leases[len(leases)-1])
		}
		old := holding(nodes, leases)
		if len(old) != 1 {
			t.Fatalf("run %d: holders %v, want one", run, old)
		}
		var victim *Node
		for _, n := range nodes {
			if n.name == old[0] {
				victim = n
			}
		}
		dead[victim.name] = true
		cut := time.Now()
		victim.nc.Close() // no goodbye: the lease must expire
		var next string
		deadline := cut.Add(20 * time.Second)
		for next == "" {
			for i, l := range leases {
				if l.Holding() && !dead[nodes[i].name] {
					next = nodes[i].name
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %d: nobody took the lease within 20s of %s dying", run, victim.name)
			}
			time.Sleep(5 * time.Millisecond)
		}
		took = append(took, time.Since(cut))
		t.Logf("run %d: %s died, %s took the lease after %v", run, victim.name, next, took[run].Round(time.Millisecond))
		eventually(t, "the dead holder stops acting as holder", func() bool {
			for i, l := range leases {
				if nodes[i] == victim && l.Holding() {
					return false
				}
			}
			return true
		})
	}
	if most := w.end(); most > 1 {
		t.Fatalf("%d nodes held the lease at one moment", most)
	}
	for run, d := range took {
		// The lease lives 3 s unrenewed and the others try every 0.5 s:
		// 3.5 s at worst, asserted with room for a loaded machine.
		if d > 8*time.Second {
			t.Errorf("run %d: failover took %v, want about 3.5 s at most", run, d)
		}
	}
}

// A holder that stops hands the lease back: another node takes it without
// waiting for it to expire.
func TestLeaseHandedBackOnStop(t *testing.T) {
	url := natstest.Start(t)
	n1, n2 := connect(t, url, "n1"), connect(t, url, "n2")
	l1, stop1, err := n1.TakeLease(LeaseTiming{})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "n1 holds the lease", l1.Holding)
	l2, stop2, err := n2.TakeLease(LeaseTiming{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop2()
	eventually(t, "n2 names n1 the holder", func() bool { return l2.Holder() == "n1" })
	stopped := time.Now()
	stop1()
	if l1.Holding() {
		t.Fatal("n1 still holds the lease after stopping")
	}
	eventually(t, "n2 takes the lease", l2.Holding)
	t.Logf("n2 took the lease %v after n1 stopped", time.Since(stopped).Round(time.Millisecond))
}
