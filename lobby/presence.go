// Package lobby owns who is online and, as the game features land, the rooms
// and the matchmaking queue that players move between.
package lobby

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Presence is one live session as the rest of the server sees it.
type Presence struct {
	ID    string // player id: key fingerprint or guest id
	Name  string
	Guest bool
	Addr  string    // remote address, for moderators
	Where string    // where the session is: lobby, room r3, watching r2…
	Since time.Time // when it started
	// Node is the cluster node the session is connected to: the hub's own
	// name for its sessions, another node's for those it hears of (see
	// Hub.SetRemote). Empty on a server that is not part of a cluster.
	Node string
	// SSH is the address (host:port) the session's node is reached at
	// over SSH, as that node advertises it; empty outside a cluster.
	SSH string
}

// Notice is something said to sessions from outside their own flow: the
// server restarting, announcements, warnings, kicks and bans.
type Notice struct {
	Text string
	// Final ends the session after the text is shown, with exit status
	// Code (0 means 1, "failure"; a ban uses 77).
	Final bool
	Code  int
}

// Hub tracks live sessions. It is safe for concurrent use; the notify
// functions it is given must not block (they run while other sessions wait).
type Hub struct {
	mu       sync.Mutex
	node     string // stamped on this hub's own sessions (Presence.Node)
	ssh      string // and the node's SSH address (Presence.SSH); SetSSH
	next     uint64
	sessions map[uint64]entry
	players  map[string]int // player id → live sessions
	// remote is what other nodes of a cluster said their sessions are,
	// by node; all counts every player's sessions here and there, so the
	// online count is len(all) whichever node a player is on.
	remote map[string][]Presence
	all    map[string]int
	// local is closed and replaced when this hub's own sessions arrive,
	// leave or move: what a cluster node publishes on.
	local   chan struct{}
	changed chan struct{} // closed and replaced when the online count changes
	// moved is closed and replaced when anyone arrives, leaves or moves:
	// what the who-is-online listings wait on. who caches the listing
	// until then, so a burst of readers sorts it once.
	moved chan struct{}
	who   []Presence
}

type entry struct {
	p      Presence
	notify func(Notice)
}

// NewHub returns an empty hub.
func NewHub() *Hub { return NewNodeHub("") }

// NewNodeHub returns an empty hub of the cluster node named node: its
// sessions carry that name in Presence.Node.
func NewNodeHub(node string) *Hub {
	return &Hub{node: node, sessions: map[uint64]entry{}, players: map[string]int{}, remote: map[string][]Presence{}, all: map[string]int{},
		changed: make(chan struct{}), moved: make(chan struct{}), local: make(chan struct{})}
}

// Node is the name of the hub's node ("" outside a cluster).
func (h *Hub) Node() string { return h.node }

// Join registers a session; the returned func removes it and must be called
// exactly once when the session ends.
func (h *Hub) Join(p Presence, notify func(Notice)) (leave func()) {
	_, leave = h.Enter(p, notify)
	return leave
}

// Enter is Join for a session that moves about: move records where it is
// now (lobby, room r3, queue pong-1v1…) for the session listings.
func (h *Hub) Enter(p Presence, notify func(Notice)) (move func(where string), leave func()) {
	h.mu.Lock()
	h.next++
	id := h.next
	p.Node, p.SSH = h.node, h.ssh
	h.sessions[id] = entry{p, notify}
	h.players[p.ID]++
	h.countLocked(p.ID, 1)
	h.localMovedLocked()
	h.mu.Unlock()
	move = func(where string) {
		h.mu.Lock()
		defer h.mu.Unlock()
		if e, ok := h.sessions[id]; ok && e.p.Where != where {
			e.p.Where = where
			h.sessions[id] = e
			h.localMovedLocked()
		}
	}
	var once sync.Once
	return move, func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			delete(h.sessions, id)
			h.localMovedLocked()
			h.players[p.ID]--
			if h.players[p.ID] <= 0 {
				delete(h.players, p.ID)
			}
			h.countLocked(p.ID, -1)
		})
	}
}

// countLocked adds d sessions of player id to the cluster-wide count and
// signals the online count's watchers when the player came or went.
func (h *Hub) countLocked(id string, d int) {
	was := h.all[id]
	h.all[id] += d
	if h.all[id] <= 0 {
		delete(h.all, id)
	}
	if (was == 0) != (h.all[id] == 0) {
		h.signalLocked()
	}
}

func (h *Hub) localMovedLocked() {
	close(h.local)
	h.local = make(chan struct{})
	h.movedLocked()
}

// SetRemote replaces what the hub knows of node's sessions with ps (nil
// forgets the node): another node of the cluster said so. They count
// online and appear in Who and SessionList beside the hub's own; Tell and
// Broadcast reach only the hub's own sessions.
func (h *Hub) SetRemote(node string, ps []Presence) {
	if node == h.node {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	old, had := h.remote[node]
	if !had && len(ps) == 0 {
		return
	}
	for _, p := range old {
		h.countLocked(p.ID, -1)
	}
	if len(ps) == 0 {
		delete(h.remote, node)
	} else {
		ps = slices.Clone(ps)
		for i := range ps {
			ps[i].Node = node
			h.countLocked(ps[i].ID, 1)
		}
		h.remote[node] = ps
	}
	h.movedLocked()
}

// Elsewhere finds a session on another node of the cluster of the player
// named name (any case): its Name is the name as written, its Node where
// the player is.
func (h *Hub) Elsewhere(name string) (Presence, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ps := range h.remote {
		for _, p := range ps {
			if strings.EqualFold(p.Name, name) {
				return p, true
			}
		}
	}
	return Presence{}, false
}

// Local lists the hub's own sessions (not other nodes'), and a channel
// closed when one arrives, leaves or moves: what a cluster node tells the
// others.
func (h *Hub) Local() ([]Presence, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Presence, 0, len(h.sessions))
	for _, e := range h.sessions {
		out = append(out, e.p)
	}
	return out, h.local
}

// eachLocked calls f with every session the hub knows, its own and other
// nodes'.
func (h *Hub) eachLocked(f func(Presence)) {
	for _, e := range h.sessions {
		f(e.p)
	}
	for _, ps := range h.remote {
		for _, p := range ps {
			f(p)
		}
	}
}

func (h *Hub) signalLocked() {
	close(h.changed)
	h.changed = make(chan struct{})
}

func (h *Hub) movedLocked() {
	close(h.moved)
	h.moved = make(chan struct{})
	h.who = nil
}

// Who lists the online players, one entry per player sorted by name, each
// where their most engaged session is (Activity.Rank: a player playing in
// one terminal and idle in another is playing); and a channel closed when
// anyone arrives, leaves or moves. The slice is shared: callers must not
// modify it.
func (h *Hub) Who() ([]Presence, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.who == nil {
		best := make(map[string]Presence, len(h.all))
		h.eachLocked(func(p Presence) {
			if b, ok := best[p.ID]; !ok || p.Activity().rank() > b.Activity().rank() {
				best[p.ID] = p
			}
		})
		out := make([]Presence, 0, len(best))
		for _, p := range best {
			out = append(out, p)
		}
		sort.Slice(out, func(i, j int) bool {
			return out[i].Name < out[j].Name || (out[i].Name == out[j].Name && out[i].ID < out[j].ID)
		})
		h.who = out
	}
	return h.who, h.moved
}

// Online reports how many distinct players are online (on every node of a
// cluster), and a channel that is closed when that number changes:
// watchers wait on it instead of polling.
func (h *Hub) Online() (int, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.all), h.changed
}

// SessionList returns every live session (on every node of a cluster),
// sorted by name.
func (h *Hub) SessionList() []Presence {
	h.mu.Lock()
	out := make([]Presence, 0, len(h.sessions))
	h.eachLocked(func(p Presence) { out = append(out, p) })
	h.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		return out[i].Name < out[j].Name || (out[i].Name == out[j].Name && out[i].Since.Before(out[j].Since))
	})
	return out
}

// Sessions reports how many sessions are live on this node (a player may
// have several).
func (h *Hub) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// List returns the online players (on every node of a cluster) sorted by
// name, one entry per player.
func (h *Hub) List() []Presence {
	h.mu.Lock()
	seen := map[string]bool{}
	out := make([]Presence, 0, len(h.all))
	h.eachLocked(func(p Presence) {
		if !seen[p.ID] {
			seen[p.ID] = true
			out = append(out, p)
		}
	})
	h.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Broadcast tells every session of this node n and returns how many were
// told.
func (h *Hub) Broadcast(n Notice) int {
	return h.notify(func(Presence) bool { return true }, n)
}

// Tell tells every session of player id on this node; it returns how many
// were told.
func (h *Hub) Tell(id string, n Notice) int {
	return h.notify(func(p Presence) bool { return p.ID == id }, n)
}

func (h *Hub) notify(match func(Presence) bool, n Notice) int {
	h.mu.Lock()
	var fns []func(Notice)
	for _, e := range h.sessions {
		if match(e.p) && e.notify != nil {
			fns = append(fns, e.notify)
		}
	}
	h.mu.Unlock()
	for _, f := range fns {
		f(n)
	}
	return len(fns)
}
