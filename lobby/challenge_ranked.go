package lobby

import (
	"fmt"
	"slices"
)

// lastOpponents reports whether a and b played each other in the last
// ranked match of either: the queue avoids such a rematch when anyone
// else fits, and a ranked challenge, where nobody else is asked, refuses
// it — or two friends could trade rated wins back to back.
func (mm *Matchmaker) lastOpponents(a, b string) bool {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	return slices.Contains(mm.last[a], b) || slices.Contains(mm.last[b], a)
}

// startChallenge makes the ranked room of an accepted challenge as deliver
// makes a queued match's: seats bound to the two, the countdown on as both
// sit, rated, a no-show calling it off. The one-ranked-match-per-key rule
// is checked under the lock deliver and Join take, so a match the queue
// forms meanwhile cannot seat either of them twice; a terminal of either
// waiting in a ranked queue is taken out of it, to this match.
func (mm *Matchmaker) startChallenge(c Challenge) (*Room, error) {
	m := Match{Mode: c.Ranked, Formed: mm.now(), Players: []Entry{
		{ID: string(c.From.ID), Name: c.From.Name}, {ID: string(c.To.ID), Name: c.To.Name},
	}}
	mm.mu.Lock()
	for _, p := range m.Players {
		if r := mm.inMatchLocked(p.ID); r != nil {
			mm.mu.Unlock()
			return nil, fmt.Errorf("%s is already in a ranked match (%s)", p.Name, r.ID())
		}
	}
	r, err := mm.rooms.CreateRanked(m)
	if err != nil {
		mm.mu.Unlock()
		return nil, err
	}
	now := mm.now()
	for i, p := range m.Players {
		mm.last[p.ID] = []string{m.Players[1-i].ID}
		mm.matched[p.ID] = r
		if t := mm.tickets[p.ID]; t != nil {
			// A terminal of theirs waiting in a queue goes to this match
			// instead, as a second terminal on the seat.
			mm.dropTicketLocked(p.ID, now)
			t.room <- r // capacity 1, delivered once
		}
	}
	mm.mu.Unlock()
	go func() {
		mm.watchShowUp(r, len(m.Players))
		<-r.Done()
		mm.forget(r)
	}()
	return r, nil
}

// seatChallengeElsewhere holds the challenger of a ranked challenge
// accepted on another node in its room r, which that node made (and
// rates): from here on this node counts them in a ranked match, as it
// does a player the cluster's queue matched into another node's room,
// and a terminal of theirs waiting in a queue goes to this match.
func (mm *Matchmaker) seatChallengeElsewhere(r *Room, id, opponent string) {
	now := mm.now()
	mm.mu.Lock()
	mm.last[id] = []string{opponent}
	mm.matched[id] = r
	if t := mm.tickets[id]; t != nil {
		mm.dropTicketLocked(id, now)
		t.room <- r // capacity 1, delivered once
	}
	mm.mu.Unlock()
	go func() {
		<-r.Done()
		mm.forget(r)
	}()
}
