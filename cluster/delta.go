package cluster

import (
	"encoding/json"
	"slices"
	"time"
)

// Presence and the room directory go out as changes: a node sends every
// node the whole of its part only now and then, and what changed as it
// changes, so the traffic grows with what happens, not with the number
// of nodes times everything they hold.
//
// Each node numbers its changes (seq: its start time in nanoseconds, so
// a restarted node counts on from above its former self, then +1 a
// change). A delta (subject + ".delta") carries the items set or changed
// since the previous number and the keys gone; with nothing changed a
// node still says its number every heartbeat, so a lost delta shows as a
// gap. A node that sees a gap, or hears a node it has no list of, asks
// it for its whole list (subject + ".full." + node, request/reply) and
// keeps showing what it had meanwhile: a missing delta is never read as
// nobody online.
//
// Whole lists keep their first subject and shape (version 1), so a node
// of an older build, which reads only those, still understands; a whole
// list from a node that reads deltas says so ("deltas": 1). A node sends
// its whole list there at its start, every fullEvery as a safety net,
// and, while it hears a node that does not read deltas, on every change
// and heartbeat as before.
const deltaVersion = 1

// keyed is one item of a node's part, encoded, under its key (a
// session's or a room's identity).
type keyed struct {
	Key  string
	Item json.RawMessage
}

// keyItems encodes a whole list's items under their keys, for deltas.
func keyItems[T any](list []T, key func(T) string) []keyed {
	items := make([]keyed, 0, len(list))
	for _, it := range list {
		b, _ := json.Marshal(it) // plain strings, numbers and times: cannot fail
		items = append(items, keyed{Key: key(it), Item: b})
	}
	return items
}

// unkeyItems decodes keyed items back into a whole list; an item that
// does not decode (a newer node's, changed beyond what this one reads)
// is left out.
func unkeyItems[T any](items []keyed) []T {
	list := make([]T, 0, len(items))
	for _, it := range items {
		var v T
		if err := json.Unmarshal(it.Item, &v); err == nil {
			list = append(list, v)
		}
	}
	return list
}

// deltaMsg is a node's changes on the wire (version 1; fields are only
// added). No Set and no Gone: nothing changed since Seq.
type deltaMsg struct {
	V    int                        `json:"v"`
	Node string                     `json:"node"`
	SSH  string                     `json:"ssh,omitempty"`
	Seq  uint64                     `json:"seq"`
	Set  map[string]json.RawMessage `json:"set,omitempty"`
	Gone []string                   `json:"gone,omitempty"`
}

// outbox is what this node last told the others of its part.
type outbox struct {
	seq  uint64
	sent map[string]json.RawMessage
}

func newOutbox(now time.Time) *outbox {
	return &outbox{seq: uint64(now.UnixNano()), sent: map[string]json.RawMessage{}}
}

// change compares items with what was sent and, when anything differs,
// numbers the change and returns it as a delta (ok false: nothing
// changed).
func (o *outbox) change(items []keyed) (set map[string]json.RawMessage, gone []string, ok bool) {
	now := make(map[string]json.RawMessage, len(items))
	for _, it := range items {
		now[it.Key] = it.Item
		if old, had := o.sent[it.Key]; !had || !slices.Equal(old, it.Item) {
			if set == nil {
				set = map[string]json.RawMessage{}
			}
			set[it.Key] = it.Item
		}
	}
	for key := range o.sent {
		if _, still := now[key]; !still {
			gone = append(gone, key)
		}
	}
	o.sent = now
	if set == nil && gone == nil {
		return nil, nil, false
	}
	slices.Sort(gone)
	o.seq++
	return set, gone, true
}

// peer is what this node holds of another node's part, from its whole
// lists and deltas.
type peer struct {
	seq    uint64
	synced bool // seq is a whole list's or a delta applied on one
	ssh    string
	items  []keyed
	at     map[string]int // index in items by key
	asked  time.Time      // when its whole list was last asked for
}

// whole replaces the peer's part with a whole list at seq.
func (p *peer) whole(seq uint64, ssh string, items []keyed) {
	p.seq, p.synced, p.ssh = seq, true, ssh
	p.items = slices.Clone(items)
	p.at = make(map[string]int, len(items))
	for i, it := range p.items {
		p.at[it.Key] = i
	}
}

// apply applies a delta that follows the peer's number: set items are
// replaced where they are or added at the end (in key order), gone ones
// removed.
func (p *peer) apply(d deltaMsg) {
	p.seq, p.ssh = d.Seq, d.SSH
	keys := make([]string, 0, len(d.Set))
	for key := range d.Set {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		if i, ok := p.at[key]; ok {
			p.items[i].Item = d.Set[key]
			continue
		}
		p.at[key] = len(p.items)
		p.items = append(p.items, keyed{Key: key, Item: d.Set[key]})
	}
	if len(d.Gone) == 0 {
		return
	}
	gone := make(map[string]bool, len(d.Gone))
	for _, key := range d.Gone {
		gone[key] = true
	}
	p.items = slices.DeleteFunc(p.items, func(it keyed) bool { return gone[it.Key] })
	clear(p.at)
	for i, it := range p.items {
		p.at[it.Key] = i
	}
}
