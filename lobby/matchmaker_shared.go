package lobby

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/termarena/termarena/store"
)

// Pairing is a cluster's one matchmaker as a node's Matchmaker sees it
// (PairElsewhere): which node pairs every node's queues now, and how many
// wait on the others. The cluster package implements it.
type Pairing interface {
	// Holder is the node whose matchmaker pairs the queues now: the
	// holder of the cluster's matchmaker lease ("" while nobody holds
	// it, as in the seconds after a holder died).
	Holder() string
	// Elsewhere counts the players waiting in mode on the other nodes.
	Elsewhere(mode RankedMode) int
}

// pairingBox lets an interface sit in an atomic.Pointer.
type pairingBox struct{ p Pairing }

// ErrStaleMatch is a match formed elsewhere naming a player who no longer
// waits in that mode here: they left, or matched meanwhile. Nothing is
// changed; the others stay queued.
var ErrStaleMatch = errors.New("lobby: a player of the match no longer waits here")

// PairElsewhere hands the pairing of mm's queues to a cluster's one
// matchmaker: from now on mm runs no waves of its own; the cluster reads
// who waits (Waiting) and hands formed matches back (Apply). Joining,
// leaving, cooldowns and the rooms stay mm's, on this node.
func (mm *Matchmaker) PairElsewhere(p Pairing) {
	mm.pairing.Store(&pairingBox{p})
}

// elsewhere is the cluster's pairing, or nil on a single node.
func (mm *Matchmaker) elsewhere() Pairing {
	if b := mm.pairing.Load(); b != nil {
		return b.p
	}
	return nil
}

// Pairer names the node that pairs the ranked queues: "" on a single
// node, "none" in a cluster while no node holds the lease.
func (mm *Matchmaker) Pairer() string {
	p := mm.elsewhere()
	if p == nil {
		return ""
	}
	if h := p.Holder(); h != "" {
		return h
	}
	return "none"
}

// Scope is what the queue screen says of a cluster: this node's name,
// how many wait in mode on the other nodes, and whether the queues are
// shared at all (false on a single node); a match may seat players of
// every node.
func (mm *Matchmaker) Scope(mode RankedMode) (node string, elsewhere int, shared bool) {
	p := mm.elsewhere()
	if p == nil {
		return "", 0, false
	}
	return mm.rooms.cfg.Node, p.Elsewhere(mode), true
}

// Waiting lists who waits in each of mm's ranked queues, in id order, and
// a channel closed at the next join or leave: what a node tells the
// cluster's matchmaker.
func (mm *Matchmaker) Waiting() (map[RankedMode][]Entry, <-chan struct{}) {
	mm.mu.Lock()
	ch := mm.changed
	mm.mu.Unlock()
	out := make(map[RankedMode][]Entry, len(mm.queues))
	for mode, q := range mm.queues {
		out[mode] = q.Entries()
	}
	return out, ch
}

// notifyLocked wakes whoever waits on Waiting's channel.
func (mm *Matchmaker) notifyLocked() {
	close(mm.changed)
	mm.changed = make(chan struct{})
}

// NewQueues makes an empty queue of every ranked mode mm runs, with the
// same tables: the cluster's matchmaker pairs each node's players in its
// own.
func (mm *Matchmaker) NewQueues() map[RankedMode]*Queue {
	out := make(map[RankedMode]*Queue, len(mm.queues))
	for mode, q := range mm.queues {
		out[mode] = &Queue{mode: mode, size: q.size, pairs: q.pairs, waiting: make(map[string]Entry)}
	}
	return out
}

// Apply seats a match the cluster's matchmaker formed from this node's
// queue, as a wave of mm's own would: the players leave the queue and
// their tickets get the ranked room. A match naming anyone who no longer
// waits here in its mode is refused with ErrStaleMatch and changes
// nothing.
func (mm *Matchmaker) Apply(m Match) error {
	q := mm.queues[m.Mode]
	if q == nil {
		return fmt.Errorf("lobby: apply a match: %w: %q", ErrUnknownMode, m.Mode)
	}
	if len(m.Players) != q.size {
		return fmt.Errorf("lobby: apply a %s match of %d players: a table has %d", m.Mode, len(m.Players), q.size)
	}
	now := mm.now()
	mm.mu.Lock()
	var gone []string
	for _, p := range m.Players {
		if t := mm.tickets[p.ID]; t == nil || t.Mode != m.Mode {
			gone = append(gone, p.ID)
		}
	}
	if len(gone) > 0 {
		mm.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrStaleMatch, strings.Join(gone, ", "))
	}
	// Out of the queue under the lock Join and Leave take, as a wave
	// takes them; deliver then hands each ticket its room.
	for _, p := range m.Players {
		q.Remove(p.ID, now)
	}
	mm.mu.Unlock()
	mm.deliver(m)
	return nil
}

// Entries lists who waits in q, in id order.
func (q *Queue) Entries() []Entry {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]Entry, 0, len(q.waiting))
	for _, e := range q.waiting {
		e.LastOpponents = slices.Clone(e.LastOpponents)
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Has reports whether id waits in q.
func (q *Queue) Has(id string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	_, ok := q.waiting[id]
	return ok
}

// OnLeave has fn told of every ranked leave recorded on this node, with
// the leaver's record as it stands (fn must not block: it runs under the
// cooldowns' lock, on the results writer's goroutine). A cluster
// publishes them so a leaver's cooldown holds on every node at once, not
// only after a restart reads the store.
func (mm *Matchmaker) OnLeave(fn func(id string, l store.Leaves)) {
	mm.cooldowns.mu.Lock()
	defer mm.cooldowns.mu.Unlock()
	mm.cooldowns.observe = fn
}

// MergeLeave takes a leave record another node made.
func (mm *Matchmaker) MergeLeave(id string, l store.Leaves) { mm.cooldowns.Merge(id, l) }

// ApplyShared seats a match the cluster's matchmaker formed from players
// on several nodes, in a room on this node: here says which of them wait
// here. Those must (ErrStaleMatch otherwise, nothing changed); they leave
// the queue and their tickets get the room, as Apply's do. The others sit
// in it from their own nodes (SeatRemote), through the cluster.
func (mm *Matchmaker) ApplyShared(m Match, here func(id string) bool) (*Room, error) {
	q := mm.queues[m.Mode]
	if q == nil {
		return nil, fmt.Errorf("lobby: apply a match: %w: %q", ErrUnknownMode, m.Mode)
	}
	if len(m.Players) != q.size {
		return nil, fmt.Errorf("lobby: apply a %s match of %d players: a table has %d", m.Mode, len(m.Players), q.size)
	}
	now := mm.now()
	mm.mu.Lock()
	var gone []string
	for _, p := range m.Players {
		if t := mm.tickets[p.ID]; here(p.ID) && (t == nil || t.Mode != m.Mode) {
			gone = append(gone, p.ID)
		}
	}
	if len(gone) > 0 {
		mm.mu.Unlock()
		return nil, fmt.Errorf("%w: %s", ErrStaleMatch, strings.Join(gone, ", "))
	}
	for _, p := range m.Players {
		if here(p.ID) {
			q.Remove(p.ID, now)
		}
	}
	mm.mu.Unlock()
	r := mm.deliver(m)
	if r == nil {
		return nil, fmt.Errorf("lobby: the %s room could not be made", m.Mode)
	}
	return r, nil
}

// SeatRemote hands the ranked room another node made for a match (a
// handle on it, Rooms.Attach) to the tickets of players waiting here in
// its mode: they leave the queue and sit in it from here. A player no
// longer waiting is skipped; the owner calls the match off if they do not
// show up.
func (mm *Matchmaker) SeatRemote(r *Room, ids []string) {
	now := mm.now()
	mm.mu.Lock()
	defer mm.mu.Unlock()
	for _, id := range ids {
		t := mm.tickets[id]
		if t == nil || t.Mode != r.Ranked {
			continue
		}
		mm.matched[id] = r
		mm.dropTicketLocked(id, now)
		t.room <- r // capacity 1, delivered once
	}
	go func() {
		<-r.Done()
		mm.forget(r)
	}()
}
