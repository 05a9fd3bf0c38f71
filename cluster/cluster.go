// Package cluster joins termarena nodes into one server over NATS (opt-in:
// --nats with a shared --store). Each shared concern is a file: presence.go
// tells every node who is online on the others, rooms.go which rooms run
// on them, queue.go who waits to be matched; share.go is the loop they
// have in common (publish on change and as a heartbeat, forget a node
// that leaves or goes quiet). A node without --nats
// never imports this package's effects: the lobby's in-process types (the
// Hub) are what it feeds, through the small interfaces declared beside
// each concern.
//
// Subjects are under "termarena.": a node publishes what it owns and
// listens to the others; nothing is consensus of ours.
package cluster

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Node is this server's connection to the cluster.
type Node struct {
	name string
	nc   *nats.Conn
	log  *slog.Logger
	// ssh is the address players reach this node at over SSH
	// (--advertise), told to the others with its presence and rooms.
	ssh atomic.Pointer[string]
	// readvertise wakes the name's renewal to write a new address at
	// once (names.go), not a renewal later.
	readvertise chan struct{}
	// names is the bucket of live nodes' names, once ClaimName has
	// claimed this one's (names.go).
	names atomic.Pointer[jetstream.KeyValue]
	// live is the other nodes as the names bucket last said (names.go's
	// watch), namesTTL how long a name lives unrenewed.
	liveMu   sync.Mutex
	live     map[string]liveNode
	namesTTL time.Duration
	// servesSeats: ServeRooms answers other nodes asking for a dropped
	// seat; the node's name says so from then on.
	servesSeats atomic.Bool
	// incarnation is which process of the node this is (names.go).
	incarnation Incarnation
}

// ErrNoName is a node started without a name: every node's name must be
// known (and different) for the others to tell its sessions and rooms
// apart.
var ErrNoName = errors.New("cluster: the node has no name (--node)")

// Connect joins the cluster at url as the node named name. It fails when
// the NATS server does not answer; once connected, the client reconnects
// for as long as the node runs (a NATS restart pauses sharing, it does not
// end the node).
func Connect(url, name string, log *slog.Logger) (*Node, error) {
	if name == "" {
		return nil, ErrNoName
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	nc, err := nats.Connect(url,
		nats.Name("termarena node "+name),
		nats.Timeout(5*time.Second),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(500*time.Millisecond),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err == nil {
				return // our own Close: nothing was lost
			}
			log.Warn("cluster: lost the NATS connection; reconnecting", "err", err)
		}),
		nats.ReconnectHandler(func(*nats.Conn) { log.Info("cluster: NATS connection back") }),
	)
	if err != nil {
		return nil, fmt.Errorf("cluster: connect to NATS at %s: %w", url, err)
	}
	return &Node{name: name, nc: nc, log: log, readvertise: make(chan struct{}, 1)}, nil
}

// Name is the node's name.
func (n *Node) Name() string { return n.name }

// Advertise sets the address (host:port) players reach this node at over
// SSH, which its presence and room messages carry from then on: the other
// nodes name it when they send a player here.
func (n *Node) Advertise(addr string) {
	n.ssh.Store(&addr)
	select {
	case n.readvertise <- struct{}{}:
	default: // a renewal is due already
	}
}

// SSH is the address set by Advertise ("" before).
func (n *Node) SSH() string {
	if p := n.ssh.Load(); p != nil {
		return *p
	}
	return ""
}

// Close flushes what the node published and disconnects. Stop what was
// started on the node (SharePresence's stop) first.
func (n *Node) Close() {
	_ = n.nc.FlushTimeout(time.Second)
	n.nc.Close()
}

// Stats is what the node has sent and received on NATS since it
// connected: messages and bytes each way.
func (n *Node) Stats() nats.Statistics { return n.nc.Stats() }
