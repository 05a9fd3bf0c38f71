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
// its message and what to do with the others'. Presence and the room
// directory also say how their part splits into keyed items (split,
// join): their changes then go out as deltas and the whole part only
// now and then (delta.go).

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

	// split and join, when set, make the part go out as changes to the
	// nodes that read them (delta.go): split is a whole message's
	// items, its node's SSH address, its number and whether its node
	// reads deltas; join makes a whole message of items again, as one
	// from a node that reads deltas.
	split func(M) (ssh string, seq uint64, reads bool, items []keyed)
	join  func(node, ssh string, seq uint64, items []keyed) M
	// fullEvery is how often the whole part goes out all the same
	// (default 30 heartbeats).
	fullEvery time.Duration
	// drop, when set, loses the deltas it returns true for on their
	// way in (tests).
	drop func(d deltaMsg) bool
}

// start subscribes and runs the loop on a goroutine of its own until
// stop, which publishes the goodbye, forgets the others and returns once
// the goroutine has ended.
func (s *share[M]) start(n *Node) (stop func(), err error) {
	// One channel for every subject, so a node's messages are read in
	// the order it sent them (a delta after the whole list it follows).
	in := make(chan *nats.Msg, 256)
	subjects := []string{s.subject}
	inbox := ""
	if s.split != nil {
		inbox = n.nc.NewRespInbox()
		subjects = append(subjects, s.subject+".delta", s.fullSubject(n.name), inbox)
	}
	var subs []*nats.Subscription
	unsubscribe := func() {
		for _, sub := range subs {
			_ = sub.Unsubscribe()
		}
	}
	for _, subject := range subjects {
		sub, err := n.nc.ChanSubscribe(subject, in)
		if err != nil {
			unsubscribe()
			return nil, err
		}
		subs = append(subs, sub)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer unsubscribe()
		s.loop(ctx, n, in, inbox)
	}()
	return func() { cancel(); <-done }, nil
}

// fullSubject is where node is asked for its whole part.
func (s *share[M]) fullSubject(node string) string { return s.subject + ".full." + node }

func (s *share[M]) loop(ctx context.Context, n *Node, in <-chan *nats.Msg, inbox string) {
	heard := map[string]time.Time{} // node → when it last spoke
	// Deltas: what this node sent, what it holds of each node that
	// reads them, and the nodes heard that read only whole lists.
	var (
		out       *outbox
		peers     = map[string]*peer{}
		wholeOnly = map[string]bool{}
		lastFull  time.Time
	)
	fullEvery := s.fullEvery
	if fullEvery <= 0 {
		fullEvery = 30 * s.beat.heartbeat
	}
	hb := time.NewTicker(s.beat.heartbeat)
	defer hb.Stop()
	var tick <-chan time.Time
	if s.tick != nil {
		t := time.NewTicker(s.tickEvery)
		defer t.Stop()
		tick = t.C
	}
	var settle <-chan time.Time
	send := func(subject string, v any) {
		b, _ := json.Marshal(v) // strings, numbers and times: cannot fail
		if err := n.nc.Publish(subject, b); err != nil {
			n.log.Warn("cluster: publish "+s.what, "err", err)
		}
	}
	// whole is the part as a whole message at this node's number.
	whole := func(m M) M {
		if out == nil {
			return m
		}
		ssh, _, _, items := s.split(m)
		return s.join(n.name, ssh, out.seq, items)
	}
	// publish sends the part now: its changes as a delta (or, with
	// none, the number alone when alive says so), and the whole part
	// when whole says so or a node that reads only that is about.
	publish := func(m M, alive, full bool) {
		if out == nil {
			send(s.subject, m)
			return
		}
		ssh, _, _, items := s.split(m)
		set, gone, changed := out.change(items)
		if changed || alive {
			send(s.subject+".delta", deltaMsg{V: deltaVersion, Node: n.name, SSH: ssh, Seq: out.seq, Set: set, Gone: gone})
		}
		if full || len(wholeOnly) > 0 || time.Since(lastFull) >= fullEvery {
			send(s.subject, s.join(n.name, ssh, out.seq, items))
			lastFull = time.Now()
		}
	}
	forget := func(node string) {
		delete(heard, node)
		delete(peers, node)
		delete(wholeOnly, node)
		s.forget(node)
	}
	// ask asks node for its whole part, at most once a heartbeat.
	ask := func(node string, p *peer) {
		if time.Since(p.asked) < s.beat.heartbeat {
			return
		}
		p.asked = time.Now()
		if err := n.nc.PublishRequest(s.fullSubject(node), inbox, nil); err != nil {
			n.log.Warn("cluster: ask for "+s.what, "node", node, "err", err)
		}
	}
	m, changed := s.local()
	if s.split != nil {
		out = newOutbox(time.Now())
		ssh, _, _, items := s.split(m)
		out.change(items) // the first whole list carries them
		send(s.subject, s.join(n.name, ssh, out.seq, items))
		lastFull = time.Now()
	} else {
		publish(m, false, true)
	}
	for {
		select {
		case <-ctx.Done():
			send(s.subject, s.bye())
			for node := range heard {
				forget(node)
			}
			return
		case <-changed:
			// Wait a moment so a burst of changes is one message.
			changed = nil
			settle = time.After(s.beat.settle)
		case <-settle:
			settle = nil
			m, changed = s.local()
			publish(m, false, out == nil)
		case now := <-hb.C:
			if settle == nil {
				m, changed = s.local()
				publish(m, true, out == nil)
			}
			for node, at := range heard {
				if now.Sub(at) > s.beat.forget {
					n.log.Warn("cluster: forgetting a node not heard from", "what", s.what, "node", node, "after", s.beat.forget)
					forget(node)
				}
			}
		case now := <-tick:
			s.tick(now)
		case msg := <-in:
			switch {
			case out != nil && msg.Subject == s.fullSubject(n.name):
				// Another node lost track of this one's part: its
				// changes first (numbered), then the whole at that
				// number, to the asker alone.
				m, changed = s.local()
				publish(m, false, false)
				b, _ := json.Marshal(whole(m))
				if err := msg.Respond(b); err != nil {
					n.log.Warn("cluster: answer a node asking for "+s.what, "err", err)
				}
				continue
			case out != nil && msg.Subject == s.subject+".delta":
				var d deltaMsg
				if err := json.Unmarshal(msg.Data, &d); err != nil || d.Node == "" {
					n.log.Warn("cluster: a "+s.what+" delta that does not read", "err", err)
					continue
				}
				if d.Node == n.name || (s.drop != nil && s.drop(d)) {
					continue
				}
				heard[d.Node] = time.Now()
				p := peers[d.Node]
				switch {
				case p == nil:
					p = &peer{}
					peers[d.Node] = p
					ask(d.Node, p)
				case !p.synced || d.Seq > p.seq+1 || (d.Seq == p.seq+1 && d.Set == nil && d.Gone == nil):
					// A delta was lost (a number skipped, or a beat
					// saying a number whose change never came): keep
					// what is shown and ask for the whole.
					ask(d.Node, p)
				case d.Seq == p.seq+1:
					p.apply(d)
					s.heard(s.join(d.Node, p.ssh, p.seq, p.items))
				}
				continue
			}
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
				forget(node)
			case out == nil:
				heard[node] = time.Now()
				s.heard(m)
			default:
				heard[node] = time.Now()
				ssh, seq, reads, items := s.split(m)
				if !reads {
					// An older build's whole list: taken as it is, and
					// this node's whole list goes to it every beat.
					wholeOnly[node] = true
					delete(peers, node)
					s.heard(m)
					continue
				}
				delete(wholeOnly, node)
				p := peers[node]
				if p == nil {
					p = &peer{}
					peers[node] = p
				}
				if p.synced && seq < p.seq {
					continue // older than the deltas applied already
				}
				p.whole(seq, ssh, items)
				s.heard(m)
			}
		}
	}
}
