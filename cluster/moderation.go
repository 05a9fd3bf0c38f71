package cluster

import (
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/termarena/termarena/admin"
	"github.com/termarena/termarena/lobby"
)

// subjectModeration carries moderation's effects on live sessions (a
// kick, which a ban also does; a warning, an announcement, a mute, a role
// change): what is stored is in the shared database already, but each
// node must act on the sessions it holds.
const subjectModeration = "termarena.moderation"

// modMsg is one effect on the wire (version 1; fields are only added).
type modMsg struct {
	V     int       `json:"v"`
	From  string    `json:"from"` // the node that acted, which applied it itself
	Op    string    `json:"op"`   // kick, tell, announce, mute, role
	ID    string    `json:"id,omitempty"`
	Text  string    `json:"text,omitempty"`
	Until time.Time `json:"until,omitzero"`
	Role  string    `json:"role,omitempty"`
}

// Elsewhere lists the sessions on other nodes: *lobby.Hub's SessionList
// holds them beside its own.
type Elsewhere interface {
	SessionList() []lobby.Presence
}

// shared is admin.Sessions for a whole cluster: each effect is applied to
// this node's sessions and published for the others to apply to theirs.
type shared struct {
	admin.Sessions
	n     *Node
	where Elsewhere
}

// ShareModeration returns moderation's view of live sessions across the
// cluster: a kick, a warning, an announcement, a mute or a role change
// made on this node reaches every node's sessions (within NATS's delivery,
// milliseconds), and one made on another node reaches local's. Counts of
// sessions reached include other nodes' as presence knows them. stop ends
// the subscription.
func (n *Node) ShareModeration(local admin.Sessions, where Elsewhere) (admin.Sessions, func(), error) {
	sub, err := n.nc.Subscribe(subjectModeration, func(msg *nats.Msg) {
		var m modMsg
		if err := json.Unmarshal(msg.Data, &m); err != nil {
			n.log.Warn("cluster: a moderation message that does not read", "err", err)
			return
		}
		if m.From == n.name {
			return
		}
		switch m.Op {
		case "kick":
			local.Kick(m.ID, m.Text)
		case "tell":
			local.Tell(m.ID, m.Text)
		case "announce":
			local.Announce(m.Text)
		case "mute":
			local.Muted(m.ID, m.Until, m.Text)
		case "role":
			local.RoleChanged(m.ID, m.Role)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return shared{Sessions: local, n: n, where: where}, func() { _ = sub.Unsubscribe() }, nil
}

func (s shared) publish(m modMsg) {
	m.V, m.From = 1, s.n.name
	b, _ := json.Marshal(m)
	if err := s.n.nc.Publish(subjectModeration, b); err != nil {
		s.n.log.Error("cluster: moderation not sent to the other nodes", "op", m.Op, "err", err)
	}
}

// remote counts the sessions of fingerprint id ("" for all) on other
// nodes.
func (s shared) remote(id string) int {
	n := 0
	for _, p := range s.where.SessionList() {
		if p.Node != s.n.name && (id == "" || p.ID == id) {
			n++
		}
	}
	return n
}

func (s shared) Kick(id, reason string) int {
	s.publish(modMsg{Op: "kick", ID: id, Text: reason})
	return s.Sessions.Kick(id, reason) + s.remote(id)
}

func (s shared) Tell(id, text string) int {
	s.publish(modMsg{Op: "tell", ID: id, Text: text})
	return s.Sessions.Tell(id, text) + s.remote(id)
}

func (s shared) Announce(text string) int {
	s.publish(modMsg{Op: "announce", Text: text})
	return s.Sessions.Announce(text) + s.remote("")
}

func (s shared) Muted(id string, until time.Time, reason string) {
	s.publish(modMsg{Op: "mute", ID: id, Until: until, Text: reason})
	s.Sessions.Muted(id, until, reason)
}

func (s shared) RoleChanged(id, role string) {
	s.publish(modMsg{Op: "role", ID: id, Role: role})
	s.Sessions.RoleChanged(id, role)
}
