package lobby

import (
	"fmt"
	"time"
)

// Challenges between players on different nodes of a cluster. The
// challenger's node keeps the challenge as it keeps any (its expiry, the
// challenger's rate and the decline cooldown) and sends it to the
// challenged player's node, which shows it there and answers: the room
// is made on the challenged player's node as an accepted challenge's
// always is, and the challenger sits in it from theirs, as a player the
// ranked queue matched across nodes does. Each side tells the other what
// ends the challenge on its side (withdrawn, declined, offline); both
// expire it on their own timers.

// ChallengeRelay carries a challenge's news to another node (the cluster
// implements it). Send must not block: it is called with the challenges
// locked.
type ChallengeRelay interface {
	Send(node string, n ChallengeNote)
}

// ChallengeNote ops.
const (
	NoteOffer     = "offer"     // to the challenged's node: show it
	NoteWithdrawn = "withdrawn" // to the challenged's node: the challenger took it back or left
	NoteDeclined  = "declined"  // to the challenger's node
	NoteEnded     = "ended"     // to the challenger's node: offline, or it could not start (Text says)
	NoteAccepted  = "accepted"  // to the challenger's node: Room and Slot wait for the challenger
)

// ChallengeNote is a challenge's news between nodes. ID is always the
// challenge's id on the challenger's node; Node the sender's.
type ChallengeNote struct {
	Op        string
	Node      string
	ID        uint64
	Challenge Challenge // an offer's
	Text      string    // for the player told
	Room      string    // accepted: the room's id
	Slot      int       // accepted: the challenger's seat
	// Start is, for an accepted note, the room this node attached to for
	// the challenger (set by the relay before FromNode; nil when it
	// could not).
	Start *Room
}

// SetRelay lets challenges reach players on other nodes of a cluster.
// Call it before sessions challenge.
func (cs *Challenges) SetRelay(r ChallengeRelay) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.relay = r
}

// outbound: a challenge this node sent to a player on another node (the
// challenged player answers it there, not here).
func (p *pending) outbound() bool { return p.node != "" && p.from != nil }

// sendLocked tells the other side's node of p, if any.
func (cs *Challenges) sendLocked(p *pending, n ChallengeNote) {
	if p.node == "" || cs.relay == nil {
		return
	}
	n.ID = p.peer
	cs.relay.Send(p.node, n)
}

// postFromLocked tells the challenger's session, when it is on this node.
func (cs *Challenges) postFromLocked(p *pending, text string) {
	if p.from != nil {
		cs.postLocked(p.from, text)
	}
}

// FromNode applies news from another node's side of a challenge.
func (cs *Challenges) FromNode(n ChallengeNote) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if n.Op == NoteOffer {
		cs.offeredLocked(n)
		return
	}
	var p *pending
	for _, id := range cs.order {
		q := cs.pending[id]
		if q.node == n.Node && q.peer == n.ID {
			p = q
			break
		}
	}
	if p == nil {
		return // over here already (expired, answered)
	}
	cs.dropLocked(p.ID)
	switch n.Op {
	case NoteWithdrawn:
		cs.tellLocked(p.To.ID, nil, n.Text)
	case NoteDeclined:
		cs.declined[[2]string{string(p.From.ID), string(p.To.ID)}] = cs.now()
		cs.postFromLocked(p, n.Text)
	case NoteEnded:
		cs.postFromLocked(p, n.Text)
	case NoteAccepted:
		if p.from == nil {
			return
		}
		if n.Start == nil {
			cs.postLocked(p.from, fmt.Sprintf("%s accepted your challenge, but its room on node %s could not be reached.", p.To.Name, p.node))
			return
		}
		if p.Ranked != "" && cs.mm != nil {
			cs.mm.seatChallengeElsewhere(n.Start, string(p.From.ID), string(p.To.ID))
		}
		cs.postStartLocked(p.from, ChallengeEvent{Text: n.Text, Start: &ChallengeStart{Room: n.Start, Slot: n.Slot, With: p.To.Name}})
	}
}

// offeredLocked shows a challenge from another node to its player here,
// or tells the challenger's node the player is not here.
func (cs *Challenges) offeredLocked(n ChallengeNote) {
	c := n.Challenge
	back := &pending{node: n.Node, peer: n.ID}
	if len(cs.inboxes[string(c.To.ID)]) == 0 {
		cs.sendLocked(back, ChallengeNote{Op: NoteEnded, Text: fmt.Sprintf("%s went offline: your challenge is off.", c.To.Name)})
		return
	}
	if _, _, ok := cs.rooms.Games().Mode(c.Game, c.Mode); !ok {
		cs.sendLocked(back, ChallengeNote{Op: NoteEnded, Text: fmt.Sprintf("Your challenge to %s could not start: node %s does not run %s %s.", c.To.Name, cs.rooms.cfg.Node, c.Game, c.Mode)})
		return
	}
	cs.seq++
	c.ID = cs.seq
	expiry := time.Until(c.Expires)
	if expiry <= 0 || expiry > cs.cfg.Expiry {
		expiry = cs.cfg.Expiry
	}
	c.Expires = cs.now().Add(expiry)
	id := c.ID
	p := &pending{Challenge: c, node: n.Node, peer: n.ID}
	p.timer = time.AfterFunc(expiry, func() { cs.expire(id) })
	cs.pending[id] = p
	cs.order = append(cs.order, id)
	cs.offerLocked(c)
}
