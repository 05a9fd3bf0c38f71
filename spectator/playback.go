package spectator

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/termarena/termarena/game"
)

// ErrReplayEnded is returned by Step once every tick has been played.
var ErrReplayEnded = errors.New("spectator: replay has ended")

// DivergedError reports that re-simulation no longer matches the recorded
// match: a state hash, the final state, the result or a recorded Join
// disagreed. It means the replay was damaged or the game's rules changed
// since it was recorded; what is shown past that point is not what was
// played.
type DivergedError struct {
	Tick uint64        // the tick whose check failed
	At   time.Duration // Tick as match time
}

func (e *DivergedError) Error() string {
	return "replay diverged at " + clock(e.At)
}

// clock formats d as mm:ss, which is how players talk about a moment in a
// match.
func clock(d time.Duration) string {
	s := int64(d / time.Second)
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

// Playback re-simulates a Replay tick by tick, checking every recorded hash.
// It is not safe for concurrent use: a replay viewer drives it from one
// goroutine.
//
// Seeking backward re-simulates from the start rather than restoring a
// keyframe. A Pong step is about 70 ns, so a three-minute match (10,800
// ticks at 60 Hz) replays in about a millisecond, and a light-cycle step
// costs about the same. game.Game offers no way to copy a game's state,
// and copying one behind its back would alias whatever it holds by
// reference, so keyframes would cost more in risk than they save in time.
type Playback struct {
	r    *Replay
	kind game.Kind
	g    game.Game
	buf  []game.Input

	tick       uint64
	in, ev, hs int   // next unapplied input, seat event and hash
	err        error // set at a divergence: nothing past it can be trusted
}

// ErrUnknownGame is returned by NewPlayback for a replay of a game the
// server does not run.
var ErrUnknownGame = errors.New("a game this server does not run")

// NewPlayback validates r and positions the playback at tick 0, with the
// players seated as they were before the first step; games is the
// server's catalogue, which must hold the replay's game. The replay must
// not be modified while the playback uses it.
func NewPlayback(r *Replay, games game.Catalog) (*Playback, error) {
	if r == nil {
		return nil, errors.New("spectator: new playback: nil replay")
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("spectator: new playback: %w", err)
	}
	kind, ok := games.Kind(r.Game)
	if !ok {
		return nil, fmt.Errorf("spectator: new playback: %w: %q", ErrUnknownGame, r.Game)
	}
	g, err := kind.New(r.Config, r.Seed)
	if err != nil {
		return nil, fmt.Errorf("spectator: new playback: %w: %w", ErrInvalidReplay, err)
	}
	if g.Slots() != r.Slots {
		return nil, fmt.Errorf("spectator: new playback: %w: %d seats for a %d-seat game", ErrInvalidReplay, r.Slots, g.Slots())
	}
	p := &Playback{r: r, kind: kind, buf: make([]game.Input, 0, 4)}
	p.start(g)
	return p, nil
}

// reset goes back to before the first step.
func (p *Playback) reset() {
	g, err := p.kind.New(p.r.Config, p.r.Seed)
	if err != nil { // NewPlayback built one from the same bytes
		panic(fmt.Sprintf("spectator: %s refused a config it accepted: %v", p.kind.Name(), err))
	}
	p.start(g)
}

func (p *Playback) start(g game.Game) {
	p.g = g
	p.tick, p.in, p.ev, p.hs, p.err = 0, 0, 0, 0, nil
	p.err = p.seatEvents()
}

// seatEvents makes the Join and Leave calls recorded after the current tick.
func (p *Playback) seatEvents() error {
	evs := p.r.SeatEvents
	for ; p.ev < len(evs) && evs[p.ev].Tick == p.tick; p.ev++ {
		e := evs[p.ev]
		switch e.Kind {
		case SeatJoin:
			// The recorder logs only joins that succeeded.
			if err := p.g.Join(int(e.Slot)); err != nil {
				return p.diverged()
			}
		case SeatLeave:
			p.g.Leave(int(e.Slot))
		}
	}
	return nil
}

func (p *Playback) diverged() error {
	p.err = &DivergedError{Tick: p.tick, At: ticksToDuration(p.tick, p.r.TickRate)}
	return p.err
}

// Step plays the next tick: its recorded input changes, the step, the hash
// check if one was recorded for it, then the seat events that followed it
// (and, on the last tick, a check of the final state and result). It
// returns a *DivergedError on a mismatch, and again on every later call
// until a Seek to before it; ErrReplayEnded once Done.
func (p *Playback) Step() error {
	if p.err != nil {
		return p.err
	}
	if p.tick >= p.r.Ticks {
		return ErrReplayEnded
	}
	next := p.tick + 1
	p.buf = p.buf[:0]
	ins := p.r.Inputs
	for ; p.in < len(ins) && ins[p.in].Tick == next; p.in++ {
		p.buf = append(p.buf, game.Input{Slot: int(ins[p.in].Slot), Action: ins[p.in].Action, Lag: ins[p.in].Lag})
	}
	p.g.Step(p.buf)
	p.tick = next
	if hs := p.r.Hashes; p.hs < len(hs) && hs[p.hs].Tick == next {
		want := hs[p.hs].Hash
		p.hs++
		if p.g.Hash() != want {
			return p.diverged()
		}
	}
	if err := p.seatEvents(); err != nil {
		return err
	}
	if next == p.r.Ticks && !p.endMatches() {
		return p.diverged()
	}
	return nil
}

func (p *Playback) endMatches() bool {
	if p.g.Hash() != p.r.FinalHash {
		return false
	}
	if p.r.Aborted {
		return true // cut short: the state is all there is to check
	}
	got, over := p.g.Result()
	want := p.r.Result
	return over && got.Forfeit == want.Forfeit &&
		slices.Equal(got.Placements, want.Placements) &&
		slices.Equal(got.Places, want.Places) &&
		slices.Equal(got.Scores, want.Scores)
}

// Seek moves to tick (0 is before the first step, Ticks the end), stepping
// forward from here or re-simulating from the start to go back. Every hash
// on the way is checked, so seeking past a divergence stops at it and
// returns its *DivergedError.
func (p *Playback) Seek(tick uint64) error {
	if tick > p.r.Ticks {
		return fmt.Errorf("spectator: seek to tick %d: the replay has %d ticks", tick, p.r.Ticks)
	}
	if tick < p.tick {
		p.reset()
	}
	for p.tick < tick {
		if err := p.Step(); err != nil {
			return err
		}
	}
	return p.err
}

// TickAt converts a match time into the tick Seek takes, rounding down and
// clamping to the replay, so a viewer can seek by seconds.
func (p *Playback) TickAt(d time.Duration) uint64 {
	if d <= 0 {
		return 0
	}
	rate, sec := uint64(p.r.TickRate), uint64(time.Second)
	t := (uint64(d)/sec)*rate + (uint64(d)%sec)*rate/sec
	return min(t, p.r.Ticks)
}

// Snapshot is the state after the current tick (the game's snapshot
// type, as a room's frames carry it); a fresh value per call.
func (p *Playback) Snapshot() any { return p.g.Snapshot() }

// Tick is the number of ticks played.
func (p *Playback) Tick() uint64 { return p.tick }

// Elapsed is Tick as match time.
func (p *Playback) Elapsed() time.Duration { return ticksToDuration(p.tick, p.r.TickRate) }

// Duration is the whole match's length.
func (p *Playback) Duration() time.Duration { return p.r.Duration() }

// Done reports whether every tick has been played.
func (p *Playback) Done() bool { return p.tick >= p.r.Ticks }

// Err is the divergence found so far, if any.
func (p *Playback) Err() error { return p.err }

// Replay is the replay being played.
func (p *Playback) Replay() *Replay { return p.r }
