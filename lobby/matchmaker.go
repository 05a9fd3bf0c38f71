package lobby

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
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

// Room is closed-over delivery of the player's ranked room.
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
}

// NewMatchmaker prepares a queue for each ranked mode of the rooms' games.
func NewMatchmaker(rooms *Rooms, cooldowns *Cooldowns, log *slog.Logger) (*Matchmaker, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	mm := &Matchmaker{rooms: rooms, queues: map[RankedMode]*Queue{}, cooldowns: cooldowns, now: time.Now, log: log,
		tickets: map[string]*Ticket{}, last: map[string][]string{}}
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
			q.Run(ctx, mm.deliver)
		}()
	}
	wg.Wait()
}

// Join queues a player for mode. A player already queued (say, from a
// second terminal) is moved to the new ticket's mode.
func (mm *Matchmaker) Join(mode RankedMode, id, name string, rating float64) (*Ticket, error) {
	q := mm.queues[mode]
	if q == nil {
		return nil, fmt.Errorf("lobby: %w: %q", ErrUnknownMode, mode)
	}
	now := mm.now()
	if until, blocked := mm.cooldowns.Check(id, now); blocked {
		return nil, &CooldownError{Until: until}
	}
	mm.Leave(id)
	t := &Ticket{Mode: mode, ID: id, room: make(chan *Room, 1)}
	mm.mu.Lock()
	last := mm.last[id]
	mm.tickets[id] = t
	mm.mu.Unlock()
	if err := q.Enqueue(Entry{ID: id, Name: name, Rating: rating, Since: now, LastOpponents: last}, now); err != nil {
		mm.mu.Lock()
		delete(mm.tickets, id)
		mm.mu.Unlock()
		return nil, err
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
	t := mm.tickets[id]
	delete(mm.tickets, id)
	mm.mu.Unlock()
	if t != nil {
		mm.queues[t.Mode].Remove(id, mm.now())
	}
}

// Status is what the queue screen shows.
func (mm *Matchmaker) Status(t *Ticket) (waited time.Duration, lo, hi float64, queued int, ok bool) {
	return mm.queues[t.Mode].Status(t.ID, mm.now())
}

// deliver turns a formed match into a ranked room and hands it to each
// player's ticket. Players who do not sit down within ShowUpTimeout void
// the match: the room closes and those who came are told.
func (mm *Matchmaker) deliver(m Match) {
	r, err := mm.rooms.CreateRanked(m)
	if err != nil {
		mm.log.Error("ranked room", "mode", m.Mode, "err", err)
		return
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
		if t := mm.tickets[p.ID]; t != nil {
			delete(mm.tickets, p.ID)
			t.room <- r // capacity 1, delivered once
		}
	}
	mm.mu.Unlock()
	go mm.watchShowUp(r, len(m.Players))
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

// RecordLeave notes a ranked leaver for the growing queue cooldown.
func (mm *Matchmaker) RecordLeave(id string) time.Time {
	return mm.cooldowns.RecordLeave(id, mm.now())
}
