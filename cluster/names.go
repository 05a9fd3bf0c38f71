package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A node's name is its own while it runs: a key in a JetStream key-value
// bucket whose entries live TTL after their last write, created by the
// node at start (create-if-absent) and rewritten every Renew. Two nodes
// with one name would split one node's sessions, rooms (r3@n1 twice) and
// queue between two processes, so a second one is refused at start. A
// node killed without a word leaves its key behind for at most TTL; a node
// restarted with its name meanwhile waits that out (a key that nobody
// renews is a dead node's) rather than failing, and one whose key is
// renewed while it waits is a live node's: refused.
const bucketNodes = "termarena_nodes"

// NameTiming is how long a node's name stays claimed unrenewed and how
// often its node renews it.
type NameTiming struct {
	TTL   time.Duration // default 6s
	Renew time.Duration // default TTL/3
}

func (t NameTiming) withDefaults() NameTiming {
	if t.TTL <= 0 {
		t.TTL = 6 * time.Second
	}
	if t.Renew <= 0 || t.Renew >= t.TTL {
		t.Renew = t.TTL / 3
	}
	return t
}

// Incarnation is which process of a node this is, and which process held
// the node's name last from the same data dir (a file the app keeps
// there, locked while its process runs): a restarted node finding its
// name still held by that previous process, on the same host, knows the
// holder is dead (it held the lock) and takes the name back at once
// instead of waiting out the key's lapse. Two live nodes never share a
// name this way: a live holder still has the lock, so its successor has
// no Previous to match.
type Incarnation struct {
	ID       string // this process's, written in its claim
	Previous string // the last process's with this data dir; "" unknown
}

// SetIncarnation tells ClaimName which process this is. Call it before.
func (n *Node) SetIncarnation(inc Incarnation) { n.incarnation = inc }

// ErrNameTaken is a node started with the name of a live node.
var ErrNameTaken = errors.New("cluster: another live node has this node's name")

// nameClaim is a name's value: who holds it, for the message a second
// node with the name gets (version 1; fields are only added).
type nameClaim struct {
	V     int       `json:"v"`
	Host  string    `json:"host,omitempty"`
	PID   int       `json:"pid,omitempty"`
	Since time.Time `json:"since"`
	// SSH is the address the node advertises (Advertise), from the
	// first renewal after it is set: how other nodes send players there.
	SSH string `json:"ssh,omitempty"`
	// Seats says the node answers the cluster's question for a dropped
	// seat (subjectFindHeld), so a node asking waits for its answer; an
	// older node's claim lacks it and is not waited for.
	Seats bool `json:"seats,omitempty"`
	// Instance is the claiming process's Incarnation.ID.
	Instance string `json:"instance,omitempty"`
}

// nameKey is the name's key: node names are letters, digits, '.', '-' and
// '_' (main checks), which keys take as they are; lower case, since room
// ids carry the node in lower case (r3@n1), so N1 and n1 are one name.
func nameKey(node string) string { return strings.ToLower(node) }

// ClaimName makes the node's name its own for as long as it runs, or
// fails with ErrNameTaken (saying which host holds it) when a live node
// has it. A name left by a node that died is taken once its key lapses
// (within t.TTL, waited for here). stop gives the name back (another node
// may take it at once) and returns once the renewing goroutine has ended.
func (n *Node) ClaimName(ctx context.Context, t NameTiming) (stop func(), err error) {
	t = t.withDefaults()
	js, err := jetstream.New(n.nc)
	if err != nil {
		return nil, fmt.Errorf("cluster: jetstream: %w", err)
	}
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	kv, err := js.CreateOrUpdateKeyValue(c, jetstream.KeyValueConfig{
		Bucket:      bucketNodes,
		Description: "termarena: the names of the live nodes (a key lives TTL after its node's last renewal)",
		TTL:         t.TTL,
		History:     1,
		Storage:     jetstream.MemoryStorage, // a name outlives no NATS restart, nor need it
	})
	cancel()
	if err != nil {
		return nil, fmt.Errorf("cluster: the node names bucket: %w", err)
	}
	host, _ := os.Hostname()
	claim := nameClaim{V: 1, Host: host, PID: os.Getpid(), Since: time.Now().UTC(), Instance: n.incarnation.ID}
	value := func() []byte {
		claim.SSH = n.SSH()
		claim.Seats = n.servesSeats.Load()
		b, _ := json.Marshal(claim)
		return b
	}
	key := nameKey(n.name)
	rev, err := n.createName(ctx, kv, key, value(), host, t)
	if err != nil {
		return nil, err
	}
	n.names.Store(&kv)
	runCtx, stopRun := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	go func() {
		defer func() { done <- struct{}{} }()
		n.renewName(runCtx, kv, key, value, rev, t)
	}()
	watching := n.watchNames(runCtx, kv, t, done)
	return func() {
		stopRun()
		<-done
		if watching {
			<-done
		}
	}, nil
}

// liveNode is another node as its name's key last said.
type liveNode struct {
	at    time.Time // when its last renewal was heard
	seats bool      // it answers subjectFindHeld
}

// watchNames follows the names bucket so the node knows which others are
// alive without asking NATS each time (seatNodes): a login asks the
// others for a dropped seat (roomlink.go's FindHeld) and waits only for
// the live ones. It returns once the
// bucket's current keys are read, false when it cannot watch (seatNodes
// then says it does not know); the goroutine it starts signals done when
// ctx ends.
func (n *Node) watchNames(ctx context.Context, kv jetstream.KeyValue, t NameTiming, done chan<- struct{}) bool {
	w, err := kv.WatchAll(ctx)
	if err != nil {
		n.log.Warn("cluster: not following the other nodes' names", "err", err)
		return false
	}
	n.namesTTL = t.TTL
	read := make(chan struct{})
	go func() {
		defer func() { done <- struct{}{} }()
		defer func() { _ = w.Stop() }()
		first := true
		for {
			select {
			case <-ctx.Done():
				return
			case e, ok := <-w.Updates():
				if !ok {
					return
				}
				if e == nil { // the keys there were at the start are read
					if first {
						first = false
						close(read)
					}
					continue
				}
				n.heardName(e)
			}
		}
	}()
	select {
	case <-read:
	case <-time.After(2 * time.Second):
		n.log.Warn("cluster: the other nodes' names are slow to read")
	case <-ctx.Done():
	}
	return true
}

func (n *Node) heardName(e jetstream.KeyValueEntry) {
	n.liveMu.Lock()
	defer n.liveMu.Unlock()
	if n.live == nil {
		n.live = map[string]liveNode{}
	}
	if e.Operation() != jetstream.KeyValuePut {
		delete(n.live, e.Key())
		return
	}
	var claim nameClaim
	_ = json.Unmarshal(e.Value(), &claim)
	// Heard now, by this host's clock: the entry's own time is the NATS
	// server's, and a skewed clock must not make a live node look dead
	// (one that is dead is waited for at most until the asker's deadline).
	n.live[e.Key()] = liveNode{at: time.Now(), seats: claim.Seats}
}

// seatNodes lists the other nodes that answer subjectFindHeld and have
// renewed their names within the names' TTL (a key nobody renews lapses
// without a word to watchers); known is false before ClaimName.
func (n *Node) seatNodes() (nodes []string, known bool) {
	if n.names.Load() == nil {
		return nil, false
	}
	n.liveMu.Lock()
	defer n.liveMu.Unlock()
	self := nameKey(n.name)
	for key, ln := range n.live {
		if key != self && ln.seats && time.Since(ln.at) < n.namesTTL {
			nodes = append(nodes, key)
		}
	}
	return nodes, true
}

// createName creates the name's key, waiting out a key nobody renews.
func (n *Node) createName(ctx context.Context, kv jetstream.KeyValue, key string, value []byte, host string, t NameTiming) (uint64, error) {
	// A key nobody renews lapses TTL after its last write; JetStream
	// removes it soon after.
	deadline := time.Now().Add(2 * t.TTL)
	var seen uint64 // the revision of the key first found, 0 none yet
	retook := false
	for {
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		rev, err := kv.Create(c, key, value)
		cancel()
		if err == nil {
			return rev, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return 0, fmt.Errorf("cluster: claiming the node name %s: %w", n.name, err)
		}
		c, cancel = context.WithTimeout(ctx, 5*time.Second)
		e, err := kv.Get(c, key)
		cancel()
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			continue // lapsed between the two: create again
		case err != nil:
			return 0, fmt.Errorf("cluster: reading the node name %s: %w", n.name, err)
		}
		var held nameClaim
		_ = json.Unmarshal(e.Value(), &held) // an unreadable one is still held
		if prev := n.incarnation.Previous; !retook && prev != "" && held.Instance == prev && held.Host == host {
			retook = true // once: a failed Update falls back to waiting
			// This node's previous process holds it, and that process is
			// gone (Incarnation): take the name back now.
			c, cancel = context.WithTimeout(ctx, 5*time.Second)
			rev, err := kv.Update(c, key, value, e.Revision())
			cancel()
			if err == nil {
				n.log.Info("cluster: took this node's name back from its previous process, which is gone",
					"node", n.name, "pid", held.PID, "since", held.Since)
				return rev, nil
			}
			continue // it moved on meanwhile: look again
		}
		switch {
		case seen == 0:
			seen = e.Revision()
			n.log.Warn("cluster: this node's name is held; waiting to see whether its node is alive",
				"node", n.name, "host", held.Host, "since", held.Since, "up_to", 2*t.TTL)
		case e.Revision() != seen || time.Now().After(deadline):
			// Renewed while we watched: its node lives.
			where := ""
			if held.Host != "" {
				where = fmt.Sprintf(" on host %s (pid %d)", held.Host, held.PID)
			}
			return 0, fmt.Errorf("%w: node %q is running%s since %s; give this one another --node (TERMARENA_NODE)",
				ErrNameTaken, n.name, where, held.Since.Format(time.RFC3339))
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(t.Renew / 2):
		}
	}
}

// renewName rewrites the name's key every Renew until ctx ends, then
// deletes it.
func (n *Node) renewName(ctx context.Context, kv jetstream.KeyValue, key string, value func() []byte, rev uint64, t NameTiming) {
	tick := time.NewTicker(t.Renew)
	defer tick.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			c, cancel := context.WithTimeout(context.Background(), time.Second)
			if err := kv.Delete(c, key, jetstream.LastRevision(rev)); err != nil {
				n.log.Warn("cluster: giving back the node name; it lapses instead", "err", err)
			}
			cancel()
			return
		case <-tick.C:
		case <-n.readvertise:
			// Advertise: the new address reaches the others now.
		}
		c, cancel := context.WithTimeout(ctx, t.Renew)
		r, err := kv.Update(c, key, value(), rev)
		if errors.Is(err, jetstream.ErrKeyNotFound) || isWrongSequence(err) {
			// Lapsed while NATS was away (and perhaps taken): claim it
			// again if nobody has.
			r, err = kv.Create(c, key, value())
		}
		cancel()
		if err != nil {
			if !failing {
				n.log.Error("cluster: renewing this node's name failed; another node may take it", "node", n.name, "err", err)
				failing = true
			}
			continue
		}
		if failing {
			n.log.Info("cluster: this node's name renewed again", "node", n.name)
			failing = false
		}
		rev = r
	}
}

// nodeLive reads a node's claim on its name: whether it runs, and the
// address it advertises. Before ClaimName (or on a read error) it says
// the node lives, address unknown: nothing is taken from a node that may
// be alive.
func (n *Node) nodeLive(ctx context.Context, node string) (live bool, ssh string) {
	kv := n.names.Load()
	if kv == nil {
		return true, ""
	}
	c, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	e, err := (*kv).Get(c, nameKey(node))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return false, ""
	case err != nil:
		return true, ""
	}
	var claim nameClaim
	_ = json.Unmarshal(e.Value(), &claim)
	return true, claim.SSH
}

// isWrongSequence is an Update refused because the key moved on (it
// lapsed and was written again).
func isWrongSequence(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}
