package spectator

import (
	"fmt"
	"slices"
	"time"

	"github.com/termarena/termarena/game"
)

// RecorderConfig sets up the Recorder of one room.
type RecorderConfig struct {
	// Game makes the room's matches, each from Config (its encoded config).
	Game   game.Kind
	Config []byte
	// HeldInputs is the mode's game.Mode.HeldInputs: an input that repeats
	// the action its slot holds is not recorded.
	HeldInputs bool
	// TickRate is the room's ticks per second.
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
//	rec, err := spectator.NewRecorder(spectator.RecorderConfig{Game: kind, Config: setup.Config, TickRate: 60, OnReplay: send})
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
// nothing, and neither does a match longer than MaxTicks or a warm-up
// (game.Result.WarmUp).
type Recorder struct {
	cfg RecorderConfig
	cur *recordedGame // the game the room made last, which is the one it plays
}

// NewRecorder checks the config once, by building a match from it, since
// a bad one would otherwise only surface on the room goroutine.
func NewRecorder(cfg RecorderConfig) (*Recorder, error) {
	if cfg.Game == nil {
		return nil, fmt.Errorf("spectator: new recorder: no game")
	}
	g, err := cfg.Game.New(cfg.Config, 0)
	if err != nil {
		return nil, fmt.Errorf("spectator: new recorder: %w", err)
	}
	if n := g.Slots(); n < 1 || n > MaxSlots {
		return nil, fmt.Errorf("spectator: new recorder: %d slots outside 1..%d", n, MaxSlots)
	}
	if cfg.TickRate <= 0 || cfg.TickRate > game.MaxTickRate {
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

// Factory makes the room's games from the config, wrapped so that seat
// changes are recorded. NewRecorder built one from the same config, so
// this one cannot fail short of the game breaking its own contract.
func (r *Recorder) Factory() game.Factory {
	return func(seed uint64) game.Game {
		inner, err := r.cfg.Game.New(r.cfg.Config, seed)
		if err != nil {
			panic(fmt.Sprintf("spectator: %s refused a config it accepted: %v", r.cfg.Game.Name(), err))
		}
		n := inner.Slots()
		canon, _ := inner.(game.ActionCanon)
		once, _ := inner.(game.OneShotAction)
		g := &recordedGame{Game: inner, canon: canon, once: once, log: &matchLog{seed: seed, last: make([]int8, n), lastLag: make([]uint16, n), final: make([]int8, n), lag: make([]uint16, n)}}
		r.cur = g
		return g
	}
}

// Hooks returns the recorder's hooks. To add other observers, call the
// methods from your own hook functions.
func (r *Recorder) Hooks() game.Hooks {
	return game.Hooks{MatchStarted: r.MatchStarted, Ticked: r.Ticked, MatchEnded: r.MatchEnded}
}

// recordedGame is the room's game with a log of its seat changes.
type recordedGame struct {
	game.Game
	canon game.ActionCanon   // nil: every action value is its own
	once  game.OneShotAction // nil: no action acts anew when repeated
	log   *matchLog          // nil once the match was handed off or dropped
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
	// last and lastLag are each slot's action and view lag as a game with
	// held inputs holds them, so an input that repeats both (key
	// auto-repeat, a client re-sending) is not recorded; final and lag
	// are Ticked's scratch.
	last    []int8
	lastLag []uint16
	final   []int8
	lag     []uint16
	inputs  []InputChange
	events  []SeatEvent
	hashes  []TickHash
}

func (l *matchLog) seat(tick uint64, slot int, kind SeatEventKind) {
	if l == nil || slot < 0 || slot >= len(l.last) {
		return
	}
	l.events = append(l.events, SeatEvent{Tick: tick, Slot: uint8(slot), Kind: kind})
	// A seat change resets what the seat holds (Pong: Join and Leave stop
	// the paddle and Join forgets the lag), so the next input for the slot
	// must be recorded whatever it held before.
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
	// Small, growing with the match: the per-tick hook's appends double
	// them a handful of times a match. Sized for minutes of play up front
	// they were 36 KB a room from its first tick, most of it never used
	// by a match of a few points, beside a session's few hundred.
	l.inputs = make([]InputChange, 0, 64)
	l.hashes = make([]TickHash, 0, 16)
}

// Ticked implements the game.Hooks function of the same name. It runs every
// tick on the room goroutine, so it allocates nothing in steady state: a
// pass over the applied inputs, an append for each one recorded, and a
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
	if r.cfg.HeldInputs {
		l.held(tick, applied, rg.canon, rg.once)
	} else {
		for _, in := range applied {
			if in.Slot >= 0 && in.Slot < len(l.last) {
				l.inputs = append(l.inputs, InputChange{Tick: tick, Slot: uint8(in.Slot), Action: canonical(rg.canon, in.Action), Lag: in.Lag})
			}
		}
	}
	if tick%uint64(r.cfg.HashEvery) == 0 {
		l.hashes = append(l.hashes, TickHash{Tick: tick, Hash: rg.Hash()})
	}
	l.ticks = tick
}

// held records, for a game whose inputs hold, each slot's last input of
// the tick (the one its state keeps) when it differs from what the slot
// held, or acts anew whatever it repeats (game.OneShotAction).
func (l *matchLog) held(tick uint64, applied []game.Input, canon game.ActionCanon, once game.OneShotAction) {
	var seen uint64
	for _, in := range applied {
		if in.Slot < 0 || in.Slot >= len(l.final) {
			continue
		}
		l.final[in.Slot], l.lag[in.Slot] = canonical(canon, in.Action), in.Lag
		seen |= 1 << in.Slot
	}
	for s := range l.final {
		if seen&(1<<s) != 0 && (l.final[s] != l.last[s] || l.lag[s] != l.lastLag[s] || (once != nil && once.OneShot(l.final[s]))) {
			l.last[s], l.lastLag[s] = l.final[s], l.lag[s]
			l.inputs = append(l.inputs, InputChange{Tick: tick, Slot: uint8(s), Action: l.final[s], Lag: l.lag[s]})
		}
	}
}

// MatchEnded implements the game.Hooks function of the same name: it
// finishes the replay and hands it to OnReplay.
func (r *Recorder) MatchEnded(room string, res game.Result, seats []game.Seat, ticks uint64) {
	if rep := r.End(room, res, seats, ticks); rep != nil && r.cfg.OnReplay != nil {
		r.cfg.OnReplay(rep)
	}
}

// End finishes the match that ended (MatchEnded's arguments) and returns
// its replay, nil when there is none to keep (a warm-up, a match too long
// or not recorded from its start), instead of handing it to OnReplay: for
// a caller whose own MatchEnded hook carries the replay on with the
// result. Like every method, it runs on the room's goroutine.
func (r *Recorder) End(room string, res game.Result, seats []game.Seat, ticks uint64) *Replay {
	g := r.cur
	if g == nil || g.log == nil || !g.log.started {
		return nil
	}
	l := g.log
	g.log = nil // whatever happens next, this match is done
	if ticks != g.steps || ticks == 0 || res.WarmUp {
		return nil
	}
	rep := &Replay{
		Version:    FormatVersion,
		Game:       r.cfg.Game.Name(),
		Room:       room,
		Config:     slices.Clone(r.cfg.Config),
		Slots:      g.Slots(),
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
	return rep
}

// Cut hands over the match in progress, which the room will not finish
// (the server is stopping), as an aborted replay: cut at the last tick the
// recorder hashed, so playback verifies every tick of it, with players as
// who held each slot (nil entries: nobody). It returns nil when no match
// is in progress or none of it was hashed yet (under HashEvery ticks).
// The log belongs to the room's goroutine: call Cut only once the room
// has stopped (its Done channel closed), never while it runs.
func (r *Recorder) Cut(players []game.Player) *Replay {
	g := r.cur
	if g == nil || g.log == nil || !g.log.started || len(g.log.hashes) == 0 {
		return nil
	}
	l := g.log
	g.log = nil
	last := l.hashes[len(l.hashes)-1]
	rep := &Replay{
		Version:   FormatVersion,
		Game:      r.cfg.Game.Name(),
		Room:      l.room,
		Config:    slices.Clone(r.cfg.Config),
		Slots:     g.Slots(),
		Seed:      l.seed,
		TickRate:  r.cfg.TickRate,
		Seats:     make([]game.Player, g.Slots()),
		Start:     l.start,
		Ticks:     last.Tick,
		Hashes:    l.hashes,
		FinalHash: last.Hash,
		Result:    game.Result{Places: make([]int, g.Slots()), Scores: make([]int, g.Slots())},
		Aborted:   true,
	}
	for _, in := range l.inputs {
		if in.Tick <= last.Tick {
			rep.Inputs = append(rep.Inputs, in)
		}
	}
	// The hash at the cut was taken before the seat changes that followed
	// that step, so those are left out with everything after them.
	for _, ev := range l.events {
		if ev.Tick < last.Tick {
			rep.SeatEvents = append(rep.SeatEvents, ev)
		}
	}
	copy(rep.Seats, players)
	return rep
}

func canonical(c game.ActionCanon, a int8) int8 {
	if c == nil {
		return a
	}
	return c.CanonicalAction(a)
}
