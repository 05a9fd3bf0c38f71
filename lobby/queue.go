package lobby

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/termarena/termarena/store"
)

// RankedMode names a ranked matchmaking queue (a game.Mode's Ranked); the
// string is what the store keys ratings by.
type RankedMode string

// Matchmaking timing and tolerance. A queued player accepts opponents within
// ±Tolerance(waited) of their own rating.
const (
	// WaveInterval is how often a queue pairs everyone who fits. Batching
	// lets a wave choose the closest pairings among everyone present rather
	// than pairing first-come; two seconds is short enough that nobody
	// notices it.
	WaveInterval = 2 * time.Second
	// BaseTolerance is the window on arrival.
	BaseTolerance = 100.0
	// ToleranceStep widens the window every ToleranceEvery waited, trading
	// closeness for a shorter wait as the wait grows.
	ToleranceStep  = 50.0
	ToleranceEvery = 5 * time.Second
	// AnyoneAfter is when a player accepts anyone in the mode, and gets
	// priority over everyone else in the next wave (see Queue.Tick).
	AnyoneAfter = 60 * time.Second
)

// Tolerance is the rating window, each way, of a player who has waited
// waited: BaseTolerance, plus ToleranceStep per full ToleranceEvery, and +Inf
// from AnyoneAfter on.
func Tolerance(waited time.Duration) float64 {
	if waited >= AnyoneAfter {
		return math.Inf(1)
	}
	return BaseTolerance + ToleranceStep*float64(max(waited, 0)/ToleranceEvery)
}

// searchWidth bounds how many rating neighbours a table is built from: each
// candidate table takes its other members from the next searchWidth queued
// players in rating order (C(8,3) = 56 tables per player for four seats), so
// a wave costs O(n) however large the queue grows. Anyone further away than
// 8 neighbours is never the closest fit while those 8 are free.
const searchWidth = 8

// Queue errors; Enqueue wraps them with the player id.
var (
	ErrUnknownMode   = errors.New("not a ranked mode")
	ErrAlreadyQueued = errors.New("already in the queue")
	ErrBadEntry      = errors.New("invalid queue entry")
)

// Entry is one player waiting in a ranked queue.
type Entry struct {
	ID     string // player id (key fingerprint)
	Name   string
	Rating float64 // the player's rating in the queue's mode
	// Since is when the player joined the queue; the zero time means the
	// moment of Enqueue. A re-queue after a failed room start can pass the
	// original time so the player keeps their place and tolerance.
	Since time.Time
	// LastOpponents are the ids the player faced in their previous ranked
	// match; the queue avoids an immediate rematch when someone else fits.
	LastOpponents []string
}

// Match is one table a wave formed. The players have left the queue.
type Match struct {
	Mode RankedMode
	// Players in seat order: slot i of the room is Players[i]. In a mode
	// of two pairs, Players[0:2] are one team and Players[2:4] the other,
	// as the game's teams are.
	Players []Entry
	// Teams is set for pairs only: indexes into Players, {{0, 1}, {2, 3}},
	// chosen among the three possible splits to make the team averages
	// closest.
	Teams [][]int
	// Formed is the wave's time; Formed − Players[i].Since is i's wait.
	Formed time.Time
}

// Queue is the matchmaking queue of one ranked mode. Its core has no
// goroutine and no clock of its own: callers pass now to every method, so
// tests and simulations drive it with a fake clock. Run adds a real ticker.
// It is safe for concurrent use.
//
// Pairing happens in waves (Tick). A wave runs every WaveInterval, and also
// at once when an arrival completes a full table within everyone's
// tolerance: Enqueue notes that, and the caller's next Tick — which it
// should make right after Enqueue — runs the wave without waiting for the
// interval. Such an early wave is a full wave, so it still picks the
// closest tables among everyone queued, not merely the newcomer's.
type Queue struct {
	mode  RankedMode
	size  int
	pairs bool

	mu       sync.Mutex
	waiting  map[string]Entry
	nextWave time.Time // the periodic schedule; early waves do not move it
	early    bool      // an arrival completed a table: the next Tick runs a wave
}

// NewQueue returns an empty queue for mode that forms tables of size
// players. With pairs, a table is two teams of two (slots 0 and 1 against
// 2 and 3), balanced by rating.
func NewQueue(mode RankedMode, size int, pairs bool) (*Queue, error) {
	if mode == "" || size < 2 || size > maxTable || (pairs && size != 4) {
		return nil, fmt.Errorf("lobby: queue for %q of %d: %w", mode, size, ErrUnknownMode)
	}
	return &Queue{mode: mode, size: size, pairs: pairs, waiting: make(map[string]Entry)}, nil
}

// pairTeams are the teams a queue with pairs seats.
var pairTeams = [][]int{{0, 1}, {2, 3}}

// Mode is the queue's ranked mode.
func (q *Queue) Mode() RankedMode { return q.mode }

// Len is how many players are waiting.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.waiting)
}

// Enqueue adds e to the queue. It never forms a match itself; when e
// completes a full table within tolerance, the next Tick pairs at once
// instead of at the next wave. Leaver cooldowns are the caller's to check
// (Cooldowns.Check) before calling.
func (q *Queue) Enqueue(e Entry, now time.Time) error {
	if e.ID == "" {
		return fmt.Errorf("lobby: enqueue in %s: %w: empty player id", q.mode, ErrBadEntry)
	}
	if math.IsNaN(e.Rating) || math.IsInf(e.Rating, 0) {
		return fmt.Errorf("lobby: enqueue %q in %s: %w: rating %v", e.ID, q.mode, ErrBadEntry, e.Rating)
	}
	if e.Since.IsZero() || e.Since.After(now) {
		e.Since = now
	}
	// The caller keeps its slice; the queue reads its own copy.
	e.LastOpponents = slices.Clone(e.LastOpponents)

	q.mu.Lock()
	defer q.mu.Unlock()
	if _, dup := q.waiting[e.ID]; dup {
		return fmt.Errorf("lobby: enqueue %q in %s: %w", e.ID, q.mode, ErrAlreadyQueued)
	}
	q.waiting[e.ID] = e
	if !q.early && len(q.waiting) >= q.size && q.completesTable(e, now) {
		q.early = true
	}
	return nil
}

// completesTable reports whether e, just queued, makes a table with others
// waiting that fits everyone's tolerance. Only e's nearest neighbours in
// rating can, so one pass over the queue keeping the searchWidth nearest is
// enough: no sorting the whole queue on every arrival.
func (q *Queue) completesTable(e Entry, now time.Time) bool {
	dist := func(o Entry) float64 { return math.Abs(o.Rating - e.Rating) }
	closer := func(a, b Entry) bool { // ids break ties: map order must not matter
		return dist(a) < dist(b) || (dist(a) == dist(b) && a.ID < b.ID)
	}
	near := make([]Entry, 0, searchWidth+1)
	for _, o := range q.waiting {
		if o.ID == e.ID || (len(near) == searchWidth && !closer(o, near[searchWidth-1])) {
			continue
		}
		k := len(near)
		if k == searchWidth {
			k--
		} else {
			near = append(near, Entry{})
		}
		for ; k > 0 && closer(o, near[k-1]); k-- {
			near[k] = near[k-1]
		}
		near[k] = o
	}
	cs := make([]candidate, 0, len(near)+1)
	for _, o := range append(near, e) {
		w := max(now.Sub(o.Since), 0)
		cs = append(cs, candidate{Entry: o, waited: w, tol: Tolerance(w)})
	}
	sortCandidates(cs)
	x := slices.IndexFunc(cs, func(c candidate) bool { return c.ID == e.ID })
	t, ok := q.bestTableFor(cs, x, make([]bool, len(cs)))
	return ok && t.fits
}

// Remove takes id out of the queue (they cancelled, or their session
// ended) and reports how long they had waited, for the caller's metrics.
func (q *Queue) Remove(id string, now time.Time) (waited time.Duration, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e, ok := q.waiting[id]
	if !ok {
		return 0, false
	}
	delete(q.waiting, id)
	return max(now.Sub(e.Since), 0), true
}

// Status is what the queue screen shows id: how long they have waited, the
// rating range they currently accept (lo = −Inf and hi = +Inf once they
// accept anyone), and how many players are waiting in the mode.
func (q *Queue) Status(id string, now time.Time) (waited time.Duration, lo, hi float64, queued int, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e, ok := q.waiting[id]
	if !ok {
		return 0, 0, 0, len(q.waiting), false
	}
	waited = max(now.Sub(e.Since), 0)
	tol := Tolerance(waited)
	return waited, e.Rating - tol, e.Rating + tol, len(q.waiting), true
}

// Tick runs a pairing wave if one is due — WaveInterval has passed since the
// last scheduled wave, or an Enqueue since the last wave completed a table —
// and returns the matches it formed (nil if none, or if no wave was due).
// Call it as often as convenient: right after Enqueue, and on a ticker.
//
// A wave:
//
//  1. Starvation first. Players who have waited AnyoneAfter accept anyone,
//     and are served oldest first, each with the closest-rated table the
//     rest of the queue can make around them. Here the others' tolerance is
//     waived: an outlier (a 2400 at 3 a.m.) would otherwise wait until
//     someone else's window had widened to reach them, which may be never,
//     while everyone near the middle keeps pairing among themselves. The
//     table is still the closest available, and one whose other members'
//     tolerances do cover it is preferred.
//  2. Everyone else, closest first. Every candidate table whose rating
//     spread (max − min; the gap, for 1v1) is within every member's
//     tolerance is ranked by (rematches, spread, earliest arrival), and the
//     wave takes tables greedily in that order, skipping any that reuse a
//     player already seated. Greedy by smallest spread is not the optimal
//     matching, but it pairs the closest pairs first (1500/1510 and
//     1800/1810, never 1510/1800) and is O(n log n).
//
// A rematch is a table where two members were each other's last opponents
// (either side's LastOpponents); such tables rank after every table without
// one, so a rematch happens only when nobody else fits.
func (q *Queue) Tick(now time.Time) []Match {
	q.mu.Lock()
	defer q.mu.Unlock()
	due := !now.Before(q.nextWave)
	if !due && !q.early {
		return nil
	}
	q.early = false
	if due {
		q.nextWave = q.nextWave.Add(WaveInterval)
		if !q.nextWave.After(now) {
			q.nextWave = now.Add(WaveInterval)
		}
	}
	return q.wave(now)
}

// Run drives q on the real clock until ctx ends, handing every match to
// deliver (on Run's goroutine; deliver must not call back into Run). It
// polls Tick four times per WaveInterval, so an early wave the caller did
// not Tick for itself waits at most half a second.
func (q *Queue) Run(ctx context.Context, deliver func(Match)) {
	t := time.NewTicker(WaveInterval / 4)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			for _, m := range q.Tick(now) {
				deliver(m)
			}
		}
	}
}

// candidate is a waiting entry with its wait and tolerance at the wave's
// time.
type candidate struct {
	Entry
	waited time.Duration
	tol    float64
}

// maxTable is the largest table a queue forms.
const maxTable = 4

// table is a candidate table. It is a small value with no pointers because
// a wave over a big queue ranks hundreds of thousands of them.
type table struct {
	seats   [maxTable]int32 // indexes into the wave's candidates, in rating order
	n       int32           // seats used
	repeats int32           // pairs who were each other's last opponents
	fits    bool            // every member's tolerance covers the spread
	spread  float64         // max − min rating
	longest time.Duration   // the longest wait at the table
}

func (t *table) members() []int32 { return t.seats[:t.n] }

// compare ranks tables for a wave: fewest rematches, then tightest spread,
// then longest wait; the seats make ties deterministic.
func (t *table) compare(u *table) int {
	return cmp.Or(
		cmp.Compare(t.repeats, u.repeats),
		cmp.Compare(t.spread, u.spread),
		cmp.Compare(u.longest, t.longest),
		slices.Compare(t.members(), u.members()),
	)
}

// candidates lists everyone waiting in a fixed order (rating, then arrival,
// then id), so a wave's result does not depend on map iteration.
func (q *Queue) candidates(now time.Time) []candidate {
	cs := make([]candidate, 0, len(q.waiting))
	for _, e := range q.waiting {
		w := max(now.Sub(e.Since), 0)
		cs = append(cs, candidate{Entry: e, waited: w, tol: Tolerance(w)})
	}
	sortCandidates(cs)
	return cs
}

func sortCandidates(cs []candidate) {
	slices.SortFunc(cs, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.Rating, b.Rating), a.Since.Compare(b.Since), cmp.Compare(a.ID, b.ID))
	})
}

func (q *Queue) wave(now time.Time) []Match {
	if len(q.waiting) < q.size {
		return nil
	}
	cs := q.candidates(now)
	taken := make([]bool, len(cs))
	var chosen []table
	take := func(t table) {
		for _, m := range t.members() {
			taken[m] = true
		}
		chosen = append(chosen, t)
	}

	// 1. Starvation: players who accept anyone, longest wait first.
	var starving []int
	for i, c := range cs {
		if c.waited >= AnyoneAfter {
			starving = append(starving, i)
		}
	}
	slices.SortStableFunc(starving, func(a, b int) int { return cmp.Compare(cs[b].waited, cs[a].waited) })
	for _, x := range starving {
		if taken[x] {
			continue
		}
		t, ok := q.bestTableFor(cs, x, taken)
		if !ok {
			break // fewer than a table's worth left
		}
		take(t)
	}

	// 2. Closest first among tables within everyone's tolerance.
	var options []table
	free := make([]int, 0, searchWidth)
	var seats [maxTable]int
	for i := range cs {
		if taken[i] {
			continue
		}
		free = free[:0]
		for j := i + 1; j < len(cs) && len(free) < searchWidth; j++ {
			if taken[j] {
				continue
			}
			if cs[j].Rating-cs[i].Rating > cs[i].tol {
				break // sorted: everyone further is further still
			}
			free = append(free, j)
		}
		seats[0] = i
		combinations(len(free), q.size-1, func(pick []int) {
			for k, p := range pick {
				seats[k+1] = free[p]
			}
			if t := q.score(cs, seats[:q.size]); t.fits {
				options = append(options, t)
			}
		})
	}
	slices.SortFunc(options, func(a, b table) int { return a.compare(&b) })
	for _, t := range options {
		if !slices.ContainsFunc(t.members(), func(m int32) bool { return taken[m] }) {
			take(t)
		}
	}

	matches := make([]Match, 0, len(chosen))
	for _, t := range chosen {
		m := Match{Mode: q.mode, Formed: now, Players: make([]Entry, t.n)}
		for k, idx := range t.members() {
			m.Players[k] = cs[idx].Entry
			delete(q.waiting, cs[idx].ID)
		}
		if q.pairs {
			m.Players = splitTeams(m.Players)
			m.Teams = pairTeams
		}
		matches = append(matches, m)
	}
	return matches
}

// bestTableFor is the best table around cs[x] from the free players nearest
// to it in rating, whether or not it fits everyone's tolerance (callers
// check fits when they need it): tables that fit rank first, then by
// compare. ok is false when too few players are free.
func (q *Queue) bestTableFor(cs []candidate, x int, taken []bool) (best table, ok bool) {
	var near []int
	for i := range cs {
		if i != x && !taken[i] {
			near = append(near, i)
		}
	}
	if len(near) < q.size-1 {
		return table{}, false
	}
	slices.SortStableFunc(near, func(a, b int) int {
		return cmp.Compare(math.Abs(cs[a].Rating-cs[x].Rating), math.Abs(cs[b].Rating-cs[x].Rating))
	})
	near = near[:min(len(near), searchWidth)]
	var seats [maxTable]int
	combinations(len(near), q.size-1, func(pick []int) {
		seats[0] = x
		for k, p := range pick {
			seats[k+1] = near[p]
		}
		slices.Sort(seats[:q.size])
		t := q.score(cs, seats[:q.size])
		if !ok || (t.fits && !best.fits) || (t.fits == best.fits && t.compare(&best) < 0) {
			best, ok = t, true
		}
	})
	return best, ok
}

// score measures a table whose members are in rating order.
func (q *Queue) score(cs []candidate, members []int) table {
	t := table{n: int32(len(members)), fits: true}
	t.spread = cs[members[len(members)-1]].Rating - cs[members[0]].Rating
	for a, i := range members {
		t.seats[a] = int32(i)
		c := &cs[i]
		if c.tol < t.spread {
			t.fits = false
		}
		t.longest = max(t.longest, c.waited)
		for _, j := range members[a+1:] {
			if slices.Contains(c.LastOpponents, cs[j].ID) || slices.Contains(cs[j].LastOpponents, c.ID) {
				t.repeats++
			}
		}
	}
	return t
}

// splitTeams orders four players as two teams — Players[0:2] against
// Players[2:4] — choosing, of the three ways to split four players in two
// pairs, the one whose team averages are closest, so that neither side
// starts as the favourite. Ties keep the first split in the order below.
func splitTeams(p []Entry) []Entry {
	splits := [3][4]int{{0, 1, 2, 3}, {0, 2, 1, 3}, {0, 3, 1, 2}}
	best, bestDiff := 0, math.Inf(1)
	for s, sp := range splits {
		// Comparing sums is comparing averages of equal-sized teams.
		d := math.Abs(p[sp[0]].Rating + p[sp[1]].Rating - p[sp[2]].Rating - p[sp[3]].Rating)
		if d < bestDiff {
			best, bestDiff = s, d
		}
	}
	out := make([]Entry, 4)
	for k, i := range splits[best] {
		out[k] = p[i]
	}
	return out
}

// combinations calls fn with every k-subset of 0..n-1, in lexicographic
// order. fn must not keep pick.
func combinations(n, k int, fn func(pick []int)) {
	if k > n || k <= 0 {
		return
	}
	pick := make([]int, k)
	for i := range pick {
		pick[i] = i
	}
	for {
		fn(pick)
		i := k - 1
		for i >= 0 && pick[i] == n-k+i {
			i--
		}
		if i < 0 {
			return
		}
		pick[i]++
		for j := i + 1; j < k; j++ {
			pick[j] = pick[j-1] + 1
		}
	}
}

// LeaveCooldown is the queue cooldown for a ranked leave (quitting, or a
// disconnect that outlasts the room's grace) that brings a player's
// unforgiven leaves to strikes.
func LeaveCooldown(strikes int) time.Duration {
	switch {
	case strikes <= 1:
		return 0 // forgiven: one dropped connection is not a habit
	case strikes == 2:
		return 5 * time.Minute
	case strikes == 3:
		return 15 * time.Minute
	}
	return time.Hour
}

// StrikeDecay is how long a player must go without leaving to lose one
// strike: a reformed leaver is back to a clean slate after a few days, and
// one who leaves once a week never builds up a cooldown.
const StrikeDecay = 24 * time.Hour

// Cooldowns tracks ranked leavers and their queue cooldowns. It is pure and
// clock-injected like Queue, safe for concurrent use, and its zero value is
// ready to use. It keeps no file itself: the results writer stores each
// leave (Leaves) and the server restores them at start (Restore), so a
// restart forgives nobody.
type Cooldowns struct {
	mu sync.Mutex
	m  map[string]leaveRecord
	// observe, in a cluster, tells the other nodes of each leave
	// (Matchmaker.OnLeave); nil on a single node.
	observe func(id string, l store.Leaves)
}

type leaveRecord struct {
	strikes int       // as of last
	last    time.Time // the most recent leave
	until   time.Time // the cooldown it earned
}

// strikesAt is the record's strikes after decay: one forgiven per full
// StrikeDecay since the last leave.
func (r leaveRecord) strikesAt(now time.Time) int {
	clean := max(now.Sub(r.last), 0)
	return max(r.strikes-int(clean/StrikeDecay), 0)
}

// RecordLeave counts a ranked leave by id at now and returns the end of
// the cooldown it earned (now itself when the leave is forgiven).
func (c *Cooldowns) RecordLeave(id string, now time.Time) (until time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]leaveRecord)
	}
	// Sweeping here keeps the map to recent leavers without a goroutine;
	// leaves are rare enough that the walk costs nothing.
	for other, r := range c.m {
		if other != id && r.strikesAt(now) == 0 && !r.until.After(now) {
			delete(c.m, other)
		}
	}
	r := c.m[id] // the zero record has no strikes
	strikes := r.strikesAt(now) + 1
	// Strikes decay only after a clean day, far longer than any cooldown, so
	// a new cooldown never ends before the one it replaces.
	until = now.Add(LeaveCooldown(strikes))
	c.m[id] = leaveRecord{strikes: strikes, last: now, until: until}
	if c.observe != nil {
		c.observe(id, store.Leaves{Strikes: strikes, Last: now, Until: until})
	}
	return until
}

// Merge takes a leave record another node made (a cluster's nodes share
// them as they happen; the store has them at start): the newer of it and
// the one kept here wins.
func (c *Cooldowns) Merge(id string, l store.Leaves) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]leaveRecord)
	}
	if r, ok := c.m[id]; ok && (r.last.After(l.Last) || (r.last.Equal(l.Last) && r.strikes >= l.Strikes)) {
		return
	}
	c.m[id] = leaveRecord{strikes: l.Strikes, last: l.Last, until: l.Until}
}

// Leaves is id's record as it stands after their last leave, for the
// store.
func (c *Cooldowns) Leaves(id string) store.Leaves {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.m[id]
	return store.Leaves{Strikes: r.strikes, Last: r.last, Until: r.until}
}

// Restore loads stored leave records (at start, before anyone queues).
func (c *Cooldowns) Restore(all map[string]store.Leaves) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]leaveRecord, len(all))
	}
	for id, l := range all {
		c.m[id] = leaveRecord{strikes: l.Strikes, last: l.Last, until: l.Until}
	}
}

// Spent reports whether a stored leave record no longer matters at now:
// every strike forgiven and its cooldown over.
func Spent(l store.Leaves, now time.Time) bool {
	r := leaveRecord{strikes: l.Strikes, last: l.Last, until: l.Until}
	return r.strikesAt(now) == 0 && !r.until.After(now)
}

// Check reports whether id may not queue at now, and until when.
func (c *Cooldowns) Check(id string, now time.Time) (until time.Time, blocked bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[id]
	if !ok {
		return time.Time{}, false
	}
	if r.until.After(now) {
		return r.until, true
	}
	if r.strikesAt(now) == 0 {
		// Fully forgiven: forget them so the map holds only live leavers.
		delete(c.m, id)
	}
	return time.Time{}, false
}

// Strikes is how many unforgiven leaves id holds at now, for the profile
// screen ("2 recent leaves: next one costs 15 min").
func (c *Cooldowns) Strikes(id string, now time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[id].strikesAt(now)
}
