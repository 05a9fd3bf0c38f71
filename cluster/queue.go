package cluster

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/store"
)

// The ranked queue across nodes. Every node publishes who waits in its
// queues (on a change and as a heartbeat); the node holding the
// matchmaker lease (lease.go) pairs them with the lobby's own waves, one
// queue per mode for every node's players, with the same tolerance,
// rematch and starvation rules as a single node, and sends each match to
// the node of its first player, which makes the room; players on other
// nodes are told (seatMsg) and sit in it from theirs (roomlink.go).
const (
	subjectQueueWaiting = "termarena.queue.waiting"
	subjectQueueMatch   = "termarena.queue.match." // + the node that seats it
	// subjectQueueLeave carries each ranked leave as it is recorded, so
	// the leaver's cooldown holds on every node (the store has them too,
	// read at start).
	subjectQueueLeave = "termarena.queue.leave"
	// bucketLastOpponents keeps each player's last ranked opponents
	// (keyed by the hex of the player id: ids have characters keys may
	// not), so a new holder avoids the same rematches the old one did.
	bucketLastOpponents = "termarena_last_opponents"
	lastOpponentsTTL    = 24 * time.Hour
)

// Queues is a node's ranked queues as the cluster pairs them:
// *lobby.Matchmaker implements it.
type Queues interface {
	Waiting() (map[lobby.RankedMode][]lobby.Entry, <-chan struct{})
	Apply(lobby.Match) error
	// ApplyShared and SeatRemote seat a match of players on several
	// nodes: the room on one, the others sitting in it from theirs.
	ApplyShared(m lobby.Match, here func(id string) bool) (*lobby.Room, error)
	SeatRemote(r *lobby.Room, ids []string)
	NewQueues() map[lobby.RankedMode]*lobby.Queue
	PairElsewhere(lobby.Pairing)
	// OnLeave and MergeLeave share ranked leavers' cooldowns.
	OnLeave(func(id string, l store.Leaves))
	MergeLeave(id string, l store.Leaves)
}

// QueueTiming tunes the shared queue; the zero value is the defaults.
type QueueTiming struct {
	Heartbeat time.Duration // how often a node repeats who waits; default 1s
	Forget    time.Duration // a node not heard from this long is dropped; default 3 heartbeats
	Settle    time.Duration // a burst of joins is one message; default 20ms
	// Pending is how long the holder leaves out players it has just
	// matched while their node may still list them; default 3s.
	Pending time.Duration
	Lease   LeaseTiming
}

func (t QueueTiming) withDefaults() QueueTiming {
	if t.Heartbeat <= 0 {
		t.Heartbeat = time.Second
	}
	if t.Forget <= 0 {
		t.Forget = 3 * t.Heartbeat
	}
	if t.Settle <= 0 {
		t.Settle = 20 * time.Millisecond
	}
	if t.Pending <= 0 {
		t.Pending = 3 * time.Second
	}
	return t
}

// queueMsg is who waits on a node (version 1; fields are only added).
type queueMsg struct {
	V       int                     `json:"v"`
	Node    string                  `json:"node"`
	Bye     bool                    `json:"bye,omitempty"`
	Waiting map[string][]queueEntry `json:"waiting"`
}

type queueEntry struct {
	ID     string    `json:"id"`
	Name   string    `json:"name"`
	Rating float64   `json:"rating"`
	Since  time.Time `json:"since"`
	Last   []string  `json:"last,omitempty"`
}

// matchMsg is a match the holder formed, for its node to seat (version 1).
// Nodes says where each player waits when some wait on other nodes: the
// receiving node makes the room and tells theirs (seatMsg).
type matchMsg struct {
	V       int               `json:"v"`
	By      string            `json:"by"`
	Mode    string            `json:"mode"`
	Players []queueEntry      `json:"players"`
	Teams   [][]int           `json:"teams,omitempty"`
	Formed  time.Time         `json:"formed"`
	Nodes   map[string]string `json:"nodes,omitempty"`
}

// seatMsg tells a node that players of its queue were matched into a room
// another node made (version 1): they sit in it from here.
type seatMsg struct {
	V       int      `json:"v"`
	Room    string   `json:"room"`
	Mode    string   `json:"mode"`
	Players []string `json:"players"`
}

// subjectQueueSeat + node carries seatMsgs.
const subjectQueueSeat = "termarena.queue.seat."

// RoomAttacher reaches a room another node made: *lobby.Rooms.
type RoomAttacher interface {
	Attach(id string) (*lobby.Room, error)
}

func toWire(e lobby.Entry) queueEntry {
	return queueEntry{ID: e.ID, Name: e.Name, Rating: e.Rating, Since: e.Since, Last: e.LastOpponents}
}

func fromWire(e queueEntry) lobby.Entry {
	return lobby.Entry{ID: e.ID, Name: e.Name, Rating: e.Rating, Since: e.Since, LastOpponents: e.Last}
}

// leaveMsg is a ranked leave recorded on a node (version 1).
type leaveMsg struct {
	V       int       `json:"v"`
	Node    string    `json:"node"`
	ID      string    `json:"id"`
	Strikes int       `json:"strikes"`
	Last    time.Time `json:"last"`
	Until   time.Time `json:"until"`
}

// sharedQueue is the cluster's pairing as a node's Matchmaker sees it.
type sharedQueue struct {
	lease  *Lease
	counts atomic.Pointer[map[lobby.RankedMode]int] // waiting on the other nodes
}

func (s *sharedQueue) Holder() string { return s.lease.Holder() }

func (s *sharedQueue) Elsewhere(mode lobby.RankedMode) int {
	if c := s.counts.Load(); c != nil {
		return (*c)[mode]
	}
	return 0
}

// ShareQueue joins this node's ranked queues to the cluster's: it competes
// for the matchmaker lease, publishes who waits here, pairs every node's
// queues while it holds the lease and seats the matches formed for this
// node. From the call on, q runs no waves of its own. stop hands the lease
// back, tells the others this node's queue is gone and returns once the
// goroutines it started have ended.
func (n *Node) ShareQueue(q Queues, rooms RoomAttacher, t QueueTiming) (l *Lease, stop func(), err error) {
	t = t.withDefaults()
	js, err := jetstream.New(n.nc)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: jetstream: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      bucketLastOpponents,
		Description: "termarena: each player's last ranked opponents, for the matchmaker to avoid rematches",
		TTL:         lastOpponentsTTL,
		History:     1,
	})
	cancel()
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: the last-opponents bucket: %w", err)
	}
	matches, err := n.nc.Subscribe(subjectQueueMatch+n.name, func(msg *nats.Msg) { n.seat(q, msg) })
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: subscribe to matches: %w", err)
	}
	seats, err := n.nc.Subscribe(subjectQueueSeat+n.name, func(msg *nats.Msg) { n.seatRemote(q, rooms, msg) })
	if err != nil {
		_ = matches.Unsubscribe()
		return nil, nil, fmt.Errorf("cluster: subscribe to seats: %w", err)
	}
	subLeave, err := n.nc.Subscribe(subjectQueueLeave, func(msg *nats.Msg) {
		var m leaveMsg
		if err := json.Unmarshal(msg.Data, &m); err != nil || m.ID == "" {
			n.log.Warn("cluster: a leave message that does not read", "err", err)
			return
		}
		if m.Node != n.name {
			q.MergeLeave(m.ID, store.Leaves{Strikes: m.Strikes, Last: m.Last, Until: m.Until})
		}
	})
	if err != nil {
		_ = matches.Unsubscribe()
		_ = seats.Unsubscribe()
		return nil, nil, fmt.Errorf("cluster: subscribe to leaves: %w", err)
	}
	unsubscribe := func() { _ = matches.Unsubscribe(); _ = seats.Unsubscribe(); _ = subLeave.Unsubscribe() }
	l, stopLease, err := n.TakeLease(t.Lease)
	if err != nil {
		unsubscribe()
		return nil, nil, err
	}
	q.OnLeave(func(id string, l store.Leaves) {
		// Publish only buffers: it never blocks the results writer.
		b, _ := json.Marshal(leaveMsg{V: 1, Node: n.name, ID: id, Strikes: l.Strikes, Last: l.Last, Until: l.Until})
		if err := n.nc.Publish(subjectQueueLeave, b); err != nil {
			n.log.Warn("cluster: a ranked leave not told to the other nodes", "err", err)
		}
	})
	shared := &sharedQueue{lease: l}
	q.PairElsewhere(shared)
	// runCtx bounds the holder's KV reads and writes: stop cuts one in
	// flight short.
	runCtx, stopRun := context.WithCancel(context.Background())
	stopShare, err := n.queueShare(runCtx, q, shared, kv, t).start(n)
	if err != nil {
		q.OnLeave(nil)
		stopRun()
		stopLease()
		unsubscribe()
		return nil, nil, fmt.Errorf("cluster: subscribe to queues: %w", err)
	}
	return l, func() { q.OnLeave(nil); stopRun(); stopShare(); unsubscribe(); stopLease() }, nil
}

func (m queueMsg) header() (string, bool) { return m.Node, m.Bye }

// queueShare is the shared queue's loop: it owns the node's view of every
// queue (this node's own echo included) and, while this node holds the
// lease, the pairing.
func (n *Node) queueShare(ctx context.Context, q Queues, shared *sharedQueue, kv jetstream.KeyValue, t QueueTiming) *share[queueMsg] {
	nodes := map[string]map[lobby.RankedMode][]lobby.Entry{} // who waits where
	var p *pairer                                            // non-nil while this node holds the lease
	recount := func() {
		c := map[lobby.RankedMode]int{}
		for node, waiting := range nodes {
			if node == n.name {
				continue
			}
			for mode, es := range waiting {
				c[mode] += len(es)
			}
		}
		shared.counts.Store(&c)
	}
	return &share[queueMsg]{subject: subjectQueueWaiting, what: "queue", echo: true,
		beat: beat{heartbeat: t.Heartbeat, forget: t.Forget, settle: t.Settle},
		local: func() (queueMsg, <-chan struct{}) {
			local, changed := q.Waiting()
			m := queueMsg{V: 1, Node: n.name, Waiting: map[string][]queueEntry{}}
			for mode, es := range local {
				for _, e := range es {
					m.Waiting[string(mode)] = append(m.Waiting[string(mode)], toWire(e))
				}
			}
			return m, changed
		},
		bye: func() queueMsg { return queueMsg{V: 1, Node: n.name, Bye: true, Waiting: map[string][]queueEntry{}} },
		forget: func(node string) {
			delete(nodes, node)
			if p != nil {
				p.forget(node)
			}
			recount()
		},
		heard: func(m queueMsg) {
			waiting := map[lobby.RankedMode][]lobby.Entry{}
			for mode, es := range m.Waiting {
				for _, e := range es {
					waiting[lobby.RankedMode(mode)] = append(waiting[lobby.RankedMode(mode)], fromWire(e))
				}
			}
			nodes[m.Node] = waiting
			recount()
			if p != nil {
				p.sync(ctx, m.Node, waiting, time.Now())
				p.tick(ctx, time.Now()) // a table completed on arrival pairs now
			}
		},
		tickEvery: lobby.WaveInterval / 4,
		tick: func(now time.Time) {
			switch holding := shared.lease.Holding(); {
			case holding && p == nil:
				// Took the lease: pair what every node last said.
				p = newPairer(n, q, kv, t)
				for node, waiting := range nodes {
					p.sync(ctx, node, waiting, now)
				}
			case !holding && p != nil:
				p = nil // another node pairs now
			}
			if p != nil {
				p.tick(ctx, now)
			}
		},
	}
}

// seat applies a match the holder formed for this node.
func (n *Node) seat(q Queues, msg *nats.Msg) {
	var m matchMsg
	if err := json.Unmarshal(msg.Data, &m); err != nil {
		n.log.Warn("cluster: a match message that does not read", "err", err)
		return
	}
	match := lobby.Match{Mode: lobby.RankedMode(m.Mode), Teams: m.Teams, Formed: m.Formed}
	for _, e := range m.Players {
		match.Players = append(match.Players, fromWire(e))
	}
	here := func(id string) bool { node, ok := m.Nodes[id]; return !ok || node == n.name }
	elsewhere := map[string][]string{} // node → its players
	for _, e := range m.Players {
		if !here(e.ID) {
			elsewhere[m.Nodes[e.ID]] = append(elsewhere[m.Nodes[e.ID]], e.ID)
		}
	}
	if len(elsewhere) == 0 {
		if err := q.Apply(match); err != nil {
			// Someone left meanwhile: the others stay queued for the next wave.
			n.log.Info("cluster: a match from the matchmaker not seated", "by", m.By, "err", err)
		}
		return
	}
	r, err := q.ApplyShared(match, here)
	if err != nil {
		n.log.Info("cluster: a match from the matchmaker not seated", "by", m.By, "err", err)
		return
	}
	for node, ids := range elsewhere {
		b, _ := json.Marshal(seatMsg{V: 1, Room: r.ID(), Mode: m.Mode, Players: ids})
		if err := n.nc.Publish(subjectQueueSeat+node, b); err != nil {
			n.log.Warn("cluster: a match's players on another node not told", "node", node, "err", err)
		}
	}
}

// seatRemote seats players waiting here in a room another node made for
// their match; if they do not sit, its node calls the match off.
func (n *Node) seatRemote(q Queues, rooms RoomAttacher, msg *nats.Msg) {
	var m seatMsg
	if err := json.Unmarshal(msg.Data, &m); err != nil || m.Room == "" {
		n.log.Warn("cluster: a seat message that does not read", "err", err)
		return
	}
	r, err := rooms.Attach(m.Room)
	if err != nil {
		n.log.Warn("cluster: a match's room on another node not reached", "room", m.Room, "err", err)
		return
	}
	q.SeatRemote(r, m.Players)
}

// pairer is the holder's pairing: one queue per mode for every node's
// players (rooms are played from any node), each player's node known.
type pairer struct {
	n         *Node
	kv        jetstream.KeyValue
	t         QueueTiming
	newQueues func() map[lobby.RankedMode]*lobby.Queue
	queues    map[lobby.RankedMode]*lobby.Queue
	where     map[string]string                      // player → the node they wait on
	known     map[string]map[string]lobby.RankedMode // node → player → the mode they wait in
	pending   map[string]pendingMatch                // players just matched, until their node drops them
	last      map[string][]string                    // last opponents read or written
}

type pendingMatch struct {
	node string
	at   time.Time
}

func newPairer(n *Node, q Queues, kv jetstream.KeyValue, t QueueTiming) *pairer {
	return &pairer{n: n, kv: kv, t: t, newQueues: q.NewQueues,
		queues: q.NewQueues(), where: map[string]string{}, known: map[string]map[string]lobby.RankedMode{},
		pending: map[string]pendingMatch{}, last: map[string][]string{}}
}

func (p *pairer) forget(node string) {
	now := time.Now()
	for id, mode := range p.known[node] {
		p.drop(id, mode, now)
	}
	delete(p.known, node)
}

// drop takes id out of the queue of mode.
func (p *pairer) drop(id string, mode lobby.RankedMode, now time.Time) {
	if qq := p.queues[mode]; qq != nil {
		qq.Remove(id, now)
	}
	delete(p.where, id)
}

// sync makes the holder's queues of node what the node last said.
func (p *pairer) sync(ctx context.Context, node string, waiting map[lobby.RankedMode][]lobby.Entry, now time.Time) {
	qs := p.queues
	if p.known[node] == nil {
		p.known[node] = map[string]lobby.RankedMode{}
	}
	known := p.known[node]
	listed := map[string]lobby.RankedMode{}
	for mode, es := range waiting {
		for _, e := range es {
			listed[e.ID] = mode
		}
	}
	for id, mode := range known {
		if m, ok := listed[id]; !ok || m != mode {
			p.drop(id, mode, now)
			delete(known, id)
		}
	}
	for id, pm := range p.pending {
		if pm.node == node && (listed[id] == "" || now.Sub(pm.at) > p.t.Pending) {
			delete(p.pending, id) // seated, or the match was refused: may queue again
		}
	}
	for mode, es := range waiting {
		qq := qs[mode]
		if qq == nil {
			continue // a mode this build does not run: a newer node's
		}
		for _, e := range es {
			if _, ok := known[e.ID]; ok {
				continue
			}
			if _, ok := p.pending[e.ID]; ok {
				continue
			}
			if p.waitsElsewhere(node, e.ID) {
				// One key queued from terminals on two nodes waits where
				// it queued first: matched on both, it would play two
				// ranked matches at once.
				continue
			}
			e.LastOpponents = union(e.LastOpponents, p.lastOf(ctx, e.ID))
			if err := qq.Enqueue(e, now); err != nil {
				p.n.log.Warn("cluster: a queued player the matchmaker cannot queue", "node", node, "err", err)
				continue
			}
			known[e.ID] = mode
			p.where[e.ID] = node
		}
	}
}

func (p *pairer) waitsElsewhere(node, id string) bool {
	for other, known := range p.known {
		if _, ok := known[id]; ok && other != node {
			return true
		}
	}
	return false
}

// tick runs the waves that are due and sends their matches to the node
// that makes each room: the node of the player who queued first (seats
// go in rating order, so not the first seat's). Players on other nodes sit
// in it from theirs.
func (p *pairer) tick(ctx context.Context, now time.Time) {
	for _, qq := range p.queues {
		for _, m := range qq.Tick(now) {
			p.send(ctx, m, now)
		}
	}
}

func (p *pairer) send(ctx context.Context, m lobby.Match, now time.Time) {
	msg := matchMsg{V: 1, By: p.n.name, Mode: string(m.Mode), Teams: m.Teams, Formed: m.Formed, Nodes: map[string]string{}}
	node := p.where[firstQueued(m.Players).ID]
	for _, e := range m.Players {
		at := p.where[e.ID]
		msg.Players = append(msg.Players, toWire(e))
		msg.Nodes[e.ID] = at
		delete(p.known[at], e.ID)
		delete(p.where, e.ID)
		p.pending[e.ID] = pendingMatch{node: at, at: now}
	}
	b, _ := json.Marshal(msg)
	if err := p.n.nc.Publish(subjectQueueMatch+node, b); err != nil {
		p.n.log.Warn("cluster: a match not sent to its node", "node", node, "err", err)
	}
	for _, e := range m.Players {
		var opp []string
		for _, o := range m.Players {
			if o.ID != e.ID {
				opp = append(opp, o.ID)
			}
		}
		p.last[e.ID] = opp
		b, _ := json.Marshal(opp)
		c, cancel := context.WithTimeout(ctx, time.Second)
		if _, err := p.kv.Put(c, lastKey(e.ID), b); err != nil {
			p.n.log.Warn("cluster: last opponents not shared", "err", err)
		}
		cancel()
	}
}

// firstQueued is the player of a match who has waited longest (the first
// seat on a tie).
func firstQueued(es []lobby.Entry) lobby.Entry {
	first := es[0]
	for _, e := range es[1:] {
		if e.Since.Before(first.Since) {
			first = e
		}
	}
	return first
}

// lastOf is id's last ranked opponents: as this holder matched them, or
// as the previous holder wrote them.
func (p *pairer) lastOf(ctx context.Context, id string) []string {
	if opp, ok := p.last[id]; ok {
		return opp
	}
	c, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var opp []string
	e, err := p.kv.Get(c, lastKey(id))
	switch {
	case err == nil:
		if err := json.Unmarshal(e.Value(), &opp); err != nil {
			p.n.log.Warn("cluster: last opponents that do not read", "err", err)
		}
	case errors.Is(err, jetstream.ErrKeyNotFound):
	default:
		p.n.log.Warn("cluster: reading last opponents", "err", err)
		return nil // not cached: asked again next time
	}
	p.last[id] = opp
	return opp
}

func lastKey(id string) string { return hex.EncodeToString([]byte(id)) }

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
