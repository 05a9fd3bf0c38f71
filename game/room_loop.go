package game

import (
	"context"
	"slices"
	"time"
)

// roomLoop is the state only the Run goroutine touches; no locks, by design.
type roomLoop struct {
	r     *Room
	timer Timer // the room's single wake-up: next tick, or the idle deadline

	phase  Phase
	game   Game
	seed   uint64
	seats  []seat
	state  any     // last Game.Snapshot(), republished until the game changes
	result *Result // set in Finished
	roster []Player
	// forfeited is, per roster slot, whether that player left the match
	// before it ended (Frame.Forfeited); replaced, never edited.
	forfeited []bool
	started   bool // the match left its first countdown (MatchStarted fired)
	warmUp    bool // the match running was started alone (RoomConfig.WarmUp)
	paused    bool // some seat is in grace
	pubSeq    uint64

	// Fixed timestep: tick n is due at anchor + n/TickRate, computed exactly
	// (no accumulated rounding), and re-anchored only after a stall.
	anchor   time.Duration
	next     uint64
	gameTick uint64

	countdownEnd time.Duration

	idleAt    time.Duration
	idleArmed bool // nobody has joined yet

	rateStart time.Duration
	rateN     uint64

	applied []Input // reused every tick
	lagCap  uint64  // RoomConfig.LagCompensation in ticks; 0 = off
}

type seat struct {
	Seat
	inGrace    bool
	graceUntil time.Duration
	ack        uint32
	thisTick   int // inputs consumed this tick, against MaxInputsPerTick
	// sessions counts the sessions attached to the seat (each Join, less
	// each Disconnect or Leave): a player may have the game open in two
	// terminals, or reconnect before the server noticed the old one died,
	// and the seat is connected while any of them is.
	sessions int
}

func (l *roomLoop) init(r *Room, g Game, seed uint64) {
	l.r = r
	l.game = g
	l.seed = seed
	l.seats = make([]seat, g.Slots())
	l.state = g.Snapshot()
	l.applied = make([]Input, 0, len(l.seats)*r.cfg.MaxInputsPerTick)
	l.lagCap = r.cfg.lagTicks()
	now := r.clock.Now()
	// The timer exists before Run so that a FakeClock advanced before Run
	// gets going still fires it, and waits for Run to handle it.
	if r.cfg.IdleTimeout > 0 {
		l.idleAt, l.idleArmed = now+r.cfg.IdleTimeout, true
		l.timer = r.clock.NewTimer(r.cfg.IdleTimeout)
	} else {
		l.timer = r.clock.NewTimer(time.Hour)
		l.timer.Stop()
	}
	l.publish(now)
}

func (l *roomLoop) run(ctx context.Context) error {
	r := l.r
	// A control call is answered only at the end of its turn, once the
	// timer is re-armed for the state it created: a caller that goes on to
	// advance a FakeClock then finds the room's next deadline already set.
	var reply chan<- ctlResp
	var resp ctlResp
	for {
		l.runDue()
		if l.phase != Closed {
			// Re-arming every turn is also what tells a FakeClock that
			// this turn is done.
			if at, ok := l.nextWake(); ok {
				l.timer.Reset(at - r.clock.Now())
			} else {
				l.timer.Stop()
			}
		}
		if reply != nil {
			reply <- resp // buffered: never blocks
			reply = nil
		}
		if l.phase == Closed {
			return nil
		}
		select {
		case <-ctx.Done():
			l.dispose(r.clock.Now())
			return ctx.Err()
		case req := <-r.ctl:
			reply, resp = req.reply, l.handle(req)
		case <-l.timer.C():
		}
	}
}

func (l *roomLoop) running() bool { return l.phase == Countdown || l.phase == Playing }

func (l *roomLoop) nextWake() (time.Duration, bool) {
	switch {
	case l.running():
		return l.due(l.wakeTick(l.next)), true
	case l.idleArmed:
		return l.idleAt, true
	}
	return 0, false
}

// due is anchor + n·(1s/rate) without overflow or drift for any n.
func (l *roomLoop) due(n uint64) time.Duration {
	rate := uint64(l.r.cfg.TickRate)
	sec := uint64(time.Second)
	return l.anchor + time.Duration((n/rate)*sec+(n%rate)*sec/rate)
}

// wakeTick is the tick whose due time wakes the room to run tick n: the
// next multiple of TicksPerWake, so ticks run in batches on that grid.
func (l *roomLoop) wakeTick(n uint64) uint64 {
	k := uint64(l.r.cfg.TicksPerWake)
	return (n + k - 1) / k * k
}

// lastDue is the largest n with due(n) <= now.
func (l *roomLoop) lastDue(now time.Duration) uint64 {
	if now < l.anchor {
		return 0
	}
	rate := uint64(l.r.cfg.TickRate)
	el := uint64(now - l.anchor)
	sec := uint64(time.Second)
	n := (el/sec)*rate + (el%sec)*rate/sec
	for l.due(n+1) <= now {
		n++
	}
	for n > 0 && l.due(n) > now {
		n--
	}
	return n
}

// runDue does whatever is due by now: the idle deadline and overdue ticks.
// Ticks never run early; after a stall at most MaxCatchUp run back to back
// and the rest are dropped, so a slow host degrades to a slower game instead
// of a death spiral of ever more catch-up work.
func (l *roomLoop) runDue() {
	r := l.r
	now := r.clock.Now()
	if l.idleArmed && now >= l.idleAt {
		l.idleArmed = false
		if l.seatedCount() == 0 {
			l.dispose(now)
			return
		}
	}
	for ran := 0; l.running(); ran++ {
		due := l.due(l.next)
		if due > now {
			return
		}
		if ran == r.cfg.MaxCatchUp {
			r.stats.dropped.Add(l.lastDue(now) - l.next + 1)
			l.anchor, l.next = now, 1
			return
		}
		// Lateness is measured from when the room meant to run the tick:
		// a batch's earlier ticks wait for its wake by design.
		r.stats.observeLateness(max(now-l.due(l.wakeTick(l.next)), 0))
		l.next++
		// Only the last tick of a run publishes: a frame superseded
		// microseconds later is never seen, and costs an allocation.
		last := l.due(l.next) > now || ran+1 == r.cfg.MaxCatchUp
		l.tick(due, now, last)
		now = r.clock.Now()
	}
}

// tick runs one loop tick. Game-visible time (countdown, grace) uses the
// tick's due time t, not the moment it ran, so lateness does not change what
// happens.
func (l *roomLoop) tick(t, now time.Duration, publish bool) {
	r := l.r
	r.stats.ticks.Add(1)
	l.measureRate(now)

	for i := range l.seats {
		if l.seats[i].inGrace && t >= l.seats[i].graceUntil {
			l.leave(i, t)
			if !l.running() {
				if l.phase != Closed {
					l.publish(t)
				}
				return
			}
		}
	}

	if l.phase == Countdown && !l.paused && t >= l.countdownEnd {
		l.phase = Playing
		l.markStarted()
	}

	step := l.phase == Playing && !l.paused
	l.drain(step)
	if step {
		l.game.Step(l.applied)
		l.gameTick++
		l.state = l.game.Snapshot()
		if h := r.hooks.Ticked; h != nil {
			h(l.gameTick, l.applied, l.game)
		}
		if res, ok := l.game.Result(); ok {
			l.finish(res)
		}
	}
	if publish || !l.running() {
		l.publish(t)
	}
}

func (l *roomLoop) measureRate(now time.Duration) {
	l.rateN++
	if el := now - l.rateStart; el >= time.Second {
		l.r.stats.setRate(float64(l.rateN) / el.Seconds())
		l.rateStart, l.rateN = now, 0
	}
}

// drain takes at most what was queued when the tick began, so senders that
// keep the channel full cannot keep the tick from finishing.
func (l *roomLoop) drain(step bool) {
	r := l.r
	l.applied = l.applied[:0]
	for i := range l.seats {
		l.seats[i].thisTick = 0
	}
	for n := len(r.inputs); n > 0; n-- {
		sub := <-r.inputs
		i := l.seatOf(sub.id)
		if i < 0 {
			r.stats.inputsRejected.Add(1)
			continue
		}
		s := &l.seats[i]
		if sub.in.Slot != i {
			s.Misbehaved++
			r.stats.inputsRejected.Add(1)
			continue
		}
		if !s.Connected {
			// Queued before the drop; the paddle stays frozen in grace.
			continue
		}
		s.ack = sub.in.Seq
		if s.thisTick >= r.cfg.MaxInputsPerTick {
			r.stats.inputsDropped.Add(1)
			continue
		}
		s.thisTick++
		if step {
			in := sub.in
			in.Lag = l.lag(in.Seen)
			l.applied = append(l.applied, in)
		}
	}
}

// lag is how many ticks behind the game the view was whose player sent an
// input, capped; 0 when compensation is off or the view is unknown or from
// another match (a tick this match has not reached).
func (l *roomLoop) lag(seen uint64) uint16 {
	if l.lagCap == 0 || seen == 0 || seen > l.gameTick {
		return 0
	}
	return uint16(min(l.gameTick-seen, l.lagCap))
}

func (l *roomLoop) handle(req ctlReq) ctlResp {
	now := l.r.clock.Now()
	resp := ctlResp{slot: -1}
	switch req.kind {
	case ctlJoin:
		resp.slot, resp.err = l.join(req.player, req.slot, now)
	case ctlLeave, ctlDisconnect, ctlReady, ctlEvict:
		i := l.seatOf(req.player.ID)
		if i < 0 {
			resp.err = ErrNotSeated
			break
		}
		switch req.kind {
		case ctlLeave:
			if s := &l.seats[i]; s.sessions > 1 {
				// Another session still plays the seat: only this one
				// goes.
				s.sessions--
				break
			}
			l.leave(i, now)
		case ctlEvict:
			l.leave(i, now)
		case ctlDisconnect:
			l.disconnect(i, now)
		case ctlReady:
			resp.err = l.setReady(i, req.ready, now)
		}
	}
	if resp.err == nil && l.phase != Closed {
		l.publish(now)
	}
	return resp
}

func (l *roomLoop) join(p Player, slot int, now time.Duration) (int, error) {
	cfg := &l.r.cfg
	if p.ID == "" {
		return -1, ErrEmptyID
	}
	if i := l.seatOf(p.ID); i >= 0 {
		s := &l.seats[i]
		s.Player = p
		if !s.Connected {
			s.Connected = true
			s.sessions = 0
		}
		s.sessions++
		// The new session numbers its inputs from the start.
		s.ack = 0
		if s.inGrace {
			s.inGrace = false
			l.updatePause(now)
		}
		return i, nil
	}
	if cfg.AutoStart && len(cfg.Expected) > 0 && !slices.Contains(cfg.Expected, p.ID) {
		return -1, ErrNotExpected
	}
	// A warm-up is no match to join: the newcomer sits, and the warm-up
	// ends below.
	live := l.running() && !l.warmUp
	if live && !cfg.AllowLateJoin {
		return -1, ErrStarted
	}
	free := l.freeSlots()
	switch {
	case slot == -1:
		if len(free) == 0 {
			return -1, ErrRoomFull
		}
		slot = free[0]
	case slot < 0 || slot >= len(l.seats):
		return -1, ErrInvalidSlot
	case l.seats[slot].Taken:
		return -1, &SlotTakenError{Slot: slot, Free: free}
	}
	if live {
		if err := l.game.Join(slot); err != nil {
			return -1, err
		}
		l.state = l.game.Snapshot()
	}
	l.seats[slot] = seat{Seat: Seat{Player: p, Taken: true, Connected: true}, sessions: 1}
	l.idleArmed = false
	if live {
		l.setRoster(slot, p)
	}
	if l.warmUp && l.running() {
		l.endWarmUp(now)
		return slot, nil
	}
	l.maybeStart(now)
	return slot, nil
}

// leave frees seat i for good and works out what that means for the match.
func (l *roomLoop) leave(i int, t time.Duration) {
	if l.warmUp && l.running() {
		// Nothing was at stake: the warm-up just ends.
		l.endWarmUp(t)
	}
	if l.running() && !l.started && l.r.cfg.Binding {
		l.commit()
		if !l.running() {
			// The game ended on its first step (it never does in
			// practice); the seat goes as it would in Finished.
			l.leave(i, t)
			return
		}
	}
	gone := l.seats[i].Player
	l.seats[i] = seat{}
	switch {
	case l.running() && l.started:
		l.setForfeited(i)
		if h := l.r.hooks.Forfeited; h != nil {
			h(l.r.id, i, gone)
		}
		l.game.Leave(i)
		l.state = l.game.Snapshot()
		if res, ok := l.game.Result(); ok {
			l.finish(res)
		} else {
			l.updatePause(t)
		}
	case l.running():
		// Nothing has been played yet, so nobody forfeits: back to waiting.
		l.cancel(t)
	default:
		// Those who remain may all be ready already.
		l.maybeStart(t)
	}
	if l.phase != Closed && l.seatedCount() == 0 {
		l.dispose(t)
	}
}

func (l *roomLoop) disconnect(i int, now time.Duration) {
	s := &l.seats[i]
	if s.sessions > 1 {
		s.sessions-- // another session of the player is still there
		return
	}
	if !l.running() || l.r.cfg.Grace < 0 || l.warmUp {
		// A warm-up keeps no seat: there is nothing to come back to.
		l.leave(i, now)
		return
	}
	if s.inGrace {
		return
	}
	s.Connected = false
	s.sessions = 0
	s.inGrace = true
	s.graceUntil = now + l.r.cfg.Grace
	l.updatePause(now)
}

func (l *roomLoop) setReady(i int, ready bool, now time.Duration) error {
	if l.running() {
		return ErrStarted
	}
	l.seats[i].Ready = ready
	l.maybeStart(now)
	return nil
}

// updatePause pauses while anyone is in grace. Play resumes through a fresh
// countdown: the player who just came back needs a moment to find the ball.
func (l *roomLoop) updatePause(t time.Duration) {
	p := false
	for i := range l.seats {
		p = p || l.seats[i].inGrace
	}
	if l.paused && !p && l.running() {
		l.phase = Countdown
		l.countdownEnd = t + l.r.cfg.Countdown
	}
	l.paused = p
}

func (l *roomLoop) maybeStart(now time.Duration) {
	cfg := &l.r.cfg
	n := l.seatedCount()
	if n < cfg.MinPlayers && !(cfg.WarmUp && n > 0) {
		return
	}
	switch l.phase {
	case Waiting:
		if cfg.AutoStart {
			for _, id := range cfg.Expected {
				if l.seatOf(id) < 0 {
					return
				}
			}
		} else if !l.allReady() {
			return
		}
	case Finished:
		if !l.allReady() {
			return
		}
		// A ranked rematch is the match the matchmaker made, all of it:
		// without someone who walked out, a 2v2 would be two teammates
		// and no opponents, playing on with nothing to win.
		if cfg.AutoStart {
			for _, id := range cfg.Expected {
				if l.seatOf(id) < 0 {
					return
				}
			}
		}
		l.seed = NextSeed(l.seed)
		l.game = l.r.factory(l.seed)
	default:
		return
	}
	l.start(now)
}

// start begins a match's countdown on a game nobody has joined yet.
func (l *roomLoop) start(now time.Duration) {
	l.roster = make([]Player, len(l.seats))
	for i := range l.seats {
		if !l.seats[i].Taken {
			continue
		}
		if err := l.game.Join(i); err != nil {
			// A fresh game refusing a valid free slot is a Game bug; the
			// seat is dropped rather than left unplayable.
			l.seats[i] = seat{}
			continue
		}
		l.roster[i] = l.seats[i].Player
	}
	l.state = l.game.Snapshot()
	l.phase = Countdown
	l.started, l.paused = false, false
	l.warmUp = l.seatedCount() < l.r.cfg.MinPlayers
	l.forfeited = nil
	l.result = nil
	l.gameTick = 0
	l.anchor, l.next = now, 1
	l.countdownEnd = now + l.r.cfg.Countdown
	l.rateStart, l.rateN = now, 0
	l.r.accepting.Store(true)
	if h := l.r.hooks.CountdownStarted; h != nil && !l.warmUp {
		h(l.r.id, l.seed, l.seatsCopy())
	}
}

// cancel returns a match that has not started to Waiting, with a pristine
// game of the same seed (the old one has had Join and Leave calls).
func (l *roomLoop) cancel(t time.Duration) {
	if h := l.r.hooks.CountdownCancelled; h != nil && !l.warmUp {
		h(l.r.id)
	}
	l.phase = Waiting
	l.stopRunning()
	l.game = l.r.factory(l.seed)
	l.state = l.game.Snapshot()
	l.roster, l.forfeited = nil, nil
	for i := range l.seats {
		if !l.seats[i].Connected {
			l.seats[i] = seat{} // in Waiting a disconnect is a leave
		}
		l.seats[i].Ready = false
	}
	l.maybeStart(t)
}

// endWarmUp ends a warm-up (a second player sat down, or the player
// left): back to Waiting on a fresh game of the next seed, nothing
// recorded, so the match that follows starts from a countdown with
// everyone seated. Who was ready stays ready (RoomConfig.WarmUp).
func (l *roomLoop) endWarmUp(t time.Duration) {
	l.phase = Waiting
	l.stopRunning()
	l.warmUp = false
	l.seed = NextSeed(l.seed)
	l.game = l.r.factory(l.seed)
	l.state = l.game.Snapshot()
	l.roster, l.forfeited, l.result = nil, nil, nil
	l.gameTick = 0
}

// markStarted records that the match is under way: from now on a leave is a
// forfeit and the result is recorded.
func (l *roomLoop) markStarted() {
	if l.started {
		return
	}
	l.started = true
	if l.warmUp {
		return // not a match: nothing records it
	}
	if h := l.r.hooks.MatchStarted; h != nil {
		h(l.r.id, l.seed, l.seatsCopy())
	}
}

// commit starts a Binding match whose first countdown someone is leaving,
// so that the leave is a forfeit there as it is in play. The game takes its
// first step, with no inputs, before the leave: a Game treats a seat left
// before its first step as never taken (Pong frees it), not as forfeited.
// Replays see an ordinary first tick followed by a leave.
func (l *roomLoop) commit() {
	r := l.r
	l.markStarted()
	l.applied = l.applied[:0]
	l.game.Step(l.applied)
	l.gameTick++
	l.state = l.game.Snapshot()
	if h := r.hooks.Ticked; h != nil {
		h(l.gameTick, l.applied, l.game)
	}
	if res, ok := l.game.Result(); ok {
		l.finish(res)
	}
}

func (l *roomLoop) finish(res Result) {
	r := l.r
	if l.warmUp {
		// A game that ends a lone player's warm-up by itself ended no
		// match either.
		res.WarmUp = true
	}
	l.phase = Finished
	l.stopRunning()
	own := cloneResult(res)
	l.result = &own
	ended := make([]Seat, len(l.seats))
	for i, p := range l.roster {
		if p.ID == "" {
			continue
		}
		s := &l.seats[i]
		ended[i] = Seat{Player: p, Taken: true, Connected: s.Taken && s.Player.ID == p.ID && s.Connected, Misbehaved: s.Misbehaved}
	}
	for i := range l.seats {
		if !l.seats[i].Connected {
			l.seats[i] = seat{} // in Finished a disconnect is a leave
		}
		l.seats[i].Ready = false
	}
	if h := r.hooks.MatchEnded; h != nil {
		h(r.id, cloneResult(res), ended, l.gameTick)
	}
}

func (l *roomLoop) stopRunning() {
	l.paused = false
	l.r.accepting.Store(false)
	l.r.stats.setRate(0)
}

func (l *roomLoop) dispose(t time.Duration) {
	if l.phase == Closed {
		return
	}
	l.phase = Closed
	l.idleArmed = false
	l.stopRunning()
	l.publish(t)
}

// fail closes the room after a panic on its goroutine and describes it. It
// trusts only plain data (seats, roster, counters), never the game, and
// publishes a copy of the last frame marked Closed and Failed, so readers
// see the room end even if the panic struck in the middle of publishing.
func (l *roomLoop) fail(v any, stack []byte) *RoomPanic {
	r := l.r
	e := &RoomPanic{Room: r.id, Value: v, Stack: stack, Phase: l.phase, Tick: l.gameTick, Seed: l.seed}
	if l.started {
		e.Seats = make([]Seat, len(l.roster))
		for i, p := range l.roster {
			if p.ID == "" {
				continue
			}
			left := i < len(l.forfeited) && l.forfeited[i]
			e.Seats[i] = Seat{Player: p, Taken: true, Connected: !left}
		}
	}
	l.phase = Closed
	l.idleArmed = false
	l.stopRunning()
	p := new(published)
	if last := r.mail.cur.Load(); last != nil {
		p.frame = last.frame // shares the immutable seats and state
	}
	l.pubSeq++
	p.frame.Room, p.frame.Seq, p.frame.Phase, p.frame.Left, p.frame.Failed = r.id, l.pubSeq, Closed, 0, true
	r.mail.publish(p)
	return e
}

func (l *roomLoop) publish(t time.Duration) {
	p := new(published)
	f := &p.frame
	n := len(l.seats)
	if n <= len(p.seats) {
		f.Seats, f.Acks = p.seats[:n:n], p.acks[:n:n]
	} else {
		f.Seats, f.Acks = make([]Seat, n), make([]uint32, n)
	}
	l.pubSeq++
	f.Room = l.r.id
	f.Seq = l.pubSeq
	f.Tick = l.gameTick
	f.TickRate = l.r.cfg.TickRate
	f.Phase = l.phase
	f.State = l.state
	f.Result = l.result
	f.Seed = l.seed
	f.Paused = l.paused
	f.Roster = l.roster
	f.Forfeited = l.forfeited
	f.WarmUp = l.warmUp && l.running()
	if l.phase == Countdown && !l.paused {
		f.Left = max(l.countdownEnd-t, 0)
	}
	for i := range l.seats {
		s := &l.seats[i]
		f.Seats[i] = s.Seat
		f.Seats[i].Sessions = s.sessions
		if s.inGrace {
			f.Seats[i].GraceLeft = max(s.graceUntil-t, 0)
		}
		f.Acks[i] = s.ack
	}
	l.r.mail.publish(p)
}

// setRoster replaces rather than edits the roster: published frames share it.
// The seat changes hands, so whatever its last player did is not the
// newcomer's.
func (l *roomLoop) setRoster(slot int, p Player) {
	ro := make([]Player, len(l.seats))
	copy(ro, l.roster)
	ro[slot] = p
	l.roster = ro
	if slot < len(l.forfeited) && l.forfeited[slot] {
		f := slices.Clone(l.forfeited)
		f[slot] = false
		l.forfeited = f
	}
}

// setForfeited marks the roster's player in slot as having left the match;
// like the roster, the slice is replaced rather than edited.
func (l *roomLoop) setForfeited(slot int) {
	f := make([]bool, len(l.seats))
	copy(f, l.forfeited)
	f[slot] = true
	l.forfeited = f
}

// seatOf is a linear scan: rooms have at most a handful of seats.
func (l *roomLoop) seatOf(id PlayerID) int {
	for i := range l.seats {
		if l.seats[i].Taken && l.seats[i].Player.ID == id {
			return i
		}
	}
	return -1
}

func (l *roomLoop) seatedCount() int {
	n := 0
	for i := range l.seats {
		if l.seats[i].Taken {
			n++
		}
	}
	return n
}

func (l *roomLoop) allReady() bool {
	for i := range l.seats {
		if l.seats[i].Taken && !l.seats[i].Ready {
			return false
		}
	}
	return true
}

func (l *roomLoop) freeSlots() []int {
	var free []int
	for i := range l.seats {
		if !l.seats[i].Taken {
			free = append(free, i)
		}
	}
	return free
}

func (l *roomLoop) seatsCopy() []Seat {
	out := make([]Seat, len(l.seats))
	for i := range l.seats {
		out[i] = l.seats[i].Seat
	}
	return out
}

// cloneResult keeps the room's copy safe from a Game that reuses its slices.
func cloneResult(r Result) Result {
	r.Placements = slices.Clone(r.Placements)
	r.Places = slices.Clone(r.Places)
	r.Scores = slices.Clone(r.Scores)
	return r
}
