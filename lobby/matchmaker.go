package lobby

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/termarena/termarena/game"
)

// ErrCooldown is returned to a player who left ranked matches recently.
var ErrCooldown = errors.New("queue cooldown")

// CooldownError says until when a repeated leaver must wait.
type CooldownError struct{ Until time.Time }

func (e *CooldownError) Error() string {
	return fmt.Sprintf("you left ranked matches recently: you can queue again in %s", time.Until(e.Until).Round(time.Second))
}
func (e *CooldownError) Is(target error) bool { return target == ErrCooldown }

// ErrInMatch is returned to a player who already holds a seat in a ranked
// match, from this terminal or another: one key plays one ranked match at
// a time, or each would be rated from what the other just did.
var ErrInMatch = errors.New("already in a ranked match")

// InMatchError names the ranked room whose seat the player holds.
type InMatchError struct{ Room *Room }

func (e *InMatchError) Error() string {
	return fmt.Sprintf("you are already in a ranked %s match, in %s", e.Room.Ranked, e.Room.ID())
}
func (e *InMatchError) Is(target error) bool { return target == ErrInMatch }

// ShowUpTimeout is how long matched players have to sit down before the
// match is called off.
const ShowUpTimeout = 20 * time.Second

// Ticket is one player's place in a ranked queue. Room delivers the ranked
// room once a match is formed.
type Ticket struct {
	Mode RankedMode
	ID   string
	room chan *Room
}

// Room is closed-over delivery of the player's ranked room: nil when the
// match was formed but its room could not be made (a server error; the
// player is out of the queue).
func (t *Ticket) Room() <-chan *Room { return t.room }

// Matchmaker runs the ranked queues and turns their matches into ranked
// rooms. It is safe for concurrent use.
type Matchmaker struct {
	rooms     *Rooms
	queues    map[RankedMode]*Queue
	modes     []RankedMode
	cooldowns *Cooldowns
	now       func() time.Time
	log       *slog.Logger

	mu      sync.Mutex
	tickets map[string]*Ticket
	last    map[string][]string // player → previous ranked opponents
	// matched is the live ranked room each player was last matched into,
	// until that room ends: where to look for a seat they still hold.
	matched map[string]*Room
	// changed is closed at a join or a leave (Waiting), then replaced.
	changed chan struct{}

	// pairing, in a cluster, is the one matchmaker that pairs these
	// queues instead of their own waves (PairElsewhere); nil on a
	// single node.
	pairing atomic.Pointer[pairingBox]

	panics panicCount // waves and matches whose handling panicked
}

// NewMatchmaker prepares a queue for each ranked mode of the rooms' games.
func NewMatchmaker(rooms *Rooms, cooldowns *Cooldowns, log *slog.Logger) (*Matchmaker, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	mm := &Matchmaker{rooms: rooms, queues: map[RankedMode]*Queue{}, cooldowns: cooldowns, now: time.Now, log: log,
		tickets: map[string]*Ticket{}, last: map[string][]string{}, matched: map[string]*Room{}, changed: make(chan struct{})}
	for _, k := range rooms.Games() {
		for _, m := range k.Modes() {
			if m.Ranked == "" {
				continue
			}
			pairs := len(m.Teams) > 0
			if pairs && !slices.EqualFunc(m.Teams, pairTeams, slices.Equal) {
				return nil, fmt.Errorf("lobby: %s %s: a ranked queue seats teams as slots {0,1} against {2,3} only", k.Name(), m.Name)
			}
			q, err := NewQueue(RankedMode(m.Ranked), m.Table, pairs)
			if err != nil {
				return nil, err
			}
			mm.queues[q.Mode()] = q
			mm.modes = append(mm.modes, q.Mode())
		}
	}
	return mm, nil
}

// Modes lists the ranked modes, in the catalogue's order.
func (mm *Matchmaker) Modes() []RankedMode { return mm.modes }

// Run drives every queue's waves until ctx ends.
func (mm *Matchmaker) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, q := range mm.queues {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for mm.runQueue(ctx, q) {
				// A wave that panicked is skipped; the next one comes
				// after the usual interval, so a bug that strikes
				// every wave logs once a wave, not in a tight loop.
				select {
				case <-ctx.Done():
				case <-time.After(WaveInterval):
				}
			}
		}()
	}
	wg.Wait()
}

// runQueue runs q until ctx ends (false) or a wave panics (true, logged).
func (mm *Matchmaker) runQueue(ctx context.Context, q *Queue) (panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			mm.panics.recovered(mm.log, WorkerMatchmaker, "ranked queue wave panicked; skipped", v, debug.Stack(), "mode", q.Mode())
			panicked = ctx.Err() == nil
		}
	}()
	t := time.NewTicker(WaveInterval / 4)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case now := <-t.C:
			if mm.elsewhere() != nil {
				continue // the cluster's matchmaker pairs this queue
			}
			for _, m := range q.Tick(now) {
				mm.deliver(m)
			}
		}
	}
}

// Panics is how many waves and matches the matchmaker skipped because
// handling them panicked.
func (mm *Matchmaker) Panics() uint64 { return mm.panics.Load() }

// Join queues a player for mode. A player already queued (say, from a
// second terminal) is moved to the new ticket's mode. A player who holds a
// seat in a ranked match (InMatch) is refused with an *InMatchError.
func (mm *Matchmaker) Join(mode RankedMode, id, name string, rating float64) (*Ticket, error) {
	q := mm.queues[mode]
	if q == nil {
		return nil, fmt.Errorf("lobby: %w: %q", ErrUnknownMode, mode)
	}
	now := mm.now()
	if until, blocked := mm.cooldowns.Check(id, now); blocked {
		return nil, &CooldownError{Until: until}
	}
	t := &Ticket{Mode: mode, ID: id, room: make(chan *Room, 1)}
	// The check, the move from an older ticket and the enqueue happen
	// under one lock that deliver also takes: a match formed meanwhile
	// (from another terminal's ticket) is either seen here or takes this
	// ticket's place in the queue with it.
	mm.mu.Lock()
	if r := mm.inMatchLocked(id); r != nil {
		mm.mu.Unlock()
		return nil, &InMatchError{Room: r}
	}
	mm.dropTicketLocked(id, now)
	mm.tickets[id] = t
	err := q.Enqueue(Entry{ID: id, Name: name, Rating: rating, Since: now, LastOpponents: mm.last[id]}, now)
	if err != nil {
		delete(mm.tickets, id)
	}
	mm.notifyLocked()
	mm.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if mm.elsewhere() != nil {
		return t, nil // the cluster's matchmaker pairs it, told by Waiting
	}
	// A full table within tolerance pairs at once, not at the next wave.
	for _, m := range q.Tick(now) {
		mm.deliver(m)
	}
	return t, nil
}

// Leave takes a player out of whatever queue they are in.
func (mm *Matchmaker) Leave(id string) {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	mm.dropTicketLocked(id, mm.now())
}

func (mm *Matchmaker) dropTicketLocked(id string, now time.Time) {
	if t := mm.tickets[id]; t != nil {
		delete(mm.tickets, id)
		mm.queues[t.Mode].Remove(id, now)
		mm.notifyLocked()
	}
}

// InMatch returns the ranked room where the player holds a seat — matched
// and not yet seated, or seated in a match counting down or in play (in
// grace too) — or nil. A finished match, or one they forfeited, holds
// nobody.
func (mm *Matchmaker) InMatch(id string) *Room {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	return mm.inMatchLocked(id)
}

func (mm *Matchmaker) inMatchLocked(id string) *Room {
	r := mm.matched[id]
	if r == nil {
		return nil
	}
	select {
	case <-r.Done():
		delete(mm.matched, id)
		return nil
	default:
	}
	if holdsRankedSeat(r, game.PlayerID(id)) {
		return r
	}
	return nil
}

// holdsRankedSeat: in ranked room r, id was matched and has not sat down
// yet, or sits in a match counting down or in play.
func holdsRankedSeat(r *Room, id game.PlayerID) bool {
	fr, _ := r.Latest()
	if fr == nil {
		return false
	}
	switch fr.Phase {
	case game.Waiting:
		_, ok := r.Seats[id]
		return ok
	case game.Countdown, game.Playing:
		for _, s := range fr.Seats {
			if s.Taken && s.Player.ID == id {
				return true
			}
		}
	}
	return false
}

// Cooldown reports until when a ranked leaver may not queue.
func (mm *Matchmaker) Cooldown(id string) (until time.Time, blocked bool) {
	return mm.cooldowns.Check(id, mm.now())
}

// TableSize is how many players a match of mode needs.
func (mm *Matchmaker) TableSize(mode RankedMode) int {
	if q := mm.queues[mode]; q != nil {
		return q.size
	}
	return 0
}

// Status is what the queue screen shows.
func (mm *Matchmaker) Status(t *Ticket) (waited time.Duration, lo, hi float64, queued int, ok bool) {
	return mm.queues[t.Mode].Status(t.ID, mm.now())
}

// deliver turns a formed match into a ranked room and hands it to each
// player's ticket. Players who do not sit down within ShowUpTimeout void
// the match: the room closes and those who came are told. A match whose
// room cannot be made (an error, or a panic: one bad match must not stop
// the queue) is logged and dropped, and its players are told.
func (mm *Matchmaker) deliver(m Match) (room *Room) {
	defer func() {
		if v := recover(); v != nil {
			mm.panics.recovered(mm.log, WorkerMatchmaker, "making a ranked room panicked; the match was dropped", v, debug.Stack(),
				"mode", m.Mode, "players", len(m.Players))
			mm.fail(m)
			room = nil
		}
	}()
	r, err := mm.rooms.CreateRanked(m)
	if err != nil {
		mm.log.Error("ranked room", "mode", m.Mode, "err", err)
		mm.fail(m)
		return nil
	}
	mm.mu.Lock()
	for _, p := range m.Players {
		var opp []string
		for _, o := range m.Players {
			if o.ID != p.ID {
				opp = append(opp, o.ID)
			}
		}
		mm.last[p.ID] = opp
		mm.matched[p.ID] = r
		if t := mm.tickets[p.ID]; t != nil {
			// The ticket may be one another terminal queued after this
			// wave took the player out: it is gone from its queue too.
			mm.dropTicketLocked(p.ID, mm.now())
			t.room <- r // capacity 1, delivered once
		}
	}
	mm.mu.Unlock()
	go func() {
		mm.watchShowUp(r, len(m.Players))
		<-r.Done()
		mm.forget(r)
	}()
	return r
}

// forget drops an ended room's players from matched, unless a newer match
// has taken its place.
func (mm *Matchmaker) forget(r *Room) {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	for id := range r.Seats {
		if mm.matched[string(id)] == r {
			delete(mm.matched, string(id))
		}
	}
}

// fail tells the players of a match that got no room that it is off: their
// tickets deliver nil.
func (mm *Matchmaker) fail(m Match) {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	for _, p := range m.Players {
		if t := mm.tickets[p.ID]; t != nil {
			mm.dropTicketLocked(p.ID, mm.now())
			t.room <- nil // capacity 1, delivered once
		}
	}
}

func (mm *Matchmaker) watchShowUp(r *Room, want int) {
	timer := time.NewTimer(ShowUpTimeout)
	defer timer.Stop()
	for {
		fr, changed := r.Latest()
		if fr != nil && fr.Phase != game.Waiting {
			return
		}
		if fr != nil {
			seated := 0
			for _, s := range fr.Seats {
				if s.Taken {
					seated++
				}
			}
			if seated == want {
				return
			}
		}
		select {
		case <-changed:
		case <-r.Done():
			return
		case <-timer.C:
			mm.log.Info("ranked match called off: not everyone showed up", "room", r.ID())
			r.Close()
			return
		}
	}
}

// QueueCount is how many players wait in one ranked queue, and how many a
// match of it needs.
type QueueCount struct {
	Mode    RankedMode
	Waiting int
	Table   int
}

// Queued counts each ranked queue's waiting players, in the catalogue's
// order: in a cluster every node's, as one matchmaker pairs them all (who
// on n1 said 0/2 while ann waited on n2 and carol on n3).
func (mm *Matchmaker) Queued() []QueueCount {
	p := mm.elsewhere()
	out := make([]QueueCount, 0, len(mm.modes))
	for _, m := range mm.modes {
		q := mm.queues[m]
		n := q.Len()
		if p != nil {
			n += p.Elsewhere(m)
		}
		out = append(out, QueueCount{Mode: m, Waiting: n, Table: q.size})
	}
	return out
}
