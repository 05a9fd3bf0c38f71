package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Private rooms' join codes are the cluster's: each is a key in a
// JetStream key-value bucket, created (create-if-absent) by the node whose
// room it opens, so no two nodes hand out one code, and read by any node
// a player types it on. A code whose node is gone (its name no longer
// claimed: names.go) is free again, so a killed node's codes do not linger.
const bucketCodes = "termarena_join_codes"

// codeEntry is a code's value (version 1; fields are only added).
type codeEntry struct {
	V    int    `json:"v"`
	Node string `json:"node"`
	Room string `json:"room,omitempty"` // once the room has its id (Bind)
}

// Codes is the cluster's book of join codes: lobby.Rooms' CodeBook.
type Codes struct {
	n  *Node
	kv jetstream.KeyValue
	// release takes codes to give back to the goroutine that deletes
	// them, so a room closing never waits on NATS.
	release chan string
	mu      sync.Mutex // stopped and sending on release
	stopped bool
}

// codeTimeout bounds each read or write of the book; a private room is
// created or a code looked up meanwhile.
const codeTimeout = time.Second

// ShareCodes opens the cluster's book of join codes. stop ends the
// goroutine that gives closed rooms' codes back, after the ones queued.
func (n *Node) ShareCodes() (*Codes, func(), error) {
	js, err := jetstream.New(n.nc)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: jetstream: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      bucketCodes,
		Description: "termarena: private rooms' join codes, by the node whose room each opens",
		History:     1,
		Storage:     jetstream.MemoryStorage, // rooms outlive no NATS restart of their codes: a restart frees them
	})
	cancel()
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: the join codes bucket: %w", err)
	}
	c := &Codes{n: n, kv: kv, release: make(chan string, 256)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for code := range c.release {
			ctx, cancel := context.WithTimeout(context.Background(), codeTimeout)
			if err := kv.Delete(ctx, code); err != nil {
				n.log.Warn("cluster: a closed room's join code not given back; it is freed when this node stops", "err", err)
			}
			cancel()
		}
	}()
	return c, func() {
		c.mu.Lock()
		if !c.stopped {
			c.stopped = true
			close(c.release)
		}
		c.mu.Unlock()
		<-done
	}, nil
}

// Claim takes code for a room of this node. It is false when a room of
// another live node has it; an error (NATS away) leaves the choice to the
// caller.
func (c *Codes) Claim(code string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*codeTimeout)
	defer cancel()
	v, _ := json.Marshal(codeEntry{V: 1, Node: c.n.name})
	_, err := c.kv.Create(ctx, code, v)
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return false, fmt.Errorf("cluster: claim a join code: %w", err)
	}
	e, err := c.kv.Get(ctx, code)
	if err != nil {
		return false, fmt.Errorf("cluster: read a join code: %w", err)
	}
	var held codeEntry
	if json.Unmarshal(e.Value(), &held) == nil && held.Node != "" && held.Node != c.n.name {
		if live, _ := c.n.nodeLive(ctx, held.Node); live {
			return false, nil
		}
	}
	// A gone node's (or this node's from before a restart): take it over,
	// unless another node just did.
	if _, err := c.kv.Update(ctx, code, v, e.Revision()); err != nil {
		return false, nil
	}
	return true, nil
}

// Bind records which room the code opens, once it has its id.
func (c *Codes) Bind(code, room string) {
	ctx, cancel := context.WithTimeout(context.Background(), codeTimeout)
	defer cancel()
	v, _ := json.Marshal(codeEntry{V: 1, Node: c.n.name, Room: room})
	if _, err := c.kv.Put(ctx, code, v); err != nil {
		c.n.log.Warn("cluster: a join code's room not recorded", "err", err)
	}
}

// Release gives a closed room's code back, without waiting.
func (c *Codes) Release(code string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return // the node is leaving: its name lapses, and its codes with it
	}
	select {
	case c.release <- code:
	default:
		// A burst of closings beyond the queue: the code is freed when
		// this node stops (its name lapses) instead.
	}
}

// Find is the room another live node opened with code: its id (when
// bound), its node and the address that node advertises.
func (c *Codes) Find(code string) (room, node, ssh string, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), codeTimeout)
	defer cancel()
	e, err := c.kv.Get(ctx, code)
	if err != nil {
		if !errors.Is(err, jetstream.ErrKeyNotFound) {
			c.n.log.Warn("cluster: looking up a join code", "err", err)
		}
		return "", "", "", false
	}
	var held codeEntry
	if json.Unmarshal(e.Value(), &held) != nil || held.Node == "" || held.Node == c.n.name {
		return "", "", "", false // this node's own rooms are found in its own map
	}
	live, ssh := c.n.nodeLive(ctx, held.Node)
	if !live {
		return "", "", "", false
	}
	return held.Room, held.Node, ssh, true
}
