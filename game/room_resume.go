package game

import "time"

// Resumed is a match under way that a new room continues: another node of
// a cluster rebuilt it from the room's input log after its owner died, or
// was handed it by an owner draining. Game has stepped Tick times (and
// made the seat changes that followed); Roster is who played each slot
// and Forfeited who of them had left the match.
type Resumed struct {
	Game      Game
	Seed      uint64
	Tick      uint64
	Roster    []Player
	Forfeited []bool
}

// ResumeRoom makes a room that plays on a match another room started: the
// match counts as started (no MatchStarted hook fires again), the seats
// of the players still in it are held for them in grace, so the game is
// paused as it is for any dropped player, and the first to sit again gets
// their seat back (Join with the same id); once nobody is in grace play
// resumes through a countdown, and a grace that runs out is a forfeit, as
// in any match. newGame makes the games of later matches (a rematch).
func ResumeRoom(id string, cfg RoomConfig, newGame Factory, m Resumed) *Room {
	cfg = cfg.withDefaults(m.Game.Slots())
	r := &Room{
		id:      id,
		cfg:     cfg,
		clock:   cfg.Clock,
		factory: newGame,
		ctl:     make(chan ctlReq),
		inputs:  make(chan submission, cfg.InputBuffer),
		done:    make(chan struct{}),
	}
	l := &r.loop
	l.r = r
	l.game = m.Game
	l.seed = m.Seed
	l.seats = make([]seat, m.Game.Slots())
	l.state = m.Game.Snapshot()
	l.applied = make([]Input, 0, len(l.seats)*cfg.MaxInputsPerTick)
	l.lagCap = cfg.lagTicks()
	l.roster = make([]Player, len(l.seats))
	copy(l.roster, m.Roster)
	if len(m.Forfeited) > 0 {
		l.forfeited = make([]bool, len(l.seats))
		copy(l.forfeited, m.Forfeited)
	}
	now := r.clock.Now()
	grace := cfg.Grace
	if grace < 0 {
		// A room that keeps no seat still gives the players of a match
		// it took over a chance to come back: they did not drop it.
		grace = DefaultGrace
	}
	for i, p := range l.roster {
		if p.ID == "" || (i < len(l.forfeited) && l.forfeited[i]) {
			continue
		}
		l.seats[i] = seat{Seat: Seat{Player: p, Taken: true}, inGrace: true, graceUntil: now + grace}
	}
	l.phase = Countdown
	l.started = true
	l.paused = true
	l.gameTick = m.Tick
	l.anchor, l.next = now, 1
	l.countdownEnd = now + cfg.Countdown
	l.rateStart = now
	r.accepting.Store(true)
	// A stopped timer: Run arms it for the next tick on its first turn.
	l.timer = r.clock.NewTimer(time.Hour)
	l.timer.Stop()
	l.publish(now)
	return r
}
