package lobby

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/spectator"
)

// ErrNoRoom is returned when a room name or join code matches nothing live.
var ErrNoRoom = errors.New("no such room")

// DefaultTicksPerWake: rooms run their 60 Hz ticks in pairs, waking 30
// times a second like the views that draw them (game.RoomConfig.TicksPerWake).
const DefaultTicksPerWake = 2

// RoomsConfig tunes the casual rooms players create.
type RoomsConfig struct {
	Room game.RoomConfig // tick rate, grace, countdown…
	// Games are the games rooms play (the server's catalogue).
	Games game.Catalog
	// MaxRooms bounds live rooms so a script cannot create them forever.
	MaxRooms int
	// Observer, when set, watches every room's matches (results, replays).
	Observer MatchObserver
	// SpectateDelay is how far behind the live game watchers of a ranked
	// room are, so nobody can relay positions to a player; zero means
	// spectator.DefaultRankedDelay, negative means live. Casual rooms are
	// always live.
	SpectateDelay time.Duration
	// MaxWatchers bounds the watchers of one room: 0 means
	// DefaultMaxWatchers, negative no limit.
	MaxWatchers int
	// Log receives what rooms and their feeds cannot tell a player: a
	// room that panicked. Nil discards it.
	Log *slog.Logger
	// Bots are the games' practice bots by game name (games.Bots()); a
	// game without them has no practice rooms.
	Bots map[string]bot.Maker
	// MaxBotRooms bounds live practice rooms: 0 means
	// DefaultMaxBotRooms; negative turns practice off.
	MaxBotRooms int
	// Node is the cluster node the rooms run on (RoomInfo.Node); "" on a
	// single node.
	Node string
	// Journal, in a cluster, streams every match to where another node
	// can resume it (cluster's room log); nil on a single node.
	Journal MatchJournal
	// Codes, in a cluster, keeps join codes unique across the nodes and
	// finds other nodes' rooms by theirs; nil on a single node.
	Codes CodeBook
	// Owners, in a cluster, names the node holding a room's lease
	// (cluster.RoomLog): nil on a single node.
	Owners RoomOwners
}

// RoomOwners says which node holds a room's lease, "" when none does.
// Its call may wait on the network: the rooms call it outside their lock,
// only when a room opens.
type RoomOwners interface {
	Owner(ctx context.Context, room string) string
}

// MatchObserver watches the matches played in rooms. Its hooks run on the
// room's goroutine and must not block.
type MatchObserver interface {
	// Hooks are r's hooks but MatchEnded, which is never called: the
	// observer's own MatchEnded is, instead.
	Hooks(r *Room) game.Hooks
	// MatchEnded is a match r finished, with the hook's arguments and its
	// replay (nil when none was recorded), on the room goroutine. The
	// replay is the observer's.
	MatchEnded(r *Room, res game.Result, seats []game.Seat, ticks uint64, replay *spectator.Replay)
	// MatchFailed is called once a room has ended on a panic (p), from the
	// goroutine that ran it, so that a match it interrupted is recorded as
	// aborted. It may block briefly; the room is already gone.
	MatchFailed(r *Room, p *game.RoomPanic)
}

// Room is a live room as the lobby knows it.
type Room struct {
	*game.Room
	Game    game.Kind
	Mode    game.Mode
	Ranked  RankedMode // "" for a casual room
	Private bool
	// Practice is the level of the bots a practice room seats
	// (CreatePractice); 0 for any other room.
	Practice int
	Code     string // join code of a private room
	Created  time.Time
	// Seats is, for a ranked room, the slot each matched player must take.
	Seats map[game.PlayerID]int

	rooms   *Rooms
	cancel  context.CancelFunc
	ctx     context.Context
	outcome atomic.Pointer[Outcome]
	// outNext is closed when the next outcome is published (nil until
	// someone waits for one).
	outMu   sync.Mutex
	outNext chan struct{}
	// recorder records the room's matches; after the room has stopped
	// mid-match it cuts the match into an aborted replay (cutReplay).
	recorder *spectator.Recorder

	watchMu sync.Mutex
	delay   *spectator.Delay
	delayBy time.Duration
	// watchersElsewhere is how many watch this room from other nodes of
	// a cluster (through their mirrors), as their last renewals said.
	watchersElsewhere atomic.Int32

	// bots are the bots FillWithBots seated in a casual room, each with
	// what ends its goroutine (when a person takes its seat).
	botMu sync.Mutex
	bots  map[game.PlayerID]context.CancelFunc

	// handedOff: the room stopped because another node took its match
	// over (a drain), so this node neither records it nor ends its log.
	handedOff atomic.Bool
	// journal feeds the cluster's room log (nil on a single node); its
	// state is the room goroutine's until the room is done.
	journal *roomJournal
}

// Watch returns the room's feed for spectators (delayed for ranked rooms)
// and registers a watcher until stop is called; a room that has as many
// watchers as it takes (RoomsConfig.MaxWatchers) refuses with a
// *WatchersFullError.
func (r *Room) Watch() (feed *spectator.Delay, stop func(), err error) {
	r.watchMu.Lock()
	if most := r.maxWatchers(); most > 0 && r.delay != nil && r.delay.Watchers() >= most {
		r.watchMu.Unlock()
		return nil, nil, &WatchersFullError{Room: r.ID(), Most: most}
	}
	if r.delay == nil {
		d := spectator.NewDelay(r.Room, spectator.DelayConfig{Delay: r.delayBy})
		r.delay = d
		go func() {
			var pe *spectator.PanicError
			if err := d.Run(r.ctx); errors.As(err, &pe) {
				// The feed closed itself (its watchers are told); the
				// next watcher gets a fresh one.
				r.watchMu.Lock()
				if r.delay == d {
					r.delay = nil
				}
				r.watchMu.Unlock()
				r.rooms.delayPanics.recovered(r.rooms.log, WorkerDelay, "spectator feed panicked; its watchers were sent back", pe.Value, pe.Stack,
					"room", r.ID(), "game", r.Game.Name(), "mode", ModeName(r))
			}
		}()
	}
	d := r.delay
	stop = d.Watch() // under the lock, with the count it was checked against
	r.watchMu.Unlock()
	return d, stop, nil
}

// DefaultMaxWatchers is how many people may watch one room unless
// RoomsConfig says otherwise: every watcher's terminal is written at its
// frame rate (watchers who see the same share the painting, not the
// writing), so one popular match must not take the server's CPU from
// every other.
const DefaultMaxWatchers = 200

// WatchersFullError refuses a watcher of a room that has as many as it
// takes.
type WatchersFullError struct {
	Room string
	Most int
}

func (e *WatchersFullError) Error() string {
	return fmt.Sprintf("room %s has the most watchers it takes (%d)", e.Room, e.Most)
}

// maxWatchers is how many watchers r takes; 0 = no limit.
func (r *Room) maxWatchers() int {
	if r.rooms == nil {
		return DefaultMaxWatchers
	}
	return max(r.rooms.cfg.MaxWatchers, 0)
}

// CanWatch says why a watcher more would be refused now (a
// *WatchersFullError), or nil.
func (r *Room) CanWatch() error {
	if most := r.maxWatchers(); most > 0 && r.Watchers() >= most {
		return &WatchersFullError{Room: r.ID(), Most: most}
	}
	return nil
}

// Watchers is how many people are watching (players see it), on other
// nodes of a cluster too.
func (r *Room) Watchers() int {
	n := int(r.watchersElsewhere.Load())
	r.watchMu.Lock()
	defer r.watchMu.Unlock()
	if r.delay == nil {
		return n
	}
	return n + r.delay.Watchers()
}

// SetWatchersElsewhere says how many watch this room from other nodes:
// the cluster's room links keep it, from the attached nodes' renewals.
func (r *Room) SetWatchersElsewhere(n int) { r.watchersElsewhere.Store(int32(n)) }

// SpectateDelay is how far behind the game its watchers are.
func (r *Room) SpectateDelay() time.Duration { return r.delayBy }

// HandedOff reports that the room stopped to hand its match to another
// node (a drain) rather than closing: set before the room is stopped, so
// its last frame can be told from a close.
func (r *Room) HandedOff() bool { return r.handedOff.Load() }

// Outcome is what a finished match did to ratings, for the results screen.
type Outcome struct {
	Seed    uint64 // the match it belongs to (Frame.Seed)
	MatchID uint64
	Changes []RatingChange // per slot; empty for unrated matches
	// Unsaved, when not "", says what of the match could not be saved
	// (the result, or its replay), for the players' screens.
	Unsaved string
}

// RatingChange is one seat's rating before and after a match.
type RatingChange struct {
	Before, After float64
	Games         int // rated games after this one
	// DeviationBefore and DeviationAfter are the Glicko-2 deviations
	// around the match: what makes a rating provisional ("1512?").
	DeviationBefore, DeviationAfter float64
	// Left: the player left the match, which counts as a loss. Cooldown
	// is when the queue cooldown that earned ends (not after now when the
	// leave was forgiven).
	Left     bool
	Cooldown time.Time
}

// WarmsUp reports whether a lone player may warm up in the room
// (game.Mode.WarmUp): casual rooms of such modes, never a ranked match,
// nor practice, where the bots are the company.
func (r *Room) WarmsUp() bool { return r.Mode.WarmUp && r.Ranked == "" && r.Practice == 0 }

// Close ends the room at once (its players are sent back to the lobby).
func (r *Room) Close() { r.cancel() }

// SetOutcome publishes a finished match's rating changes.
func (r *Room) SetOutcome(o *Outcome) {
	r.outcome.Store(o)
	r.outMu.Lock()
	if r.outNext != nil {
		close(r.outNext)
		r.outNext = nil
	}
	r.outMu.Unlock()
}

// Outcome returns the last published outcome, or nil.
func (r *Room) Outcome() *Outcome { return r.outcome.Load() }

// AwaitOutcome waits until the outcome of the match played with seed is
// published, or ctx ends (nil). A player who walked out of a ranked match is
// back in the lobby by the time the results writer has it.
func (r *Room) AwaitOutcome(ctx context.Context, seed uint64) *Outcome {
	for {
		// The channel is taken before the check, so a SetOutcome between
		// the two still wakes us.
		r.outMu.Lock()
		if r.outNext == nil {
			r.outNext = make(chan struct{})
		}
		next := r.outNext
		r.outMu.Unlock()
		if o := r.Outcome(); o != nil && o.Seed == seed {
			return o
		}
		select {
		case <-next:
		case <-ctx.Done():
			return nil
		}
	}
}

// Rooms is the registry of live rooms. Each room runs on its own goroutine
// (game.Room.Run) under the server's context and leaves the registry when it
// ends.
type Rooms struct {
	ctx context.Context
	cfg RoomsConfig

	mu   sync.Mutex
	seq  int
	byID map[string]*Room
	// practiceMu makes counting practice rooms and creating one a single
	// step, so the cap holds under concurrent requests.
	practiceMu sync.Mutex
	byCode     map[string]*Room
	changed    chan struct{}
	// shown is closed when what room lists show changes (Shown); nil
	// until someone waits on it.
	shown chan struct{}
	// remote is what other nodes of a cluster said their rooms are, by
	// node (SetRemote); empty on a single node. remoteNodes is its size,
	// read without the lock so a single node's lists never take it for
	// other nodes' rooms (every lobby re-reads them each second).
	remote      map[string][]RoomInfo
	remoteNodes atomic.Int32
	// linker reaches other nodes' rooms (SetRemoteRooms), and mirrors are
	// the ones sessions here play or watch, by id: one handle each.
	linker  RemoteRooms
	mirrors map[string]*Room
	// retired sums the tick statistics of rooms that have ended, so the
	// server's counts and histograms keep them (Prometheus counters must
	// never go down).
	retired game.TickStats

	log         *slog.Logger
	panics      panicCount // rooms that ended on a panic
	delayPanics panicCount // spectator feeds that did
}

// NewRooms returns an empty registry whose rooms live until ctx ends.
func NewRooms(ctx context.Context, cfg RoomsConfig) *Rooms {
	if cfg.MaxRooms <= 0 {
		cfg.MaxRooms = 1000
	}
	if cfg.MaxWatchers == 0 {
		cfg.MaxWatchers = DefaultMaxWatchers
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	rs := &Rooms{ctx: ctx, cfg: cfg, byID: map[string]*Room{}, byCode: map[string]*Room{}, changed: make(chan struct{}), remote: map[string][]RoomInfo{}, mirrors: map[string]*Room{}, log: log}
	go rs.followShown()
	return rs
}

// Panics is how many rooms ended on a panic since the server started.
func (rs *Rooms) Panics() uint64 { return rs.panics.Load() }

// DelayPanics is how many spectator feeds ended on a panic.
func (rs *Rooms) DelayPanics() uint64 { return rs.delayPanics.Load() }

// codeAlphabet leaves out look-alikes (0/o, 1/l/i) so codes survive being
// read aloud or typed from a screenshot.
const codeAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

func newCode() string {
	var b [5]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	return string(b[:])
}

func newSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// Games are the games rooms play, in menu order.
func (rs *Rooms) Games() game.Catalog { return rs.cfg.Games }

// ErrNoMode is returned for a game or mode the server does not offer.
var ErrNoMode = errors.New("no such game mode")

// Create starts a casual room of a game's mode. A private room is not
// listed and is joined by its code.
func (rs *Rooms) Create(gameName, mode string, private bool) (*Room, error) {
	k, m, ok := rs.cfg.Games.Mode(gameName, mode)
	if !ok || !m.Casual {
		return nil, fmt.Errorf("lobby: %w: %s %s", ErrNoMode, gameName, mode)
	}
	rc := rs.cfg.Room
	rc.AllowLateJoin = true
	// A lone player may warm up where the game can play alone.
	rc.WarmUp = m.WarmUp
	return rs.create(k, m, "", private, rc, nil, 0)
}

// CreateRanked starts the room for a match the queue formed: only its
// players may sit, each in the slot the match gave them, and the countdown
// starts as soon as all are seated. It is not listed for joining.
func (rs *Rooms) CreateRanked(m Match) (*Room, error) {
	k, mode, ok := rs.cfg.Games.Ranked(string(m.Mode))
	if !ok {
		return nil, fmt.Errorf("lobby: %w: %q", ErrUnknownMode, m.Mode)
	}
	rc := rs.cfg.Room
	// The opening countdown is part of a ranked match: walking out of it
	// is a forfeit, not a free escape from an unwanted pairing.
	rc.AutoStart, rc.AllowLateJoin, rc.Binding = true, false, true
	seats := make(map[game.PlayerID]int, len(m.Players))
	rc.Expected = nil
	for i, p := range m.Players {
		rc.Expected = append(rc.Expected, game.PlayerID(p.ID))
		seats[game.PlayerID(p.ID)] = i
	}
	return rs.create(k, mode, m.Mode, false, rc, seats, 0)
}

func (rs *Rooms) create(k game.Kind, mode game.Mode, ranked RankedMode, private bool, rc game.RoomConfig, seats map[game.PlayerID]int, practice int) (*Room, error) {
	setup, err := k.Setup(mode.Name)
	if err != nil {
		return nil, fmt.Errorf("lobby: room config: %w", err)
	}
	if rc.TickRate == 0 {
		rc.TickRate = setup.TickRate
	}
	if rc.TickRate == 0 {
		rc.TickRate = game.DefaultTickRate
	}
	if rc.MinPlayers == 0 {
		rc.MinPlayers = mode.MinPlayers
	}
	if rc.TicksPerWake == 0 {
		rc.TicksPerWake = DefaultTicksPerWake
	}
	code := ""
	if private {
		code = rs.claimCode() // before the lock: it may ask the cluster
	}
	id := rs.nextID() // before the lock: it may ask the cluster
	rs.mu.Lock()
	if len(rs.byID) >= rs.cfg.MaxRooms {
		rs.mu.Unlock()
		return nil, fmt.Errorf("lobby: the server has its maximum of %d rooms; join one instead", rs.cfg.MaxRooms)
	}
	r := &Room{Game: k, Mode: mode, Ranked: ranked, Private: private || ranked != "", Practice: practice, Created: time.Now(), Seats: seats, rooms: rs}
	if ranked != "" {
		switch d := rs.cfg.SpectateDelay; {
		case d == 0:
			r.delayBy = spectator.DefaultRankedDelay
		case d > 0:
			r.delayBy = d
		}
	}
	// Every match is recorded for replays. The recorder is the room's game
	// factory as well as its hooks: only the games it makes see the seat
	// changes (late joins, forfeits) that re-simulation has to repeat.
	rec, err := spectator.NewRecorder(spectator.RecorderConfig{Game: k, Config: setup.Config, HeldInputs: mode.HeldInputs,
		TickRate: rc.TickRate})
	if err != nil {
		rs.mu.Unlock()
		return nil, fmt.Errorf("lobby: recorder: %w", err)
	}
	r.recorder = rec
	if err := r.newGameRoom(id, rc, rec.Factory()); err != nil {
		rs.mu.Unlock()
		return nil, err
	}
	rj := rs.setHooks(r, rec)
	if private {
		for r.Code = code; rs.byCode[r.Code] != nil; {
			r.Code = newCode()
		}
		rs.byCode[r.Code] = r
	}
	rs.byID[id] = r
	rs.signalLocked()
	rs.mu.Unlock()
	if r.Code != "" && rs.cfg.Codes != nil {
		rs.cfg.Codes.Bind(r.Code, id)
	}
	rs.run(r, rj)
	return r, nil
}

// nextID is a new room's id: the next of this node's sequence that no
// live room of the cluster has. A node restarted after a crash counts
// from 1 again while another node may still run its former rooms under
// their ids (a resumed room keeps r1@n1), and two rooms of one id would
// share its NATS subjects and lease: such an id is skipped, as another
// node's directory lists it or its lease is held. The sequence only
// grows, so ids taken here are never given twice.
func (rs *Rooms) nextID() string {
	for {
		rs.mu.Lock()
		rs.seq++
		id := RoomID(rs.seq, rs.cfg.Node)
		listed := rs.byID[id] != nil || rs.mirrors[id] != nil
		for _, infos := range rs.remote {
			listed = listed || slices.ContainsFunc(infos, func(ri RoomInfo) bool { return ri.ID == id })
		}
		rs.mu.Unlock()
		if listed {
			continue
		}
		if rs.cfg.Owners != nil {
			ctx, cancel := context.WithTimeout(rs.ctx, time.Second)
			owner := rs.cfg.Owners.Owner(ctx, id)
			cancel()
			if owner != "" {
				continue
			}
		}
		return id
	}
}

// setHooks gives r its hooks: the recorder's, the observer's and the
// journal's (returned, nil without one), in that order.
func (rs *Rooms) setHooks(r *Room, rec *spectator.Recorder) *roomJournal {
	hooks := rec.Hooks()
	if obs := rs.cfg.Observer; obs != nil {
		hooks = chainHooks(hooks, obs.Hooks(r))
		// The replay goes from the recorder to the observer as a value,
		// in one call: nothing is left on the room for a later hook to
		// find (or miss).
		hooks.MatchEnded = func(room string, res game.Result, seats []game.Seat, ticks uint64) {
			obs.MatchEnded(r, res, seats, ticks, rec.End(room, res, seats, ticks))
		}
	}
	var rj *roomJournal
	if j := rs.cfg.Journal; j != nil {
		rj = &roomJournal{r: r, j: j}
		r.journal = rj
		hooks = chainHooks(hooks, rj.hooks())
	}
	r.SetHooks(hooks)
	return rj
}

// install registers a room made elsewhere than create (a resumed one)
// and runs it; init, when the rooms keep a journal, sets its journal
// where the match's log stands.
func (rs *Rooms) install(r *Room, rec *spectator.Recorder, init func(*roomJournal)) {
	rs.mu.Lock()
	rj := rs.setHooks(r, rec)
	if rj != nil && init != nil {
		init(rj)
	}
	if r.Code != "" {
		rs.byCode[r.Code] = r
	}
	rs.byID[r.ID()] = r
	rs.signalLocked()
	rs.mu.Unlock()
	rs.run(r, rj)
}

// run runs r on its own goroutine until it ends, then takes it out of
// the registry.
func (rs *Rooms) run(r *Room, rj *roomJournal) {
	id := r.ID()
	ctx, cancel := context.WithCancel(rs.ctx)
	r.ctx, r.cancel = ctx, cancel
	go func() {
		defer cancel()
		if err := r.Run(ctx); err != nil {
			var p *game.RoomPanic
			if errors.As(err, &p) {
				rs.failed(r, p)
			}
		}
		if rj != nil && !r.handedOff.Load() {
			// The match is settled here (recorded, or aborted with this
			// node's stop): nobody is to resume it.
			rj.j.MatchOver(id)
		}
		rs.mu.Lock()
		addTickStats(&rs.retired, r.Stats())
		delete(rs.byID, id)
		if r.Code != "" {
			delete(rs.byCode, r.Code)
		}
		rs.signalLocked()
		rs.mu.Unlock()
		if r.Code != "" && rs.cfg.Codes != nil {
			rs.cfg.Codes.Release(r.Code)
		}
	}()
}

// newGameRoom makes the game's room. The factory runs here, on the
// creating goroutine (a session, or the matchmaker), and a game that
// panics on its config is this room's failure, not the caller's.
func (r *Room) newGameRoom(id string, rc game.RoomConfig, f game.Factory) (err error) {
	defer func() {
		if v := recover(); v != nil {
			r.rooms.panics.recovered(r.rooms.log, WorkerRoom, "room panicked while starting", v, debug.Stack(),
				"room", id, "game", r.Game.Name(), "mode", ModeName(r))
			err = fmt.Errorf("lobby: %s %s: the game failed to start (server error)", r.Game.Name(), r.Mode.Name)
		}
	}()
	r.Room = game.NewRoom(id, rc, f, newSeed())
	return nil
}

// failed handles a room that ended on a panic: the room already told its
// players and watchers (its Closed frame is Failed); the log gets the
// stack, and a match it interrupted is recorded as aborted.
func (rs *Rooms) failed(r *Room, p *game.RoomPanic) {
	rs.panics.recovered(rs.log, WorkerRoom, "room panicked; its match was aborted and its players sent back to the lobby", p.Value, p.Stack,
		"room", p.Room, "game", r.Game.Name(), "mode", ModeName(r), "phase", p.Phase.String(), "tick", p.Tick)
	if rs.cfg.Observer == nil {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			rs.log.Error("recording a failed room's match panicked", "room", p.Room, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	rs.cfg.Observer.MatchFailed(r, p)
}

// Retired returns the summed tick statistics of every room that has ended
// (Rate is zero: it describes live rooms only).
func (rs *Rooms) Retired() game.TickStats {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.retired
}

func addTickStats(sum *game.TickStats, s game.TickStats) {
	sum.Ticks += s.Ticks
	sum.Dropped += s.Dropped
	sum.InputsDropped += s.InputsDropped
	sum.InputsRejected += s.InputsRejected
	for i := range sum.Lateness {
		sum.Lateness[i] += s.Lateness[i]
	}
	if sum.LatenessBounds == nil {
		sum.LatenessBounds = s.LatenessBounds
	}
}

// chainHooks runs a's hooks, then b's.
func chainHooks(a, b game.Hooks) game.Hooks {
	return game.Hooks{
		MatchStarted: func(room string, seed uint64, seats []game.Seat) {
			call3(a.MatchStarted, room, seed, seats)
			call3(b.MatchStarted, room, seed, seats)
		},
		Ticked: func(tick uint64, in []game.Input, g game.Game) {
			call3(a.Ticked, tick, in, g)
			call3(b.Ticked, tick, in, g)
		},
		MatchEnded: func(room string, res game.Result, seats []game.Seat, ticks uint64) {
			if a.MatchEnded != nil {
				a.MatchEnded(room, res, seats, ticks)
			}
			if b.MatchEnded != nil {
				b.MatchEnded(room, res, seats, ticks)
			}
		},
		Forfeited: func(room string, slot int, p game.Player) {
			call3(a.Forfeited, room, slot, p)
			call3(b.Forfeited, room, slot, p)
		},
		CountdownStarted: func(room string, seed uint64, seats []game.Seat) {
			call3(a.CountdownStarted, room, seed, seats)
			call3(b.CountdownStarted, room, seed, seats)
		},
		CountdownCancelled: func(room string) {
			for _, f := range []func(string){a.CountdownCancelled, b.CountdownCancelled} {
				if f != nil {
					f(room)
				}
			}
		},
	}
}

func call3[A, B, C any](f func(A, B, C), a A, b B, c C) {
	if f != nil {
		f(a, b, c)
	}
}

func (rs *Rooms) signalLocked() {
	close(rs.changed)
	rs.changed = make(chan struct{})
	rs.signalShownLocked()
}

// Find returns the live room named ref: a public room by id ("r7") or any
// room by its join code. A private room is never found by id, so ids cannot
// be walked to reach private rooms. Another node's room is an
// *ElsewhereError naming its node.
func (rs *Rooms) Find(ref string) (*Room, error) {
	return rs.lookup(ref, func(r *Room) bool { return !r.Private })
}

// lookup finds a room by join code, or by id when byID allows it.
func (rs *Rooms) lookup(ref string, byID func(*Room) bool) (*Room, error) {
	ref = strings.ToLower(strings.TrimSpace(ref))
	r, err := rs.lookupLocal(ref, byID)
	if errors.Is(err, ErrNoRoom) {
		// Another node's join code, asked outside the lock. A code is
		// what lets a player into a private room, so the room it names is
		// reached on its node as one found by id is; only a node that
		// cannot reach other nodes' rooms tells the player where it is.
		if e := rs.elsewhereCode(ref); e != nil {
			if r, aerr := rs.attachCode(e); aerr == nil {
				return r, nil
			}
			return nil, e
		}
	}
	return r, err
}

func (rs *Rooms) lookupLocal(ref string, byID func(*Room) bool) (*Room, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r := rs.byCode[ref]; r != nil {
		return r, nil
	}
	if r := rs.byID[ref]; r != nil && byID(r) {
		return r, nil
	}
	if r, err := rs.remoteLocked(ref, byID); err != errNotRemote {
		return r, err
	}
	if err := rs.elsewhereLocked(ref); err != nil {
		return nil, err
	}
	return nil, ErrNoRoom
}

// errNotRemote: a ref that names no room another node runs and that this
// one could reach.
var errNotRemote = errors.New("lobby: not another node's room")

// List returns the public rooms, oldest first, and a channel closed when the
// set of rooms changes.
func (rs *Rooms) List() ([]*Room, <-chan struct{}) {
	return rs.snapshot(func(r *Room) bool { return !r.Private })
}

// Watchable returns the room a spectator asked for: any room by id except
// private casual rooms, which only their code reaches.
func (rs *Rooms) Watchable(ref string) (*Room, error) { return rs.lookup(ref, watchable) }

// Live lists the rooms spectators can pick from (public and ranked),
// oldest first, and a channel closed when the set changes.
func (rs *Rooms) Live() ([]*Room, <-chan struct{}) { return rs.snapshot(watchable) }

// All lists every live room, private ones included, oldest first (for
// operators).
func (rs *Rooms) All() []*Room {
	out, _ := rs.snapshot(func(*Room) bool { return true })
	return out
}

// snapshot copies the rooms keep accepts, oldest first, with the channel
// that is closed when the set of rooms changes.
func (rs *Rooms) snapshot(keep func(*Room) bool) ([]*Room, <-chan struct{}) {
	rs.mu.Lock()
	out := make([]*Room, 0, len(rs.byID))
	for _, r := range rs.byID {
		if keep(r) {
			out = append(out, r)
		}
	}
	ch := rs.changed
	rs.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		return out[i].Created.Before(out[j].Created) || (out[i].Created.Equal(out[j].Created) && out[i].ID() < out[j].ID())
	})
	return out, ch
}

// watchable says whether spectators may find a room by id: public rooms
// and ranked matches (a private casual room only by its code).
func watchable(r *Room) bool { return !r.Private || r.Ranked != "" }

// Count is the number of live rooms, private ones included.
func (rs *Rooms) Count() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.byID)
}

// Evict takes player id's seat in every live room away for good (a
// forfeit in a match under way), whichever sessions hold it, and returns
// how many seats that was: a banned or kicked player leaves at once.
func (rs *Rooms) Evict(ctx context.Context, id game.PlayerID) int {
	n := 0
	for _, r := range rs.All() {
		fr, _ := r.Latest()
		if fr == nil {
			continue
		}
		for _, s := range fr.Seats {
			if s.Taken && s.Player.ID == id {
				if r.Evict(ctx, id) == nil {
					n++
				}
				break
			}
		}
	}
	return n
}

// Holding returns the room, public or private, where player id holds a seat
// it dropped and may still reclaim (grace running), so a reconnecting
// player goes straight back to their match.
func (rs *Rooms) Holding(id game.PlayerID) (*Room, bool) {
	if r, ok := rs.HoldingHere(id); ok {
		return r, true
	}
	return rs.holdingElsewhere(id)
}

// HoldingHere is Holding among this node's own rooms only: what this node
// answers another node of a cluster asking for a reconnecting player's
// seat.
func (rs *Rooms) HoldingHere(id game.PlayerID) (*Room, bool) {
	rs.mu.Lock()
	rooms := make([]*Room, 0, len(rs.byID))
	for _, r := range rs.byID {
		rooms = append(rooms, r)
	}
	rs.mu.Unlock()
	for _, r := range rooms {
		fr, _ := r.Latest()
		if fr == nil {
			continue
		}
		for _, s := range fr.Seats {
			if s.Taken && !s.Connected && s.Player.ID == id {
				return r, true
			}
		}
	}
	return nil, false
}
