package game

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// PlayerID identifies a player: the SHA256 key fingerprint, or a guest id.
type PlayerID string

// Player is who sits in a seat.
type Player struct {
	ID    PlayerID
	Name  string
	Guest bool
}

// Phase is where a room is in its life.
type Phase int

const (
	// Waiting: seats fill and players ready up (or, with AutoStart, the
	// expected players arrive).
	Waiting Phase = iota
	// Countdown: "3-2-1" before the ball moves, at the start of a match and
	// again when play resumes after a pause.
	Countdown
	// Playing: the game steps every tick.
	Playing
	// Finished: Frame.Result is set; ready now means "rematch".
	Finished
	// Closed: the room is gone; this frame is the last one.
	Closed
)

func (p Phase) String() string {
	switch p {
	case Waiting:
		return "waiting"
	case Countdown:
		return "countdown"
	case Playing:
		return "playing"
	case Finished:
		return "finished"
	case Closed:
		return "closed"
	}
	return "Phase(" + strconv.Itoa(int(p)) + ")"
}

// Defaults for zero RoomConfig fields.
const (
	DefaultTickRate         = 60
	DefaultMaxCatchUp       = 5
	DefaultMaxInputsPerTick = 4
	DefaultMinPlayers       = 2
	DefaultCountdown        = 3 * time.Second
	DefaultGrace            = 30 * time.Second
	DefaultIdleTimeout      = 30 * time.Second
	// DefaultSeatInputs is a seat's share of the room's input buffer
	// when RoomConfig.InputBuffer is zero: more than a second of a
	// session's key budget (inputguard's 60 keys), so a burst of one
	// seat's keys is never refused for want of room, while a room holds
	// only what its seats can send. A fixed 1,024 was 40 KB a room,
	// allocated with it, for a Pong room whose two seats send a handful
	// a tick.
	DefaultSeatInputs = 64
)

// MaxTickRate caps RoomConfig.TickRate.
const MaxTickRate = 1000

// RoomConfig tunes a room. Zero fields take the Default* values.
type RoomConfig struct {
	TickRate   int // ticks per second, at most MaxTickRate
	MaxCatchUp int // overdue ticks run back to back after a stall before the rest are dropped
	// TicksPerWake is how many ticks the room runs per timer wake-up (1
	// when zero): with 2, a 60 Hz room wakes 30 times a second and runs
	// the two ticks then due back to back. The simulation is the same
	// fixed 60 Hz steps (replays are unchanged); an input waits at most
	// one tick longer, and the wake-up, the room's main cost, is halved.
	// Views draw at 30 fps and extrapolate, so players see no difference.
	TicksPerWake     int
	InputBuffer      int // capacity of the shared input channel; 0: DefaultSeatInputs a seat
	MaxInputsPerTick int // per seat; the excess is dropped so a key flood cannot slow the tick
	MinPlayers       int // clamped to the game's slot count
	// Countdown before play starts or resumes; negative means none.
	Countdown time.Duration
	// Grace is how long a dropped player's seat is kept (and the game
	// paused) while Countdown or Playing; negative means a disconnect is a
	// leave.
	Grace time.Duration
	// AutoStart (ranked): start the countdown as soon as every Expected
	// player is seated, with no ready-up. With no Expected, as soon as
	// MinPlayers are seated. Only Expected players may join.
	AutoStart bool
	Expected  []PlayerID
	// Binding (ranked): the match counts from its first countdown. A leave,
	// or a grace period running out, during that countdown forfeits as it
	// would in play; without Binding the room goes back to Waiting, since
	// nothing was played yet.
	Binding bool
	// AllowLateJoin (casual): a joiner may take a free slot during
	// Countdown or Playing; Game.Join decides how (Pong: between points).
	AllowLateJoin bool
	// WarmUp (casual): fewer than MinPlayers may start, all ready, as a
	// warm-up (Frame.WarmUp): the game runs for the lone player, nothing
	// is recorded (no MatchStarted; a Result is WarmUp), and it ends, back
	// to Waiting, the moment a second player sits or the last one leaves,
	// so a real match always starts from a countdown with everyone in it
	// rather than in the middle of someone's practice. The lone player
	// stays ready, as a ready player waiting alone would be: the match
	// starts when the newcomer readies.
	WarmUp bool
	// IdleTimeout disposes of a room nobody has joined since it was
	// created; negative means never. A room that had players is disposed as
	// soon as the last one leaves.
	IdleTimeout time.Duration
	// LagCompensation is the most a seat's view may lag and still be
	// judged as it saw the game (Input.Lag); zero or negative turns
	// compensation off. Unlike the other fields its zero is not a
	// default: the server's flag supplies one (150 ms). The cap protects
	// the others: nobody is beaten by an action older than it.
	LagCompensation time.Duration
	Clock           Clock // nil means SystemClock()
}

// MaxLagCompensation bounds RoomConfig.LagCompensation: beyond a second the
// player is judged on a game the others left long ago.
const MaxLagCompensation = time.Second

// lagTicks is LagCompensation in whole ticks, rounded down so that the cap
// is never exceeded.
func (c RoomConfig) lagTicks() uint64 {
	d := min(c.LagCompensation, MaxLagCompensation)
	if d <= 0 {
		return 0
	}
	return uint64(d) * uint64(c.TickRate) / uint64(time.Second)
}

func (c RoomConfig) withDefaults(slots int) RoomConfig {
	if c.TickRate <= 0 {
		c.TickRate = DefaultTickRate
	}
	// Beyond this a tick is shorter than a timer wake-up, and the due-time
	// arithmetic stays far from overflow.
	c.TickRate = min(c.TickRate, MaxTickRate)
	if c.MaxCatchUp <= 0 {
		c.MaxCatchUp = DefaultMaxCatchUp
	}
	c.TicksPerWake = min(max(c.TicksPerWake, 1), c.TickRate)
	c.MaxCatchUp = max(c.MaxCatchUp, c.TicksPerWake)
	if c.InputBuffer <= 0 {
		c.InputBuffer = max(slots, 1) * DefaultSeatInputs
	}
	if c.MaxInputsPerTick <= 0 {
		c.MaxInputsPerTick = DefaultMaxInputsPerTick
	}
	if c.MinPlayers <= 0 {
		c.MinPlayers = DefaultMinPlayers
	}
	// A room that can never fill must still be able to start.
	c.MinPlayers = min(c.MinPlayers, max(slots, 1))
	switch {
	case c.Countdown == 0:
		c.Countdown = DefaultCountdown
	case c.Countdown < 0:
		c.Countdown = 0
	}
	if c.Grace == 0 {
		c.Grace = DefaultGrace
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.Clock == nil {
		c.Clock = SystemClock()
	}
	// The caller keeps its slice; the room reads its own copy.
	c.Expected = append([]PlayerID(nil), c.Expected...)
	return c
}

// Factory makes the game for one match. A rematch is a new game with the
// next seed (NextSeed), so every match replays from (config, seed, inputs).
type Factory func(seed uint64) Game

// Hooks let later features (ratings, replays) observe a room. They are
// called on the room goroutine and MUST NOT block or call back into the
// room: hand the data to your own goroutine through a buffered channel, or
// copy it and return. Slices passed in are reused or shared with frames;
// copy what you keep.
type Hooks struct {
	// MatchStarted is called when a match leaves its first countdown, or
	// earlier when a Binding match is forfeited during it.
	MatchStarted func(room string, seed uint64, seats []Seat)
	// CountdownStarted is called when a match's first countdown begins
	// (not a warm-up's): who sits where and the seed are settled, though
	// the match may still be called off (CountdownCancelled) or gain a
	// late joiner before MatchStarted. A cluster logs the match from here
	// so that a node dying in the countdown does not lose it.
	CountdownStarted func(room string, seed uint64, seats []Seat)
	// CountdownCancelled is called when a match whose countdown began is
	// called off before it started (someone left): nothing of it counts.
	CountdownCancelled func(room string)
	// Ticked is called after each game step with the inputs actually
	// applied (what a replay records) and the game (for Hash).
	Ticked func(tick uint64, applied []Input, g Game)
	// MatchEnded is called when the game reports a Result. seats is, per
	// slot, who played it (Taken), including players who forfeited
	// (Connected false).
	MatchEnded func(room string, res Result, seats []Seat, ticks uint64)
	// Forfeited is called the moment a player gives up their seat in a
	// match under way (a leave, or a grace that ran out), before any
	// result that causes: a free-for-all or a team may play on for
	// minutes, and what the leave costs must not wait for that.
	Forfeited func(room string, slot int, p Player)
}

// Errors returned by the control calls.
var (
	ErrSlotTaken   = errors.New("game: slot taken")
	ErrRoomFull    = errors.New("game: room full")
	ErrClosed      = errors.New("game: room closed")
	ErrStarted     = errors.New("game: match already started")
	ErrNotSeated   = errors.New("game: player not seated")
	ErrNotExpected = errors.New("game: player not expected in this room")
	ErrInvalidSlot = errors.New("game: no such slot")
	ErrEmptyID     = errors.New("game: empty player id")
)

// SlotTakenError is returned by Join when the requested slot is taken. It
// matches ErrSlotTaken, and also ErrRoomFull when no slot is free.
type SlotTakenError struct {
	Slot int
	Free []int // free slots, ascending
}

func (e *SlotTakenError) Error() string {
	if len(e.Free) == 0 {
		return fmt.Sprintf("game: slot %d is taken and no slot is free", e.Slot)
	}
	free := make([]string, len(e.Free))
	for i, s := range e.Free {
		free[i] = strconv.Itoa(s)
	}
	return fmt.Sprintf("game: slot %d is taken; free slots: %s", e.Slot, strings.Join(free, ", "))
}

func (e *SlotTakenError) Is(target error) bool {
	return target == ErrSlotTaken || (target == ErrRoomFull && len(e.Free) == 0)
}

// NextSeed derives a rematch's seed from the previous one (splitmix64), so a
// room's whole sequence of matches follows from its first seed.
func NextSeed(seed uint64) uint64 {
	z := seed + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Room runs one game authoritatively. Its state belongs to the goroutine
// running Run; everything else reaches it through channels (control calls,
// Submit) or reads what it published (Latest, Stats), so a slow or dead
// session can never stall it.
type Room struct {
	id      string
	cfg     RoomConfig
	clock   Clock
	factory Factory
	hooks   Hooks

	// Shared with other goroutines.
	ctl       chan ctlReq
	inputs    chan submission
	done      chan struct{}
	mail      mailbox
	stats     tickCounters
	accepting atomic.Bool // a game is running, so Submit queues inputs
	ran       atomic.Bool

	// Owned by the Run goroutine from here on.
	loop roomLoop

	// remote, for a room that runs on another node (NewRemoteRoom), is
	// where its control calls and inputs go; nil for a room run here.
	remote    RemoteLink
	closeOnce sync.Once
}

// NewRoom makes a room in Waiting, with its first frame already published.
// The factory is called once here (for the slot count and a frame to show
// while waiting) and again for each match.
func NewRoom(id string, cfg RoomConfig, newGame Factory, seed uint64) *Room {
	g := newGame(seed)
	cfg = cfg.withDefaults(g.Slots())
	r := &Room{
		id:      id,
		cfg:     cfg,
		clock:   cfg.Clock,
		factory: newGame,
		ctl:     make(chan ctlReq),
		inputs:  make(chan submission, cfg.InputBuffer),
		done:    make(chan struct{}),
	}
	r.loop.init(r, g, seed)
	return r
}

// ID returns the room's id.
func (r *Room) ID() string { return r.id }

// SetHooks installs hooks. Call it before Run; it panics afterwards, since
// the room goroutine reads them without synchronisation.
func (r *Room) SetHooks(h Hooks) {
	if r.ran.Load() {
		panic("game: Room.SetHooks called after Run")
	}
	r.hooks = h
}

// Grace is how long a dropped player's seat is kept.
func (r *Room) Grace() time.Duration { return r.cfg.Grace }

// Run owns the room until ctx is done (it returns ctx.Err()) or the room is
// disposed of (it returns nil). It starts no other goroutine.
//
// A panic on the room goroutine (in the game's Step, Snapshot, Hash,
// Result, Join or Leave, in a factory, or in a hook) ends this room alone:
// Run publishes a Closed frame marked Failed and returns a *RoomPanic
// saying where the room was and who played the interrupted match. The
// caller logs it and records the match as aborted; every other room plays
// on. The room's state is not trusted after a panic, so it never resumes.
func (r *Room) Run(ctx context.Context) (err error) {
	if r.remote != nil {
		return errors.New("game: Room.Run on a room that runs on another node")
	}
	if !r.ran.CompareAndSwap(false, true) {
		return errors.New("game: Room.Run called twice")
	}
	defer close(r.done)
	// Stop before closing done: a FakeClock waiting on this timer is
	// released, and a real one is not left armed.
	defer r.loop.timer.Stop()
	defer func() {
		if v := recover(); v != nil {
			err = r.loop.fail(v, debug.Stack())
		}
	}()
	return r.loop.run(ctx)
}

// RoomPanic is what Run returns when the room goroutine panicked.
type RoomPanic struct {
	Room  string
	Value any    // what was passed to panic
	Stack []byte // the panicking goroutine's stack
	Phase Phase  // the room's phase when it panicked
	Tick  uint64 // game ticks stepped in the current match
	Seed  uint64 // the current match's seed
	// Seats is, per slot, who played the current match (or the last one,
	// in Finished), Connected false for a player who had left it; nil when
	// no match has left its first countdown. Whether that match still
	// needs recording is for whoever records matches to know.
	Seats []Seat
}

func (e *RoomPanic) Error() string {
	return fmt.Sprintf("game: room %s panicked (%s, tick %d): %v", e.Room, e.Phase, e.Tick, e.Value)
}

// Done is closed when Run returns.
func (r *Room) Done() <-chan struct{} { return r.done }

// ControlOp is one of a room's control calls, as a remote room carries it
// to the node that owns the room (RemoteLink).
type ControlOp uint8

// The control calls, in the order of their wire codes (never reordered).
const (
	OpJoin ControlOp = iota
	OpLeave
	OpDisconnect
	OpReady
	OpEvict
)

type ctlKind = ControlOp

const (
	ctlJoin       = OpJoin
	ctlLeave      = OpLeave
	ctlDisconnect = OpDisconnect
	ctlReady      = OpReady
	ctlEvict      = OpEvict
)

type ctlReq struct {
	kind   ctlKind
	player Player
	slot   int
	ready  bool
	reply  chan ctlResp // buffered: the room never waits on a caller
}

type ctlResp struct {
	slot int
	err  error
}

// call hands req to the room goroutine. Giving up is only possible before
// the room accepts it; afterwards the room replies within the same turn of
// its loop, and reporting anything but its answer would misstate what
// happened.
func (r *Room) call(ctx context.Context, req ctlReq) ctlResp {
	if r.remote != nil {
		return r.callRemote(ctx, req)
	}
	req.reply = make(chan ctlResp, 1)
	select {
	case r.ctl <- req:
	case <-ctx.Done():
		return ctlResp{slot: -1, err: ctx.Err()}
	case <-r.done:
		return ctlResp{slot: -1, err: ErrClosed}
	}
	// A room that panics while handling the request never answers it;
	// its goroutine is gone, so done tells the caller.
	select {
	case resp := <-req.reply:
		return resp
	case <-r.done:
		select {
		case resp := <-req.reply: // answered, then closed
			return resp
		default:
			return ctlResp{slot: -1, err: ErrClosed}
		}
	}
}

// Join seats p in slot (-1: the first free one) and returns the slot. A
// player already seated, e.g. reconnecting within grace or from a second
// terminal, gets their own slot back (whatever slot asked for) and is
// marked connected again. Each successful Join is one attachment of a
// session to the seat; the session ends it with Disconnect or Leave.
func (r *Room) Join(ctx context.Context, p Player, slot int) (int, error) {
	resp := r.call(ctx, ctlReq{kind: ctlJoin, player: p, slot: slot})
	return resp.slot, resp.err
}

// Leave gives up the seat for good. During a match that is a forfeit
// (Game.Leave); during the first countdown, before anything was played, it
// cancels the countdown and the room waits again (unless Binding). A player
// attached from several sessions (Join more than once) keeps the seat until
// the last of them leaves or disconnects: one terminal closing the game does
// not forfeit the match another is playing.
func (r *Room) Leave(ctx context.Context, id PlayerID) error {
	return r.call(ctx, ctlReq{kind: ctlLeave, player: Player{ID: id}}).err
}

// Evict takes the player's seat away for good, from every session at
// once: a Leave (a forfeit in a match under way) that no other terminal of
// theirs keeps off and no grace delays. A ban or kick uses it, so the
// others are not left waiting out a grace for someone who cannot return.
func (r *Room) Evict(ctx context.Context, id PlayerID) error {
	return r.call(ctx, ctlReq{kind: ctlEvict, player: Player{ID: id}}).err
}

// Disconnect reports that one of the player's sessions dropped. While
// another session of theirs is attached the seat stays connected. Otherwise,
// during Countdown or Playing the seat is kept for Grace and the game pauses
// (nobody loses points to a dropped connection); after Grace it is a Leave.
// Otherwise it is a Leave at once.
func (r *Room) Disconnect(ctx context.Context, id PlayerID) error {
	return r.call(ctx, ctlReq{kind: ctlDisconnect, player: Player{ID: id}}).err
}

// SetReady marks the player ready (or not). In Waiting the match starts when
// at least MinPlayers are seated and all are ready; in Finished, ready asks
// for a rematch, which starts when all seated (at least MinPlayers) are,
// and in an AutoStart room only with every Expected player seated. It
// returns ErrStarted during Countdown and Playing.
func (r *Room) SetReady(ctx context.Context, id PlayerID, ready bool) error {
	return r.call(ctx, ctlReq{kind: ctlReady, player: Player{ID: id}, ready: ready}).err
}

type submission struct {
	id PlayerID
	in Input
}

// Submit queues an input for the next tick without ever blocking. in.Slot
// must be the sender's own slot; anything else is rejected and counted on
// the sender's seat. It returns false when the input was not queued: no game
// is running, the room is closed, or the buffer is full (counted in
// TickStats.InputsDropped).
func (r *Room) Submit(id PlayerID, in Input) bool {
	if r.remote != nil {
		return r.remote.Submit(id, in)
	}
	if !r.accepting.Load() {
		return false
	}
	select {
	case r.inputs <- submission{id: id, in: in}:
		return true
	default:
		r.stats.inputsDropped.Add(1)
		return false
	}
}

// Latest returns the newest frame and a channel closed when a newer one is
// published. The Closed frame is the last: its channel is never closed, so
// stop on Phase == Closed (or select on Done too).
func (r *Room) Latest() (*Frame, <-chan struct{}) { return r.mail.latest() }

// LatestAt returns the newest frame and when it was published, for readers
// that poll at their own pace rather than wake for every tick.
func (r *Room) LatestAt() (*Frame, time.Time) { return r.mail.latestAt() }

// Stats is safe from any goroutine.
func (r *Room) Stats() TickStats { return r.stats.snapshot() }
