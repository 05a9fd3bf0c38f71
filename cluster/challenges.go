package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

// subjectChallenge + node carries a challenge's news to the node of the
// other player (lobby/challenge_remote.go): an offer to the challenged
// player's node, the answer back to the challenger's.
const subjectChallenge = "termarena.challenge."

// challengeMsg is a lobby.ChallengeNote on the wire (version 1; fields
// are only added).
type challengeMsg struct {
	V    int    `json:"v"`
	Op   string `json:"op"`
	Node string `json:"node"`
	ID   uint64 `json:"id"`
	// An offer's challenge.
	From    *seatWire `json:"from,omitempty"`
	To      *seatWire `json:"to,omitempty"`
	Game    string    `json:"game,omitempty"`
	Mode    string    `json:"mode,omitempty"`
	Ranked  string    `json:"ranked,omitempty"`
	Expires time.Time `json:"expires,omitzero"`
	Text    string    `json:"text,omitempty"`
	Room    string    `json:"room,omitempty"`
	Slot    int       `json:"slot"`
}

// ChallengeInbox is where other nodes' challenge news goes:
// *lobby.Challenges implements it.
type ChallengeInbox interface {
	FromNode(lobby.ChallengeNote)
}

// ChallengeRooms reaches the room an accepted challenge made on another
// node: *lobby.Rooms.
type ChallengeRooms interface {
	Attach(id string) (*lobby.Room, error)
}

// challengeRelay is lobby.ChallengeRelay over NATS.
type challengeRelay struct{ n *Node }

// Send publishes n for node; NATS buffers, so it never blocks.
func (r challengeRelay) Send(node string, c lobby.ChallengeNote) {
	m := challengeMsg{V: 1, Op: c.Op, Node: r.n.name, ID: c.ID, Text: c.Text, Room: c.Room, Slot: c.Slot}
	if c.Op == lobby.NoteOffer {
		ch := c.Challenge
		m.From = &seatWire{ID: string(ch.From.ID), Name: ch.From.Name}
		m.To = &seatWire{ID: string(ch.To.ID), Name: ch.To.Name}
		m.Game, m.Mode, m.Ranked, m.Expires = ch.Game, ch.Mode, string(ch.Ranked), ch.Expires
	}
	b, _ := json.Marshal(m)
	if err := r.n.nc.Publish(subjectChallenge+nameKey(node), b); err != nil {
		r.n.log.Warn("cluster: a challenge's news not sent", "node", node, "err", err)
	}
}

// ShareChallenges lets challenges reach players on other nodes: it
// returns the relay to hand lobby.Challenges.SetRelay and delivers the
// other nodes' news to in, attaching to the room of an accepted
// challenge for its challenger here first. stop ends it once its
// goroutines have.
func (n *Node) ShareChallenges(in ChallengeInbox, rooms ChallengeRooms) (relay lobby.ChallengeRelay, stop func(), err error) {
	msgs := make(chan *nats.Msg, 64)
	sub, err := n.nc.ChanSubscribe(subjectChallenge+nameKey(n.name), msgs)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: share challenges: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { _ = sub.Unsubscribe() }()
		for {
			select {
			case <-ctx.Done():
				return
			case msg := <-msgs:
				var m challengeMsg
				if err := json.Unmarshal(msg.Data, &m); err != nil || m.V != 1 || m.Node == "" {
					n.log.Warn("cluster: a challenge message that does not read", "err", err)
					continue
				}
				note := lobby.ChallengeNote{Op: m.Op, Node: m.Node, ID: m.ID, Text: m.Text, Room: m.Room, Slot: m.Slot}
				if m.Op == lobby.NoteOffer {
					if m.From == nil || m.To == nil {
						continue
					}
					note.Challenge = lobby.Challenge{ID: m.ID, From: game.Player{ID: game.PlayerID(m.From.ID), Name: m.From.Name},
						To: game.Player{ID: game.PlayerID(m.To.ID), Name: m.To.Name}, Game: m.Game, Mode: m.Mode, Ranked: lobby.RankedMode(m.Ranked), Expires: m.Expires}
				}
				if m.Op == lobby.NoteAccepted {
					// Attaching asks the room's node: a few ms, at most
					// the attach timeout, on this loop (challenges are rare).
					r, err := rooms.Attach(m.Room)
					if err != nil {
						n.log.Warn("cluster: an accepted challenge's room not reached", "room", m.Room, "err", err)
					}
					note.Start = r
				}
				in.FromNode(note)
			}
		}
	}()
	return challengeRelay{n: n}, func() { cancel(); <-done }, nil
}
