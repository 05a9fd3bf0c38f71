package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The matchmaker's lease: one key in a JetStream key-value bucket whose
// entries live TTL after their last write. The node that creates the key
// (create-if-absent) holds the lease and rewrites it every Renew; when it
// dies the key expires and the first node to create it again takes over.
// NATS orders the writes: there is no election of ours.
const (
	bucketLeases  = "termarena_leases"
	keyMatchmaker = "matchmaker"
)

// LeaseTiming is how long a lease lives unrenewed, how often its holder
// renews it and how often the others try to take it. A holder that has not
// renewed for TTL − Renew stops acting as holder, a Renew before the key
// can expire and another node take it, so two nodes never both hold it
// (as long as a write's round trip is under Renew). Failover takes at most
// TTL + Poll after the holder's last renewal.
type LeaseTiming struct {
	TTL   time.Duration // default 3s
	Renew time.Duration // default TTL/3
	Poll  time.Duration // default TTL/6
}

func (t LeaseTiming) withDefaults() LeaseTiming {
	if t.TTL <= 0 {
		t.TTL = 3 * time.Second
	}
	if t.Renew <= 0 || t.Renew >= t.TTL {
		t.Renew = t.TTL / 3
	}
	if t.Poll <= 0 {
		t.Poll = t.TTL / 6
	}
	return t
}

// Lease is this node's view of the matchmaker lease.
type Lease struct {
	node   string
	mine   atomic.Bool
	holder atomic.Pointer[string] // the holder last seen; "" none
}

// Holding reports whether this node holds the lease now.
func (l *Lease) Holding() bool { return l.mine.Load() }

// Holder is the node holding the lease as last seen (within a Poll): this
// node's name while it holds it, "" while nobody does.
func (l *Lease) Holder() string {
	if l.mine.Load() {
		return l.node
	}
	if h := l.holder.Load(); h != nil {
		return *h
	}
	return ""
}

func (l *Lease) setHolder(h string) { l.holder.Store(&h) }

// TakeLease competes for the cluster's matchmaker lease until stop, which
// hands it back at once (deleting the key, so another node need not wait
// for it to expire) and returns once the lease's goroutine has ended.
func (n *Node) TakeLease(t LeaseTiming) (l *Lease, stop func(), err error) {
	t = t.withDefaults()
	js, err := jetstream.New(n.nc)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: jetstream: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      bucketLeases,
		Description: "termarena: who runs the one matchmaker (a key lives TTL after its holder's last renewal)",
		TTL:         t.TTL,
		History:     1,
		Storage:     jetstream.MemoryStorage, // a lease outlives no NATS restart, nor need it
	})
	cancel()
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: the lease bucket: %w", err)
	}
	l = &Lease{node: n.name}
	runCtx, stopRun := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		n.leaseLoop(runCtx, kv, l, t)
	}()
	return l, func() { stopRun(); <-done }, nil
}

func (n *Node) leaseLoop(ctx context.Context, kv jetstream.KeyValue, l *Lease, t LeaseTiming) {
	var (
		rev       uint64
		renewed   time.Time // when the last successful write was sent
		validTill time.Time // renewed + TTL − Renew
		failing   bool      // a renewal failed: logged once
	)
	op := func(f func(context.Context) error) error {
		c, cancel := context.WithTimeout(ctx, t.Renew)
		defer cancel()
		return f(c)
	}
	stepDown := func(why string) {
		l.mine.Store(false)
		l.setHolder("")
		n.log.Warn("cluster: no longer runs the matchmaker", "why", why)
	}
	attempt := func() {
		now := time.Now()
		if l.mine.Load() {
			if now.After(validTill) {
				stepDown("the lease was not renewed in time")
				return
			}
			if now.Sub(renewed) < t.Renew {
				return
			}
			err := op(func(c context.Context) error {
				r, err := kv.Update(c, keyMatchmaker, []byte(n.name), rev)
				if err == nil {
					rev = r
				}
				return err
			})
			if err != nil {
				if !failing {
					n.log.Warn("cluster: renewing the matchmaker lease", "err", err)
					failing = true
				}
				return // held until validTill: nobody can take it before
			}
			failing = false
			renewed, validTill = now, now.Add(t.TTL-t.Renew)
			return
		}
		err := op(func(c context.Context) error {
			r, err := kv.Create(c, keyMatchmaker, []byte(n.name))
			if err == nil {
				rev = r
			}
			return err
		})
		if err == nil {
			renewed, validTill, failing = now, now.Add(t.TTL-t.Renew), false
			l.mine.Store(true)
			n.log.Info("cluster: this node runs the matchmaker (took the lease)")
			return
		}
		if errors.Is(err, jetstream.ErrKeyExists) {
			_ = op(func(c context.Context) error {
				e, err := kv.Get(c, keyMatchmaker)
				if err == nil {
					l.setHolder(string(e.Value()))
				}
				return err
			})
			return
		}
		l.setHolder("") // NATS away: who holds it is not known
	}
	tick := time.NewTicker(t.Poll)
	defer tick.Stop()
	attempt()
	for {
		select {
		case <-ctx.Done():
			if l.mine.Load() {
				l.mine.Store(false)
				// Hand it back now: the next node need not wait out TTL.
				c, cancel := context.WithTimeout(context.Background(), time.Second)
				if err := kv.Delete(c, keyMatchmaker, jetstream.LastRevision(rev)); err != nil {
					n.log.Warn("cluster: handing back the matchmaker lease; it expires instead", "err", err)
				}
				cancel()
			}
			return
		case <-tick.C:
			attempt()
		}
	}
}
