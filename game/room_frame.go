package game

import (
	"sync/atomic"
	"time"
)

// Frame is what the room publishes after every tick and every change of
// phase or seats. It is immutable once published and shared by every reader:
// never modify it or anything it points to.
type Frame struct {
	Room     string
	Seq      uint64 // publish counter; a reader that sees a jump skipped frames, which is fine
	Tick     uint64 // game ticks stepped in this match
	TickRate int
	Phase    Phase
	// Left is the countdown remaining in Countdown (0 while paused: the
	// countdown restarts in full once everyone is back); 0 otherwise.
	Left  time.Duration
	Seats []Seat // len = Game.Slots()
	// Acks is, per slot, the Seq of the last input the room consumed from
	// that seat: applied, or discarded because the game was not stepping
	// (countdown, pause) or the seat was over its per-tick limit. Either way
	// State already reflects it, so a predicting client drops pending inputs
	// up to Acks[slot] and re-applies the rest. Reset to 0 when a player
	// reconnects, since a new session starts its own sequence.
	Acks  []uint32
	State any // Game.Snapshot() of this tick
	// Result is set in Finished (and stays set in the Closed frame that
	// may follow it).
	Result *Result
	Seed   uint64
	// Paused is true while a seated player is in grace; Seats says who and
	// for how long.
	Paused bool
	// Roster lists, per slot, who played it in the current (or just
	// finished) match, including players who have since left or forfeited,
	// so a results screen can name them. Nil before the first match starts.
	// A seat that changed hands after the match (a joiner in Finished)
	// still names the player who played it here: the result is theirs.
	Roster []Player
	// Forfeited is, per slot of Roster, true when that player left the
	// match before it ended (quit, or did not come back within grace), so
	// screens can say "bob left" and mark them in the results. Nil when
	// nobody did.
	Forfeited []bool
	// WarmUp is set while a match started alone (RoomConfig.WarmUp) runs:
	// nothing in it counts, and a second player sitting ends it.
	WarmUp bool
	// Failed is set on the Closed frame of a room that ended because of a
	// server error (a panic on its goroutine, see Room.Run) rather than
	// being disposed of: screens tell its players and watchers so.
	Failed bool
}

// Seat is one slot of the room as frames show it.
type Seat struct {
	Player    Player
	Taken     bool
	Connected bool
	Ready     bool
	// GraceLeft is how long a disconnected player has left to come back
	// before forfeiting; 0 when connected.
	GraceLeft time.Duration
	// Misbehaved counts inputs this seat sent for another slot.
	Misbehaved uint64
	// Sessions is how many sessions (terminals) play the seat: one that
	// closes while another plays on drops nothing.
	Sessions int
}

// mailbox is the latest-wins, capacity-1 mailbox shared by all readers.
// Publishing is one atomic swap and one close whatever the number of
// readers, and a reader that never reads costs nothing: there is no
// per-reader state for the room to fill.
type mailbox struct {
	cur atomic.Pointer[published]
}

// published keeps a frame, its usual-size seat and ack arrays and its
// change signal in one allocation, since one is made per tick.
type published struct {
	frame Frame
	seats [4]Seat
	acks  [4]uint32
	// changed is closed when the next frame is published, so every reader
	// waiting for "something newer than this" wakes at once.
	changed chan struct{}
	// at is when the frame was published, on the wall clock's monotonic
	// reading: a view that polls once per drawn frame instead of waking
	// for every tick still knows how old the state is it extrapolates.
	at time.Time
}

func (m *mailbox) latest() (*Frame, <-chan struct{}) {
	p := m.cur.Load()
	return &p.frame, p.changed
}

func (m *mailbox) latestAt() (*Frame, time.Time) {
	p := m.cur.Load()
	return &p.frame, p.at
}

// publish must only be called by the room goroutine (or before it starts).
func (m *mailbox) publish(p *published) {
	p.changed = make(chan struct{})
	p.at = time.Now()
	if old := m.cur.Swap(p); old != nil {
		close(old.changed)
	}
}
