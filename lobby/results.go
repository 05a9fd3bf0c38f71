package lobby

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/rating"
	"github.com/termarena/termarena/spectator"
	"github.com/termarena/termarena/store"
)

// Results records every match a room plays: unrated history for casual
// rooms, and for ranked rooms the match and every rating change in one
// store transaction. Room hooks only hand work over; one goroutine (Run)
// does the writing, so a slow disk never stalls a room.
type Results struct {
	st        ResultStore
	log       *slog.Logger
	cooldowns *Cooldowns // ranked leavers' strikes, which the queue checks

	mu      sync.Mutex
	jobs    []resultJob
	signal  chan struct{}
	playing map[*Room]startedMatch
	written chan struct{} // closed and replaced after each write (tests)
	panics  panicCount    // jobs whose writing panicked (skipped)
}

type startedMatch struct {
	seed  uint64
	start time.Time
	seats []game.Seat
	// struck is, for a ranked match, the end of the queue cooldown each
	// leaver earned at the moment they left.
	struck map[game.PlayerID]time.Time
}

type resultJob struct {
	room    *Room
	replay  *spectator.Replay
	started startedMatch
	res     game.Result
	seats   []game.Seat
	ticks   uint64
	aborted bool
	// leaver, when set, makes this job the storing of that player's leave
	// record (leaves), not a match.
	leaver string
	leaves store.Leaves
}

// ResultStore is what the results writer writes: a match end, with its
// ratings, replay and strikes, in one transaction, and a leave counted
// while its match goes on.
type ResultStore interface {
	RecordMatch(ctx context.Context, end store.MatchEnd) (store.MatchRecord, error)
	PutLeaves(ctx context.Context, fp string, l store.Leaves) error
}

// NewResults returns a results writer that counts ranked leaves in
// cooldowns (nil: a set of its own) and stores them.
func NewResults(st ResultStore, cooldowns *Cooldowns, log *slog.Logger) *Results {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cooldowns == nil {
		cooldowns = &Cooldowns{}
	}
	return &Results{st: st, log: log, cooldowns: cooldowns, signal: make(chan struct{}, 1),
		playing: map[*Room]startedMatch{}, written: make(chan struct{})}
}

// Hooks implements MatchObserver. The hooks run on the room goroutine: they
// copy what they need and return. A match's end comes to MatchEnded.
func (rs *Results) Hooks(r *Room) game.Hooks {
	return game.Hooks{
		MatchStarted: func(_ string, seed uint64, seats []game.Seat) {
			rs.mu.Lock()
			rs.playing[r] = startedMatch{seed: seed, start: time.Now(), seats: append([]game.Seat(nil), seats...),
				struck: map[game.PlayerID]time.Time{}}
			rs.mu.Unlock()
		},
		Forfeited: func(_ string, _ int, p game.Player) {
			// The strike counts from the moment of leaving, so the queue
			// refuses the leaver at once, not when the match they left
			// ends; only storing it waits for the writer.
			if r.Ranked == "" || p.ID == "" || p.Guest {
				return
			}
			id := string(p.ID)
			until := rs.cooldowns.RecordLeave(id, time.Now())
			rs.mu.Lock()
			if st, ok := rs.playing[r]; ok {
				st.struck[p.ID] = until
			}
			rs.jobs = append(rs.jobs, resultJob{room: r, leaver: id, leaves: rs.cooldowns.Leaves(id)})
			rs.mu.Unlock()
			rs.wake()
		},
	}
}

// MatchEnded implements MatchObserver: it queues the match r finished, with
// its replay, for the writer. It runs on the room goroutine.
func (rs *Results) MatchEnded(r *Room, res game.Result, seats []game.Seat, ticks uint64, replay *spectator.Replay) {
	rs.mu.Lock()
	st := rs.playing[r]
	delete(rs.playing, r)
	if res.WarmUp { // nothing was at stake: not a match
		rs.mu.Unlock()
		return
	}
	res.Placements = append([]int(nil), res.Placements...)
	res.Places = append([]int(nil), res.Places...)
	res.Scores = append([]int(nil), res.Scores...)
	rs.jobs = append(rs.jobs, resultJob{room: r, replay: replay, started: st, res: res, seats: append([]game.Seat(nil), seats...), ticks: ticks})
	rs.mu.Unlock()
	rs.wake()
}

func (rs *Results) wake() {
	select {
	case rs.signal <- struct{}{}:
	default:
	}
}

func (rs *Results) storeLeaves(id string, l store.Leaves) {
	if err := rs.st.PutLeaves(context.Background(), id, l); err != nil {
		// The strike still holds until the server restarts.
		rs.log.Error("store leave strike", "player", id, "err", err)
	}
}

// MatchFailed implements MatchObserver: a match that was under way in a
// room that panicked is recorded as aborted, as a server stopping mid-match
// records it (no rating change, no leave strikes). Who played it, who had
// left and how far it got come from the room. Its replay is kept as an
// aborted match's is, cut at the last tick the recorder verified, which
// is before the panic: it shows what led up to the bug.
func (rs *Results) MatchFailed(r *Room, p *game.RoomPanic) {
	rs.mu.Lock()
	st, ok := rs.playing[r]
	delete(rs.playing, r)
	if ok {
		seats := st.seats
		if p.Seats != nil {
			seats = append([]game.Seat(nil), p.Seats...)
		}
		rs.jobs = append(rs.jobs, resultJob{room: r, started: st, seats: seats, ticks: p.Tick, aborted: true,
			replay: rs.cutFailed(r, seats)})
	}
	rs.mu.Unlock()
	if ok {
		rs.wake()
	}
}

// cutFailed is cutReplay for a room that panicked, whose recorder may be
// what panicked: a second panic costs the replay, not the record.
func (rs *Results) cutFailed(r *Room, seats []game.Seat) (rp *spectator.Replay) {
	defer func() {
		if v := recover(); v != nil {
			rs.log.Error("cutting a failed room's replay panicked; the match is recorded without it", "room", r.ID(),
				"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			rp = nil
		}
	}()
	return cutReplay(r, seats)
}

// markLeavers is who played a match still under way at a stop, with those
// who had left it marked (not Connected), as its record shows them: the
// strike they earned stands, the match is aborted for everyone.
func markLeavers(st startedMatch) []game.Seat {
	seats := append([]game.Seat(nil), st.seats...)
	for i, seat := range seats {
		if _, left := st.struck[seat.Player.ID]; left {
			seats[i].Connected = false
		}
	}
	return seats
}

// Panics is how many jobs the writer skipped because writing them panicked.
func (rs *Results) Panics() uint64 { return rs.panics.Load() }

// Run writes results until ctx ends. Before returning it writes what is
// still queued and records the matches still being played as aborted: a
// server stopping mid-match changes nobody's rating.
func (rs *Results) Run(ctx context.Context) {
	for {
		select {
		case <-rs.signal:
			rs.drain()
		case <-ctx.Done():
			rs.drain()
			rs.awaitRooms(time.Second)
			rs.mu.Lock()
			for r, st := range rs.playing {
				if warmingUp(r) {
					continue // not a match, even cut short
				}
				rs.jobs = append(rs.jobs, resultJob{room: r, started: st, seats: markLeavers(st), aborted: true, replay: cutReplay(r, st.seats)})
			}
			rs.playing = map[*Room]startedMatch{}
			rs.mu.Unlock()
			rs.drain()
			return
		}
	}
}

// warmingUp reports whether the match r is playing has been played for
// a while and still contested by nobody (game.WarmingUp: a 2v2 of one
// team).
func warmingUp(r *Room) bool {
	fr, _ := r.Latest()
	if fr == nil || fr.Tick == 0 {
		return false
	}
	w, ok := fr.State.(game.WarmingUp)
	return ok && w.WarmingUp()
}

// awaitRooms waits, at most d, for the rooms still playing a match to
// stop with the server (without holding the lock their hooks take): a
// match that ends meanwhile is written as played, and a room that has
// stopped lets go of its recorder, so its match can be cut.
func (rs *Results) awaitRooms(d time.Duration) {
	rs.mu.Lock()
	rooms := make([]*Room, 0, len(rs.playing))
	for r := range rs.playing {
		rooms = append(rooms, r)
	}
	rs.mu.Unlock()
	expired := time.After(d)
	for _, r := range rooms {
		select {
		case <-r.Done():
		case <-expired:
			return
		}
	}
}

// cutReplay is the replay of the match r was playing when the server
// stopped, kept and marked aborted; nil if the room has not stopped (its
// goroutine still owns the recorder) or recorded nothing to keep.
func cutReplay(r *Room, seats []game.Seat) *spectator.Replay {
	if r.recorder == nil || r.Room == nil {
		return nil
	}
	select {
	case <-r.Done():
	default:
		return nil
	}
	players := make([]game.Player, len(seats))
	for i, s := range seats {
		players[i] = s.Player
	}
	if fr, _ := r.Latest(); fr != nil && len(fr.Roster) == len(players) {
		copy(players, fr.Roster) // who played each seat, late joiners too
	}
	return r.recorder.Cut(players)
}

// Written returns a channel closed after the next write completes.
func (rs *Results) Written() <-chan struct{} {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.written
}

func (rs *Results) drain() {
	for {
		rs.mu.Lock()
		if len(rs.jobs) == 0 {
			rs.mu.Unlock()
			return
		}
		j := rs.jobs[0]
		rs.jobs = rs.jobs[1:]
		rs.mu.Unlock()
		if j.leaver != "" {
			_ = rs.writeJob(j) // storing a leave logs its own errors
			continue
		}
		if err := rs.writeJob(j); err != nil {
			rs.log.Error("record match", "room", j.room.ID(), "err", err)
		}
		rs.mu.Lock()
		close(rs.written)
		rs.written = make(chan struct{})
		rs.mu.Unlock()
	}
}

// writeJob writes one job; a job whose writing panics is logged and
// skipped, and the writer goes on with the next.
func (rs *Results) writeJob(j resultJob) (err error) {
	defer func() {
		if v := recover(); v != nil {
			rs.panics.recovered(rs.log, WorkerResults, "recording a match panicked; the match was skipped", v, debug.Stack(),
				"room", j.room.ID(), "mode", ModeName(j.room), "aborted", j.aborted)
			err = nil
		}
	}()
	if j.leaver != "" {
		rs.storeLeaves(j.leaver, j.leaves)
		return nil
	}
	return rs.write(j)
}

// scoresNow reads the scores of the match a room is playing as they stand
// (lives in free-for-all), from its last frame: a match cut short by a
// shutdown is recorded with the score it had, not 0–0.
func scoresNow(r *Room) []int {
	fr, _ := r.Latest()
	if fr == nil {
		return nil
	}
	snap, ok := fr.State.(game.Scorer)
	if !ok {
		return nil
	}
	out := snap.Standing()
	return out[:min(len(fr.Seats), len(out))]
}

func tickRate(r *Room) int {
	if fr, _ := r.Latest(); fr != nil && fr.TickRate > 0 {
		return fr.TickRate
	}
	return game.DefaultTickRate
}

// ModeName is how a room's matches are filed: the ranked mode,
// "practice-1v1" and friends for a practice room's (never rated), or
// "casual-1v1" and friends.
func ModeName(r *Room) string {
	if r.Practice > 0 {
		return PracticePrefix + r.Mode.Name
	}
	return filedMode(r.Ranked, r.Mode.Name)
}

// PracticePrefix starts the mode a practice room's matches are filed
// under.
const PracticePrefix = "practice-"

func filedMode(queue RankedMode, mode string) string {
	if queue != "" {
		return string(queue)
	}
	return "casual-" + mode
}

func (rs *Results) write(j resultJob) error {
	r := j.room
	if j.aborted {
		// Read here, where a game's Standing that panics costs this job
		// only (writeJob), not the writer.
		j.res.Scores = scoresNow(r)
	}
	mode := ModeName(r)
	if r.Ranked == "" && r.Practice == 0 && hasBots(j.seats) {
		// A casual room whose free seats bots filled (FillWithBots):
		// this match of it is practice.
		mode = PracticePrefix + r.Mode.Name
	}
	rec := store.MatchRecord{
		Mode: mode, Ranked: r.Ranked != "", Aborted: j.aborted, Forfeit: j.res.Forfeit,
		Room: r.ID(), Start: j.started.start,
		Duration: time.Duration(j.ticks) * time.Second / time.Duration(tickRate(r)),
	}
	if j.aborted {
		rec.Duration = time.Since(j.started.start).Round(time.Second)
	}
	if rec.Start.IsZero() {
		rec.Start = time.Now().Add(-rec.Duration)
	}
	var slots []int
	for slot, seat := range j.seats {
		if seat.Player.ID == "" {
			continue
		}
		mp := store.MatchPlayer{Name: seat.Player.Name, Slot: slot, Left: !seat.Connected}
		if !seat.Player.Guest {
			mp.Fingerprint = string(seat.Player.ID)
		}
		if t := r.Mode.Team(slot); t >= 0 {
			mp.Team = t
		}
		if slot < len(j.res.Places) {
			mp.Place = j.res.Places[slot]
		}
		if slot < len(j.res.Scores) {
			mp.Score = j.res.Scores[slot]
		}
		rec.Players = append(rec.Players, mp)
		slots = append(slots, slot)
	}
	if len(rec.Players) == 0 {
		return nil
	}
	if strings.HasPrefix(rec.Mode, PracticePrefix) {
		// Walking out of practice costs nothing and says nothing: the
		// match ends there, as it stood (the game's places; Forfeit
		// says it was cut short), with nobody marked "(left)" — neither
		// the person nor the bots, who leave after them.
		for i := range rec.Players {
			rec.Players[i].Left = false
		}
	}
	if !rec.Aborted {
		placeLeavers(rec.Players)
	}
	// The key makes the write idempotent: a match another node resumed
	// from this room's log and finished too is rated once (cluster).
	end := store.MatchEnd{Match: rec, Key: fmt.Sprintf("%s/%d", r.ID(), j.started.seed)}
	if j.replay != nil {
		// Saved with the match, in one transaction: a match is never
		// recorded without the replay it came with unless we say so.
		if data, err := spectator.Encode(j.replay); err != nil {
			rs.log.Error("encode replay", "room", r.ID(), "err", err)
		} else {
			end.Replay = data
		}
	}
	rated := rec.Ranked && !rec.Aborted
	// cooldown is when each leaver of a rated match may queue again: struck
	// when they left, or now for one still in grace when it ended. Their
	// strikes are stored with the match.
	cooldown := map[string]time.Time{}
	if rated {
		now := time.Now()
		end.Leaves = map[string]store.Leaves{}
		for _, p := range rec.Players {
			if !p.Left {
				continue
			}
			until, ok := j.started.struck[game.PlayerID(p.Fingerprint)]
			if !ok {
				until = rs.cooldowns.RecordLeave(p.Fingerprint, now)
			}
			cooldown[p.Fingerprint] = until
			end.Leaves[p.Fingerprint] = rs.cooldowns.Leaves(p.Fingerprint)
		}
		matchEnd := rec.Start.Add(rec.Duration)
		players := rec.Players
		end.Rate = func(cur []store.Rating) ([]store.Rating, error) { return rate(r.Mode, players, cur, matchEnd) }
	}
	ctx := context.Background()
	saved, err := rs.st.RecordMatch(ctx, end)
	unsaved := ""
	if errors.Is(err, store.ErrCannotSave) && end.Replay != nil {
		// The replay is most of the bytes: the result alone may still fit.
		rs.log.Error("replay not saved: the database cannot be written; saving the result alone", "room", r.ID(), "err", err)
		end.Replay = nil
		saved, err = rs.st.RecordMatch(ctx, end)
		unsaved = "replay not saved: the server cannot save right now"
	}
	if err != nil {
		// The players are told rather than left waiting for ratings.
		unsaved = "result not saved: a server error; no rating changed"
		if errors.Is(err, store.ErrCannotSave) {
			unsaved = "result not saved: the server cannot save right now"
		}
		r.SetOutcome(&Outcome{Seed: j.started.seed, Unsaved: unsaved})
		return fmt.Errorf("lobby: %s match in %s not saved: %w", rec.Mode, r.ID(), err)
	}
	out := &Outcome{Seed: j.started.seed, MatchID: saved.ID, Unsaved: unsaved}
	if rated {
		// Everything shown comes from what RecordMatch returned: the
		// ratings and game counts it wrote, no second read.
		out.Changes = make([]RatingChange, len(j.seats))
		for i, p := range saved.Players {
			out.Changes[slots[i]] = RatingChange{Before: p.RatingBefore, After: p.RatingAfter, Games: p.GamesAfter, Left: p.Left,
				DeviationBefore: p.DeviationBefore, DeviationAfter: p.DeviationAfter, Cooldown: cooldown[p.Fingerprint]}
		}
	}
	r.SetOutcome(out)
	return nil
}

// placeLeavers records every player who left the match as having lost it:
// one who walked out of a team that went on to win (2v2 places teams), or
// who shares first place, drops to last. The game's own order stands
// otherwise (a free-for-all leaver is already below everyone still in).
func placeLeavers(ps []store.MatchPlayer) {
	best, worst := 0, 0
	for _, p := range ps {
		if p.Place < 1 {
			continue
		}
		if best == 0 || p.Place < best {
			best = p.Place
		}
		worst = max(worst, p.Place)
	}
	for i := range ps {
		if !ps[i].Left || (ps[i].Place > best && best > 0) {
			continue
		}
		if worst > best {
			ps[i].Place = worst
		} else {
			ps[i].Place = best + 1 // everyone else tied: below them all
		}
	}
}

// rate applies Glicko-2 (Lichess's settings) to a finished ranked match
// that ended at end: the pairwise results of one rating period for 1v1 and
// free-for-all, each player against the other team's composite for 2v2
// (rating.Config.UpdatePlacements, UpdateTeams). Each player's deviation
// first grows for the days since their last rated game. Leaving a ranked
// match loses it: a leaver never gains rating, whatever the rest of their
// team did, and the teammates who stayed keep their result.
//
// It reads nothing but its arguments, so a store may call it inside its
// transaction, more than once if it retries.
func rate(mode game.Mode, players []store.MatchPlayer, cur []store.Rating, end time.Time) ([]store.Rating, error) {
	rp := make([]rating.Player, len(cur))
	periods := make([]float64, len(cur))
	for i, c := range cur {
		rp[i] = rating.Player{Rating: c.Rating, Deviation: c.Deviation, Volatility: c.Volatility}
		if !c.Updated.IsZero() {
			periods[i] = rating.Periods(end.Sub(c.Updated).Hours() / 24)
		}
	}
	places := make([]int, len(players))
	for i, p := range players {
		places[i] = p.Place
	}
	var next []rating.Player
	if len(mode.Teams) > 0 {
		var err error
		if next, err = rateTeams(players, rp, periods); err != nil {
			return nil, err
		}
	} else {
		var err error
		if next, err = rating.Lichess.UpdatePlacements(rp, places, periods); err != nil {
			return nil, err
		}
	}
	best, worst := places[0], places[0]
	for _, p := range places {
		best, worst = min(best, p), max(worst, p)
	}
	out := make([]store.Rating, len(cur))
	for i, c := range cur {
		if players[i].Left {
			next[i].Rating = min(next[i].Rating, rp[i].Rating)
		}
		c.Rating, c.Deviation, c.Volatility = next[i].Rating, next[i].Deviation, next[i].Volatility
		c.Games++
		// Wins and losses are what players call them: first place wins,
		// last place (or walking out) loses, and in a free-for-all a
		// place between them is neither (second of four is not a loss);
		// it counts in games, and the rating change says how it went.
		switch {
		case players[i].Left:
			c.Losses++
		case best == worst:
			c.Draws++
		case places[i] == best:
			c.Wins++
		case places[i] == worst:
			c.Losses++
		}
		out[i] = c
	}
	return out, nil
}

// rateTeams rates a 2v2 match, each player against the other team's
// composite. A team's result is that of its players who stayed (both gone:
// its own place); a leaver is rated as if their team had lost.
func rateTeams(players []store.MatchPlayer, rp []rating.Player, periods []float64) ([]rating.Player, error) {
	var teams [2][]rating.Player
	var per [2][]float64
	var idx [2][]int
	var place, leftPlace [2]int
	for i, p := range players {
		t := min(max(p.Team, 0), 1)
		teams[t], per[t], idx[t] = append(teams[t], rp[i]), append(per[t], periods[i]), append(idx[t], i)
		if p.Left {
			leftPlace[t] = p.Place
		} else {
			place[t] = p.Place
		}
	}
	for t := range place {
		if place[t] == 0 {
			place[t] = leftPlace[t]
		}
	}
	score := 0.5
	switch {
	case place[0] < place[1]:
		score = 1
	case place[0] > place[1]:
		score = 0
	}
	g := rating.Lichess
	na, nb, err := g.UpdateTeams(teams[0], teams[1], score, per[0], per[1])
	if err != nil {
		return nil, err
	}
	// What each side gets for a loss, for its leavers.
	lostA, _, err := g.UpdateTeams(teams[0], teams[1], 0, per[0], per[1])
	if err != nil {
		return nil, err
	}
	_, lostB, err := g.UpdateTeams(teams[0], teams[1], 1, per[0], per[1])
	if err != nil {
		return nil, err
	}
	next := make([]rating.Player, len(players))
	for t, got := range [2][]rating.Player{na, nb} {
		lost := [2][]rating.Player{lostA, lostB}[t]
		for k, i := range idx[t] {
			next[i] = got[k]
			if players[i].Left {
				next[i] = lost[k]
			}
		}
	}
	return next, nil
}
