package lobby

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/termarena/termarena/game"
)

// QuickMode is one casual mode's quick-match queue: "play anyone,
// unrated".
type QuickMode struct {
	// Key names the queue as players type it and the listings show it:
	// GAME-MODE ("pong-1v1"), or the mode's own name when it already
	// names the game ("tron").
	Key        string
	Game, Mode string
	// Table is how many the queue seats at once: the least the mode
	// starts a match with. The room is public, so more may join it.
	Table int
}

// QuickMatch pairs players who want a casual match of a mode with anyone:
// a queue per casual mode, formed like a ranked one but with no rating
// (everyone queues at the same one, so any table fits at once), into a
// public casual room whose matches are unrated. It is safe for concurrent
// use and runs no goroutine: a table forms on the arrival that fills it.
type QuickMatch struct {
	rooms  *Rooms
	modes  []QuickMode
	queues map[string]*Queue
	now    func() time.Time

	mu      sync.Mutex
	tickets map[string]*Ticket
}

// NewQuickMatch prepares a queue for every casual mode of the rooms'
// games.
func NewQuickMatch(rs *Rooms) (*QuickMatch, error) {
	qm := &QuickMatch{rooms: rs, queues: map[string]*Queue{}, tickets: map[string]*Ticket{}, now: time.Now}
	for _, k := range rs.Games() {
		for _, m := range k.Modes() {
			if !m.Casual {
				continue
			}
			key := k.Name() + "-" + m.Name
			if m.Name == k.Name() || strings.HasPrefix(m.Name, k.Name()+"-") {
				key = m.Name
			}
			table := min(max(m.MinPlayers, 2), maxTable, m.Seats)
			q, err := NewQueue(RankedMode(key), table, false)
			if err != nil {
				return nil, fmt.Errorf("lobby: quick match %s: %w", key, err)
			}
			qm.queues[key] = q
			qm.modes = append(qm.modes, QuickMode{Key: key, Game: k.Name(), Mode: m.Name, Table: table})
		}
	}
	return qm, nil
}

// Modes lists the quick-match queues in the catalogue's order.
func (qm *QuickMatch) Modes() []QuickMode { return qm.modes }

// Parse finds the queue a player asked for, in any form practice takes
// (see ParsePractice; "" is the first casual mode); false for a mode with
// no casual room.
func (qm *QuickMatch) Parse(s string) (QuickMode, bool) {
	if strings.TrimSpace(s) == "" && len(qm.modes) > 0 {
		return qm.modes[0], true
	}
	k, m, ok := ParsePractice(qm.rooms.Games(), s)
	if !ok {
		return QuickMode{}, false
	}
	for _, q := range qm.modes {
		if q.Game == k.Name() && q.Mode == m.Name {
			return q, true
		}
	}
	return QuickMode{}, false
}

// Join queues player id for the quick match key. A player already queued
// (another terminal) moves to this ticket. The ticket delivers a casual
// room whose Seats say where each player sits.
func (qm *QuickMatch) Join(key, id, name string) (*Ticket, error) {
	q := qm.queues[key]
	if q == nil {
		return nil, fmt.Errorf("lobby: %w: no quick match %q", ErrUnknownMode, key)
	}
	now := qm.now()
	t := &Ticket{Mode: RankedMode(key), ID: id, room: make(chan *Room, 1)}
	qm.mu.Lock()
	qm.dropLocked(id, now)
	qm.tickets[id] = t
	err := q.Enqueue(Entry{ID: id, Name: name, Since: now}, now)
	if err != nil {
		delete(qm.tickets, id)
	}
	qm.mu.Unlock()
	if err != nil {
		return nil, err
	}
	for _, m := range q.Tick(now) {
		qm.deliver(m)
	}
	return t, nil
}

// Leave takes id out of whatever quick-match queue they are in.
func (qm *QuickMatch) Leave(id string) {
	qm.mu.Lock()
	defer qm.mu.Unlock()
	qm.dropLocked(id, qm.now())
}

func (qm *QuickMatch) dropLocked(id string, now time.Time) {
	if t := qm.tickets[id]; t != nil {
		delete(qm.tickets, id)
		qm.queues[string(t.Mode)].Remove(id, now)
	}
}

// Status is what the queue screen shows: the wait, how many wait in the
// queue and how many a match needs; ok is false once t is out of it.
func (qm *QuickMatch) Status(t *Ticket) (waited time.Duration, queued, need int, ok bool) {
	q := qm.queues[string(t.Mode)]
	waited, _, _, queued, ok = q.Status(t.ID, qm.now())
	return waited, queued, q.size, ok
}

// Queued counts each quick-match queue, in the catalogue's order.
func (qm *QuickMatch) Queued() []QueueCount {
	out := make([]QueueCount, 0, len(qm.modes))
	for _, m := range qm.modes {
		q := qm.queues[m.Key]
		out = append(out, QueueCount{Mode: RankedMode(m.Key), Waiting: q.Len(), Table: q.size})
	}
	return out
}

// deliver makes the table's room and hands it to each ticket; a room that
// cannot be made (the server's room cap) hands nil, which the queue
// screen reports.
func (qm *QuickMatch) deliver(m Match) {
	var mode QuickMode
	for _, q := range qm.modes {
		if q.Key == string(m.Mode) {
			mode = q
		}
	}
	k, md, _ := qm.rooms.Games().Mode(mode.Game, mode.Mode)
	seats := make(map[game.PlayerID]int, len(m.Players))
	for i, p := range m.Players {
		seats[game.PlayerID(p.ID)] = spreadSlot(md, i)
	}
	rc := qm.rooms.cfg.Room
	rc.AllowLateJoin = true
	r, err := qm.rooms.create(k, md, "", false, rc, seats, 0)
	if err != nil {
		r = nil
	}
	qm.mu.Lock()
	defer qm.mu.Unlock()
	for _, p := range m.Players {
		if t := qm.tickets[p.ID]; t != nil {
			delete(qm.tickets, p.ID)
			t.room <- r // capacity 1, delivered once
		}
	}
}

// spreadSlot is the seat of the i-th player a quick match seats: in a team
// mode the teams take turns, so two players face each other rather than
// share a side.
func spreadSlot(m game.Mode, i int) int {
	if n := len(m.Teams); n > 1 && i/n < len(m.Teams[i%n]) {
		return m.Teams[i%n][i/n]
	}
	return i
}
