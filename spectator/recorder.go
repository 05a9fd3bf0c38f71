package spectator

import (
	"fmt"
	"slices"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// RecorderConfig sets up the Recorder of one room.
type RecorderConfig struct {
	// Pong is the config every match of the room is played with.
	Pong pong.Config
	// TickRate is the room's ticks per second; zero means Pong.TickRate.
	TickRate int
	// HashEvery is the number of ticks between recorded state hashes; zero
	// means TickRate, once a second: a hash costs far more than the rest of
	// the tick's recording, and a second is as precise as "diverged at
	// 01:23" needs.
	HashEvery int
	// Now stamps Replay.Start; nil means time.Now.
	Now func() time.Time
	// OnReplay receives each finished match's replay. It is called on the
	// room goroutine, from the MatchEnded hook, so it MUST NOT block or call
	// back into the room: send to a buffered channel (dropping, and
	// counting, when it is full) or start the store write elsewhere. The
	// replay is the receiver's; the recorder keeps no reference to it.
	// Nil discards replays.
	OnReplay func(*Replay)
}

// Recorder turns one room's matches into Replays. Use it for both the
// room's factory and its hooks:
//
//	rec, err := spectator.NewRecorder(spectator.RecorderConfig{Pong: pc, OnReplay: send})
//	room := game.NewRoom(id, rc, rec.Factory(), seed)
//	room.SetHooks(rec.Hooks())
//
// The hooks report inputs, hashes and the start and end of a match, but
// not the Join and Leave calls the room makes on the game between steps (a
// late join, a forfeit, a grace period running out), and re-simulation has
// to repeat those at the same point. The games Factory makes record those
// calls themselves, which is also the one place that sees them all, in
// order.
//
// A Recorder belongs to one room: every method runs on that room's
// goroutine (Factory's first call, from NewRoom, before Run starts), so it
// holds no locks. Matches the room abandons (closed before a result) produce
// nothing, and neither does a match longer than MaxTicks.
type Recorder struct {
	cfg RecorderConfig
	cur *recordedGame // the game the room made last, which is the one it plays
}

// NewRecorder checks the config once, since a bad one would otherwise only
// surface as a panic in pong.New on the room goroutine.
func NewRecorder(cfg RecorderConfig) (*Recorder, error) {
	if err := cfg.Pong.Validate(); err != nil {
		return nil, fmt.Errorf("spectator: new recorder: %w", err)
	}
	if cfg.TickRate <= 0 {
		cfg.TickRate = cfg.Pong.TickRate
	}
	if cfg.TickRate > game.MaxTickRate {
		return nil, fmt.Errorf("spectator: new recorder: tick rate %d over %d", cfg.TickRate, game.MaxTickRate)
	}
	if cfg.HashEvery <= 0 {
		cfg.HashEvery = cfg.TickRate
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Recorder{cfg: cfg}, nil
}

// Factory makes the room's games: pong.New(cfg.Pong, seed), wrapped so
// that seat changes are recorded.
func (r *Recorder) Factory() game.Factory {
	return func(seed uint64) game.Game {
		g := &recordedGame{Game: pong.New(r.cfg.Pong, seed), log: &matchLog{seed: seed}}
		r.cur = g
		return g
	}
}

// Hooks returns the recorder's hooks. To add other observers, call the
// methods from your own hook functions.
func (r *Recorder) Hooks() game.Hooks {
	return game.Hooks{MatchStarted: r.MatchStarted, Ticked: r.Ticked, MatchEnded: r.MatchEnded}
}

// recordedGame is the room's pong game with a log of its seat changes.
type recordedGame struct {
	*pong.Game
	log   *matchLog // nil once the match was handed off or dropped
	steps uint64
}

// Join records only successful joins: a refused one changed nothing.
func (g *recordedGame) Join(slot int) error {
	if err := g.Game.Join(slot); err != nil {
		return err
	}
	g.log.seat(g.steps, slot, SeatJoin)
	return nil
}

func (g *recordedGame) Leave(slot int) {
	g.Game.Leave(slot)
	g.log.seat(g.steps, slot, SeatLeave)
}

func (g *recordedGame) Step(inputs []game.Input) {
	g.Game.Step(inputs)
	g.steps++
}

// matchLog is one match as it is being recorded.
type matchLog struct {
	seed    uint64
	started bool
	room    string
	start   time.Time
	ticks   uint64
	// last and lastLag are each slot's direction and view lag as the game
	// holds them, so an input that repeats both (key auto-repeat, a client
	// re-sending) is not recorded.
	last    [4]int8
	lastLag [4]uint16
	inputs  []InputChange
	events  []SeatEvent
	hashes  []TickHash
}

func (l *matchLog) seat(tick uint64, slot int, kind SeatEventKind) {
	if l == nil || slot < 0 || slot >= len(l.last) {
		return
	}
	l.events = append(l.events, SeatEvent{Tick: tick, Slot: uint8(slot), Kind: kind})
	// Join and Leave both stop the paddle (and Join forgets the lag), so
	// the next input for the slot must be recorded whatever it held before.
	l.last[slot], l.lastLag[slot] = 0, 0
}

// MatchStarted implements the game.Hooks function of the same name.
func (r *Recorder) MatchStarted(room string, seed uint64, _ []game.Seat) {
	g := r.cur
	if g == nil || g.log == nil || g.log.seed != seed || g.steps != 0 {
		return // not a game this recorder made: nothing to pair the log with
	}
	l := g.log
	l.started, l.room, l.start = true, room, r.cfg.Now()
	// Sized for a few minutes of play so that the per-tick hook does not
	// grow them in the common case.
	l.inputs = make([]InputChange, 0, 2048)
	l.hashes = make([]TickHash, 0, 256)
}

// Ticked implements the game.Hooks function of the same name. It runs every
// tick on the room goroutine, so it allocates nothing in steady state: a
// pass over the applied inputs, an append when a direction changed, and a
// hash every HashEvery ticks.
func (r *Recorder) Ticked(tick uint64, applied []game.Input, g game.Game) {
	rg, ok := g.(*recordedGame)
	if !ok || rg.log == nil || !rg.log.started {
		return
	}
	l := rg.log
	if tick != rg.steps || tick > MaxTicks {
		// A tick that is not this game's step count means the log no
		// longer describes the game; too long a match would not decode.
		rg.log = nil
		return
	}
	// Pong applies the last input of a slot in a tick; only its sign counts.
	var final [4]int8
	var lag [4]uint16
	var seen uint8
	for _, in := range applied {
		if in.Slot < 0 || in.Slot >= len(final) {
			continue
		}
		final[in.Slot], lag[in.Slot] = sign(in.Action), in.Lag
		seen |= 1 << in.Slot
	}
	for s := range final {
		if seen&(1<<s) != 0 && (final[s] != l.last[s] || lag[s] != l.lastLag[s]) {
			l.last[s], l.lastLag[s] = final[s], lag[s]
			l.inputs = append(l.inputs, InputChange{Tick: tick, Slot: uint8(s), Action: final[s], Lag: lag[s]})
		}
	}
	if tick%uint64(r.cfg.HashEvery) == 0 {
		l.hashes = append(l.hashes, TickHash{Tick: tick, Hash: rg.Hash()})
	}
	l.ticks = tick
}

// MatchEnded implements the game.Hooks function of the same name: it
// finishes the replay and hands it to OnReplay.
func (r *Recorder) MatchEnded(room string, res game.Result, seats []game.Seat, ticks uint64) {
	g := r.cur
	if g == nil || g.log == nil || !g.log.started {
		return
	}
	l := g.log
	g.log = nil // whatever happens next, this match is done
	if ticks != g.steps || ticks == 0 {
		return
	}
	rep := &Replay{
		Version:    FormatVersion,
		Game:       GamePong,
		Room:       room,
		Config:     r.cfg.Pong,
		Seed:       l.seed,
		TickRate:   r.cfg.TickRate,
		Seats:      make([]game.Player, g.Slots()),
		Start:      l.start,
		Ticks:      ticks,
		Inputs:     l.inputs,
		SeatEvents: l.events,
		Hashes:     l.hashes,
		FinalHash:  g.Hash(),
		Result: game.Result{
			Placements: slices.Clone(res.Placements),
			Places:     slices.Clone(res.Places),
			Scores:     slices.Clone(res.Scores),
			Forfeit:    res.Forfeit,
		},
	}
	for i, s := range seats {
		if i < len(rep.Seats) && s.Taken {
			rep.Seats[i] = s.Player
		}
	}
	if r.cfg.OnReplay != nil {
		r.cfg.OnReplay(rep)
	}
}

func sign(a int8) int8 {
	switch {
	case a > 0:
		return 1
	case a < 0:
		return -1
	}
	return 0
}
