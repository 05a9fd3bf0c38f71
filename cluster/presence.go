package cluster

import (
	"strconv"
	"time"

	"github.com/termarena/termarena/lobby"
)

// subjectPresence carries every node's sessions: each node publishes the
// whole list of its own there, and its changes on subjectPresence+".delta"
// (delta.go).
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
	// Full is how often a node sends its whole list all the same
	// (delta.go; default 30 heartbeats).
	Full time.Duration

	// wholeOnly sends and reads whole lists only, as builds before
	// deltas did; drop loses the deltas it returns true for on their
	// way in (tests).
	wholeOnly bool
	drop      func(deltaMsg) bool
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
	SSH      string            `json:"ssh,omitempty"` // the node's advertised SSH address
	Sessions []presenceSession `json:"sessions"`
	// Seq is the node's change number the list is at; Deltas says the
	// node reads deltas (delta.go). Neither: an older build.
	Seq    uint64 `json:"seq,omitempty"`
	Deltas int    `json:"deltas,omitempty"`
}

type presenceSession struct {
	ID    string    `json:"id"`
	Name  string    `json:"name"`
	Guest bool      `json:"guest,omitempty"`
	Addr  string    `json:"addr,omitempty"`
	Where string    `json:"where"`
	Since time.Time `json:"since"`
}

func (m presenceMsg) header() (string, bool) { return m.Node, m.Bye }

// key is a session's identity in deltas: a player may have several
// sessions (one key, two terminals), each begun at its own moment.
func (s presenceSession) key() string {
	return s.ID + " " + strconv.FormatInt(s.Since.UnixNano(), 36) + " " + s.Addr
}

func splitPresence(m presenceMsg) (ssh string, seq uint64, reads bool, items []keyed) {
	return m.SSH, m.Seq, m.Deltas >= deltaVersion, keyItems(m.Sessions, presenceSession.key)
}

func joinPresence(node, ssh string, seq uint64, items []keyed) presenceMsg {
	return presenceMsg{V: 1, Node: node, SSH: ssh, Seq: seq, Deltas: deltaVersion, Sessions: unkeyItems[presenceSession](items)}
}

func (t PresenceTiming) beat() beat {
	return beat{heartbeat: t.Heartbeat, forget: t.Forget, settle: t.Settle}
}

// SharePresence tells the other nodes who is on this one, at once when it
// changes and every heartbeat, and hands what they say to p, forgetting a
// node not heard from for t.Forget (one killed without saying goodbye).
// One goroutine owns the other nodes' state; stop ends it, saying goodbye,
// and returns once it has.
func (n *Node) SharePresence(p Presence, t PresenceTiming) (stop func(), err error) {
	t = t.withDefaults()
	s := &share[presenceMsg]{subject: subjectPresence, what: "presence", beat: t.beat(), fullEvery: t.Full, drop: t.drop,
		local: func() (presenceMsg, <-chan struct{}) {
			local, changed := p.Local()
			m := presenceMsg{V: 1, Node: n.name, SSH: n.SSH(), Sessions: make([]presenceSession, 0, len(local))}
			for _, s := range local {
				m.Sessions = append(m.Sessions, presenceSession{ID: s.ID, Name: s.Name, Guest: s.Guest, Addr: s.Addr, Where: s.Where, Since: s.Since})
			}
			return m, changed
		},
		bye:    func() presenceMsg { return presenceMsg{V: 1, Node: n.name, Bye: true, Sessions: []presenceSession{}} },
		forget: func(node string) { p.SetRemote(node, nil) },
		heard: func(m presenceMsg) {
			if len(m.Sessions) == 0 {
				// A node with nobody on it is still heard; SetRemote(nil)
				// would forget it the same way.
				p.SetRemote(m.Node, nil)
				return
			}
			ps := make([]lobby.Presence, 0, len(m.Sessions))
			for _, s := range m.Sessions {
				ps = append(ps, lobby.Presence{ID: s.ID, Name: s.Name, Guest: s.Guest, Addr: s.Addr, Where: s.Where, Since: s.Since, Node: m.Node, SSH: m.SSH})
			}
			p.SetRemote(m.Node, ps)
		},
	}
	if !t.wholeOnly {
		s.split, s.join = splitPresence, joinPresence
	}
	return s.start(n)
}
