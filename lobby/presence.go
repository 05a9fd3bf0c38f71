// Package lobby owns who is online and, as the game features land, the rooms
// and the matchmaking queue that players move between.
package lobby

import (
	"sort"
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
	next     uint64
	sessions map[uint64]entry
	players  map[string]int // player id → live sessions
	changed  chan struct{}  // closed and replaced when the online count changes
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
func NewHub() *Hub {
	return &Hub{sessions: map[uint64]entry{}, players: map[string]int{}, changed: make(chan struct{}), moved: make(chan struct{})}
}

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
	h.sessions[id] = entry{p, notify}
	h.players[p.ID]++
	if h.players[p.ID] == 1 {
		h.signalLocked()
	}
	h.movedLocked()
	h.mu.Unlock()
	move = func(where string) {
		h.mu.Lock()
		defer h.mu.Unlock()
		if e, ok := h.sessions[id]; ok && e.p.Where != where {
			e.p.Where = where
			h.sessions[id] = e
			h.movedLocked()
		}
	}
	var once sync.Once
	return move, func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			delete(h.sessions, id)
			h.movedLocked()
			h.players[p.ID]--
			if h.players[p.ID] <= 0 {
				delete(h.players, p.ID)
				h.signalLocked()
			}
		})
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
		best := make(map[string]Presence, len(h.players))
		for _, e := range h.sessions {
			if b, ok := best[e.p.ID]; !ok || e.p.Activity().rank() > b.Activity().rank() {
				best[e.p.ID] = e.p
			}
		}
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

// Online reports how many distinct players are online, and a channel that is
// closed when that number changes: watchers wait on it instead of polling.
func (h *Hub) Online() (int, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.players), h.changed
}

// SessionList returns every live session, sorted by name.
func (h *Hub) SessionList() []Presence {
	h.mu.Lock()
	out := make([]Presence, 0, len(h.sessions))
	for _, e := range h.sessions {
		out = append(out, e.p)
	}
	h.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		return out[i].Name < out[j].Name || (out[i].Name == out[j].Name && out[i].Since.Before(out[j].Since))
	})
	return out
}

// Sessions reports how many sessions are live (a player may have several).
func (h *Hub) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// List returns the online players sorted by name, one entry per player.
func (h *Hub) List() []Presence {
	h.mu.Lock()
	seen := map[string]bool{}
	out := make([]Presence, 0, len(h.players))
	for _, e := range h.sessions {
		if !seen[e.p.ID] {
			seen[e.p.ID] = true
			out = append(out, e.p)
		}
	}
	h.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Broadcast tells every session n and returns how many were told.
func (h *Hub) Broadcast(n Notice) int {
	return h.notify(func(Presence) bool { return true }, n)
}

// Tell tells every session of player id; it returns how many were told.
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
