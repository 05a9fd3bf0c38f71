package spectator

import (
	"errors"
	"fmt"
	"time"

	"github.com/termarena/termarena/game"
)

// ErrLogDiverged is what Resume returns when re-simulating a match's log
// does not reach the state its hashes say the match had.
var ErrLogDiverged = errors.New("spectator: the match's log does not reproduce its state")

// Resume rebuilds the match log describes (a replay cut where its last
// hash was taken: Aborted, FinalHash that hash) through the recorder's
// own factory and hooks, so that the game it returns, positioned after
// log.Ticks steps, records the rest of the match on top of what log holds
// and the replay at its end is the whole match. Every hash in the log is
// checked; a mismatch, or a log that does not validate, is an error and
// nothing is resumed. It re-simulates on the caller's goroutine (a
// Pong step is about 70 ns: an hour of play is a quarter of a second)
// before the room that will own the game runs.
func (r *Recorder) Resume(log *Replay) (game.Game, error) {
	if log == nil {
		return nil, errors.New("spectator: resume: no log")
	}
	if err := log.Validate(); err != nil {
		return nil, fmt.Errorf("spectator: resume: %w", err)
	}
	if log.Game != r.cfg.Game.Name() || string(log.Config) != string(r.cfg.Config) {
		return nil, fmt.Errorf("spectator: resume: %w: a %s log for a %s room", ErrInvalidReplay, log.Game, r.cfg.Game.Name())
	}
	g := r.Factory()(log.Seed).(*recordedGame)
	if g.Slots() != log.Slots {
		return nil, fmt.Errorf("spectator: resume: %w: %d seats for a %d-seat game", ErrInvalidReplay, log.Slots, g.Slots())
	}
	ev, in, hs := 0, 0, 0
	events := func(tick uint64) error {
		for ; ev < len(log.SeatEvents) && log.SeatEvents[ev].Tick == tick; ev++ {
			e := log.SeatEvents[ev]
			switch e.Kind {
			case SeatJoin:
				if err := g.Join(int(e.Slot)); err != nil {
					return fmt.Errorf("%w: the join of slot %d after tick %d was refused", ErrLogDiverged, e.Slot, tick)
				}
			case SeatLeave:
				g.Leave(int(e.Slot))
			}
		}
		return nil
	}
	if err := events(0); err != nil {
		return nil, err
	}
	r.MatchStarted(log.Room, log.Seed, nil)
	if g.log == nil || !g.log.started {
		return nil, fmt.Errorf("spectator: resume: %w: the match did not start", ErrLogDiverged)
	}
	if !log.Start.IsZero() {
		g.log.start = log.Start
	}
	buf := make([]game.Input, 0, 4)
	for tick := uint64(1); tick <= log.Ticks; tick++ {
		buf = buf[:0]
		for ; in < len(log.Inputs) && log.Inputs[in].Tick == tick; in++ {
			c := log.Inputs[in]
			buf = append(buf, game.Input{Slot: int(c.Slot), Action: c.Action, Lag: c.Lag})
		}
		g.Step(buf)
		// The recorder's own hook, as the room calls it: the log it
		// builds is the one the match would have had on this node.
		r.Ticked(tick, buf, g)
		for ; hs < len(log.Hashes) && log.Hashes[hs].Tick == tick; hs++ {
			if g.Hash() != log.Hashes[hs].Hash {
				return nil, fmt.Errorf("%w: hash at tick %d (%s)", ErrLogDiverged, tick, clock(ticksToDuration(tick, log.TickRate)))
			}
		}
		if tick == log.Ticks {
			break // the seat changes after the last hash are not in the cut
		}
		if err := events(tick); err != nil {
			return nil, err
		}
	}
	if g.Hash() != log.FinalHash {
		return nil, fmt.Errorf("%w: hash at tick %d, its last", ErrLogDiverged, log.Ticks)
	}
	if _, over := g.Result(); over {
		return nil, fmt.Errorf("spectator: resume: %w: the match was over at tick %d", ErrLogDiverged, log.Ticks)
	}
	if g.log == nil {
		return nil, fmt.Errorf("spectator: resume: %w: the log lost its place", ErrLogDiverged)
	}
	return g, nil
}

// Begin makes the game of a match whose log ended before its first
// batch (its node died during the first countdown, or in the first ticks
// of play): the seed's fresh game with slots joined, as the room that
// started it joined them, recording from its first step, so that the
// match plays again from tick 0 and its log reads as if the first node
// had written it. start is when the match began.
func (r *Recorder) Begin(room string, seed uint64, slots []int, start time.Time) (game.Game, error) {
	g := r.Factory()(seed).(*recordedGame)
	for _, slot := range slots {
		if err := g.Join(slot); err != nil {
			return nil, fmt.Errorf("spectator: begin: %w: the join of slot %d was refused", ErrInvalidReplay, slot)
		}
	}
	r.MatchStarted(room, seed, nil)
	if g.log == nil || !g.log.started {
		return nil, fmt.Errorf("spectator: begin: %w: the match did not start", ErrInvalidReplay)
	}
	if !start.IsZero() {
		g.log.start = start
	}
	return g, nil
}

// Since returns what the recorder logged of the match in progress after
// the first inputs and events already taken (the counts a previous call
// returned), with the tick it has reached and the game's hash now: the
// room log's next batch (cluster). It runs on the room goroutine, from a
// Ticked hook after the recorder's own. ok is false when no match is
// being recorded.
func (r *Recorder) Since(inputs, events int) (in []InputChange, ev []SeatEvent, tick, hash uint64, ok bool) {
	g := r.cur
	if g == nil || g.log == nil || !g.log.started {
		return nil, nil, 0, 0, false
	}
	l := g.log
	if inputs <= len(l.inputs) {
		in = append(in, l.inputs[inputs:]...)
	}
	if events <= len(l.events) {
		ev = append(ev, l.events[events:]...)
	}
	return in, ev, g.steps, g.Hash(), true
}

// Started is when the match being recorded began (zero when none is).
func (r *Recorder) Started() time.Time {
	if g := r.cur; g != nil && g.log != nil && g.log.started {
		return g.log.start
	}
	return time.Time{}
}

// TickRate is the room's ticks per second the recorder stamps replays
// with.
func (r *Recorder) TickRate() int { return r.cfg.TickRate }
