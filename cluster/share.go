package cluster

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go"
)

// The shape every shared concern of a node has (presence, the room
// directory, the ranked queue): each node publishes the whole of its own
// part on one subject — at once when it changes (a burst gathered into
// one message) and as a heartbeat — and keeps what the others last said,
// forgetting a node that says goodbye or goes quiet (killed, or cut off)
// for longer than Forget. share runs that loop; a concern supplies only
// its message and what to do with the others'.

// wire is a shared concern's message. Every one carries the node that
// sent it and whether it is that node's goodbye, under the JSON names
// "node" and "bye".
type wire interface {
	header() (node string, bye bool)
}

// beat is the loop's timing, with defaults filled in by the concern.
type beat struct {
	heartbeat time.Duration // a node repeats its part this often
	forget    time.Duration // a node not heard from this long is forgotten
	settle    time.Duration // local changes this close together are one message
}

// share is one concern's loop.
type share[M wire] struct {
	subject string
	what    string // for the log: "presence", "rooms", "queue"
	beat    beat
	// local is this node's part now, and a channel closed at its next
	// change.
	local func() (M, <-chan struct{})
	// bye is this node's goodbye.
	bye func() M
	// heard takes another node's part (never a goodbye).
	heard func(M)
	// forget drops a node: its goodbye, its silence, or this node
	// stopping (every node heard is forgotten then).
	forget func(node string)
	// echo keeps this node's own messages (heard and forgotten like the
	// others'); without it they are dropped.
	echo bool
	// tick, when set, is called every tickEvery on the loop's goroutine,
	// for work on the state the loop owns.
	tickEvery time.Duration
	tick      func(now time.Time)
}

// start subscribes and runs the loop on a goroutine of its own until
// stop, which publishes the goodbye, forgets the others and returns once
// the goroutine has ended.
func (s *share[M]) start(n *Node) (stop func(), err error) {
	in := make(chan *nats.Msg, 256)
	sub, err := n.nc.ChanSubscribe(s.subject, in)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { _ = sub.Unsubscribe() }()
		s.loop(ctx, n, in)
	}()
	return func() { cancel(); <-done }, nil
}

func (s *share[M]) loop(ctx context.Context, n *Node, in <-chan *nats.Msg) {
	heard := map[string]time.Time{} // node → when it last spoke
	hb := time.NewTicker(s.beat.heartbeat)
	defer hb.Stop()
	var tick <-chan time.Time
	if s.tick != nil {
		t := time.NewTicker(s.tickEvery)
		defer t.Stop()
		tick = t.C
	}
	var settle <-chan time.Time
	publish := func(m M) {
		b, _ := json.Marshal(m) // strings, numbers and times: cannot fail
		if err := n.nc.Publish(s.subject, b); err != nil {
			n.log.Warn("cluster: publish "+s.what, "err", err)
		}
	}
	m, changed := s.local()
	publish(m)
	for {
		select {
		case <-ctx.Done():
			publish(s.bye())
			for node := range heard {
				s.forget(node)
			}
			return
		case <-changed:
			// Wait a moment so a burst of changes is one message.
			changed = nil
			settle = time.After(s.beat.settle)
		case <-settle:
			settle = nil
			m, changed = s.local()
			publish(m)
		case now := <-hb.C:
			if settle == nil {
				m, changed = s.local()
				publish(m)
			}
			for node, at := range heard {
				if now.Sub(at) > s.beat.forget {
					n.log.Warn("cluster: forgetting a node not heard from", "what", s.what, "node", node, "after", s.beat.forget)
					delete(heard, node)
					s.forget(node)
				}
			}
		case now := <-tick:
			s.tick(now)
		case msg := <-in:
			var m M
			if err := json.Unmarshal(msg.Data, &m); err != nil {
				n.log.Warn("cluster: a "+s.what+" message that does not read", "err", err)
				continue
			}
			node, bye := m.header()
			switch {
			case node == "":
				n.log.Warn("cluster: a " + s.what + " message without its node")
			case node == n.name && !s.echo:
				// our own, echoed back
			case bye:
				delete(heard, node)
				s.forget(node)
			default:
				heard[node] = time.Now()
				s.heard(m)
			}
		}
	}
}
