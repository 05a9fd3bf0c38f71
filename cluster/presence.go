package cluster

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/termarena/termarena/lobby"
)

// subjectPresence carries every node's sessions: each node publishes the
// whole list of its own, on a change and as a heartbeat.
const subjectPresence = "termarena.presence"

// Presence is where a node's sessions are and where the others' go:
// *lobby.Hub implements it.
type Presence interface {
	// Local lists this node's own sessions, and a channel closed when
	// one arrives, leaves or moves.
	Local() ([]lobby.Presence, <-chan struct{})
	// SetRemote replaces what is known of another node's sessions (nil
	// forgets the node).
	SetRemote(node string, ps []lobby.Presence)
}

// PresenceTiming is how often a node repeats its sessions and how long
// the others wait before forgetting a node that went quiet.
type PresenceTiming struct {
	Heartbeat time.Duration // default 1s
	Forget    time.Duration // default 3 heartbeats
	// Settle gathers a burst of local changes into one message
	// (default 50ms).
	Settle time.Duration
}

func (t PresenceTiming) withDefaults() PresenceTiming {
	if t.Heartbeat <= 0 {
		t.Heartbeat = time.Second
	}
	if t.Forget <= 0 {
		t.Forget = 3 * t.Heartbeat
	}
	if t.Settle <= 0 {
		t.Settle = 50 * time.Millisecond
	}
	return t
}

// presenceMsg is a node's sessions on the wire (version 1; fields are
// only added). Bye says the node is leaving: forget it now.
type presenceMsg struct {
	V        int               `json:"v"`
	Node     string            `json:"node"`
	Bye      bool              `json:"bye,omitempty"`
	Sessions []presenceSession `json:"sessions"`
}

type presenceSession struct {
	ID    string    `json:"id"`
	Name  string    `json:"name"`
	Guest bool      `json:"guest,omitempty"`
	Addr  string    `json:"addr,omitempty"`
	Where string    `json:"where"`
	Since time.Time `json:"since"`
}

// SharePresence tells the other nodes who is on this one, at once when it
// changes and every heartbeat, and hands what they say to p, forgetting a
// node not heard from for t.Forget (one killed without saying goodbye).
// One goroutine owns the other nodes' state; stop ends it, saying goodbye,
// and returns once it has.
func (n *Node) SharePresence(p Presence, t PresenceTiming) (stop func(), err error) {
	t = t.withDefaults()
	in := make(chan *nats.Msg, 256)
	sub, err := n.nc.ChanSubscribe(subjectPresence, in)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { _ = sub.Unsubscribe() }()
		n.presenceLoop(ctx, p, t, in)
	}()
	return func() { cancel(); <-done }, nil
}

func (n *Node) presenceLoop(ctx context.Context, p Presence, t PresenceTiming, in <-chan *nats.Msg) {
	heard := map[string]time.Time{} // node → when it last spoke
	beat := time.NewTicker(t.Heartbeat)
	defer beat.Stop()
	var settle <-chan time.Time
	local, changed := p.Local()
	publish := func(bye bool) {
		m := presenceMsg{V: 1, Node: n.name, Bye: bye, Sessions: make([]presenceSession, 0, len(local))}
		if !bye {
			for _, s := range local {
				m.Sessions = append(m.Sessions, presenceSession{ID: s.ID, Name: s.Name, Guest: s.Guest, Addr: s.Addr, Where: s.Where, Since: s.Since})
			}
		}
		b, _ := json.Marshal(m) // plain strings and times: cannot fail
		if err := n.nc.Publish(subjectPresence, b); err != nil {
			n.log.Warn("cluster: publish presence", "err", err)
		}
	}
	publish(false)
	for {
		select {
		case <-ctx.Done():
			publish(true)
			for node := range heard {
				p.SetRemote(node, nil)
			}
			return
		case <-changed:
			// Wait a moment so a burst of moves is one message.
			changed = nil
			settle = time.After(t.Settle)
		case <-settle:
			settle = nil
			local, changed = p.Local()
			publish(false)
		case <-beat.C:
			if settle == nil {
				local, changed = p.Local()
				publish(false)
			}
			now := time.Now()
			for node, at := range heard {
				if now.Sub(at) > t.Forget {
					n.log.Warn("cluster: forgetting a node not heard from", "node", node, "after", t.Forget)
					delete(heard, node)
					p.SetRemote(node, nil)
				}
			}
		case msg := <-in:
			var m presenceMsg
			if err := json.Unmarshal(msg.Data, &m); err != nil || m.Node == "" {
				n.log.Warn("cluster: a presence message that does not read", "err", err)
				continue
			}
			if m.Node == n.name {
				continue // our own, echoed back
			}
			if m.Bye {
				delete(heard, m.Node)
				p.SetRemote(m.Node, nil)
				continue
			}
			heard[m.Node] = time.Now()
			ps := make([]lobby.Presence, 0, len(m.Sessions))
			for _, s := range m.Sessions {
				ps = append(ps, lobby.Presence{ID: s.ID, Name: s.Name, Guest: s.Guest, Addr: s.Addr, Where: s.Where, Since: s.Since, Node: m.Node})
			}
			if len(ps) == 0 {
				// A node with nobody on it is still heard; SetRemote(nil)
				// would forget it the same way.
				p.SetRemote(m.Node, nil)
				continue
			}
			p.SetRemote(m.Node, ps)
		}
	}
}
