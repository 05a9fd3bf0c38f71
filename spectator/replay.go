package spectator

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/termarena/termarena/game"
)

// FormatVersion is the replay encoding Encode writes. Bump it whenever the
// meaning or layout of any field changes: an old decoder must refuse what
// it cannot replay rather than re-simulate something else. A game's own
// config is the game's to version (it is opaque bytes here). Decode also
// reads every earlier version still stored (see formatLag, formatGeneric).
//
// Version 2 added InputChange.Lag. Version 3 made the format game-neutral:
// the config is the game's encoding, the seat count is recorded, and an
// input is a whole slot and action rather than Pong's packed direction.
// Version 4 made the result's forfeit flag a flags byte that also says a
// match was aborted (Replay.Aborted).
const FormatVersion = 4

// formatAborted is the first version that can hold an aborted match.
const formatAborted = 4

// formatLag is the first version whose inputs carry Lag; older inputs have
// none, which is what they were played with.
const formatLag = 2

// MaxLag bounds InputChange.Lag: a second at the highest tick rate, which
// is the most game.RoomConfig.LagCompensation allows.
const MaxLag = game.MaxTickRate

// formatGeneric is the first game-neutral version. Versions 1 and 2 were
// written when Pong was the only game: their body holds Pong's config
// inline (a mode byte and eleven zig-zag varints, which is byte for byte
// the encoding Pong's config still has), their seat count follows from
// that mode byte (two for mode 0, 1v1, else four) and an input packs a
// two-bit slot and a direction.
const formatGeneric = 3

// MaxSlots bounds a replay's seats (the most any game has is 8).
const MaxSlots = 16

// maxConfig bounds a game's encoded config.
const maxConfig = 4096

// MaxTicks bounds a replay's length (about 19 hours at 60 Hz). It keeps a
// hostile or corrupt replay from asking playback to simulate for hours, and
// the recorder drops a match that runs longer rather than hand over a
// replay that Decode would refuse.
const MaxTicks = 1 << 22

// maxString bounds room ids, player ids and names in a replay; real ones
// are far shorter, and the bound keeps Decode from allocating on a length
// prefix alone.
const maxString = 1024

// Replay is everything needed to re-simulate one match and show who played
// it. For a game whose inputs hold (game.Mode.HeldInputs: a Pong paddle's
// direction) the log is sparse: an input is recorded only on the tick its
// slot's action changed, which is all such a step reads.
type Replay struct {
	// Version is the format the replay was decoded from; the recorder sets
	// FormatVersion.
	Version int
	// Game is the game.Kind's name, and Config its encoded config: the
	// catalogue's game of that name rebuilds the match from them.
	Game   string
	Room   string
	Config []byte
	// Slots is the number of seats.
	Slots int
	Seed  uint64
	// TickRate is the room's ticks per second, for turning ticks into time.
	TickRate int
	// Seats is, per slot, who played it (the last player to hold it); a
	// zero Player means nobody did.
	Seats []game.Player
	// Start is when play began (wall clock, for listings).
	Start time.Time
	// Ticks is the number of game steps in the match. Pauses do not step,
	// so they take no room and do not show in playback.
	Ticks  uint64
	Inputs []InputChange
	// SeatEvents are the Join and Leave calls the room made on the game, in
	// order: those at tick 0 seat the players before the first step; later
	// ones are late joins and forfeits.
	SeatEvents []SeatEvent
	// Hashes are periodic game.Hash values taken right after a step.
	Hashes []TickHash
	// FinalHash is the game's hash once the match ended, after any seat
	// event that ended it (a forfeit), so playback checks the end state too.
	FinalHash uint64
	Result    game.Result
	// Aborted: the match was cut short (the server stopped mid-match), so
	// it has no result. Ticks ends at the last tick the recorder hashed,
	// FinalHash is that hash, Result places nobody, and playback ends
	// there checking the state but not a result.
	Aborted bool
}

// InputChange is one input applied at step Tick (1-based): for a game with
// held inputs it sets slot's action, and the view lag its player is judged
// with, from then on.
type InputChange struct {
	Tick   uint64
	Slot   uint8
	Action int8   // game-defined (Pong: -1, 0 or +1)
	Lag    uint16 // game.Input.Lag, in ticks; 0 in replays before format 2
}

// SeatEventKind is what happened to a seat.
type SeatEventKind uint8

// Seat event kinds.
const (
	SeatJoin  SeatEventKind = 1
	SeatLeave SeatEventKind = 2
)

func (k SeatEventKind) String() string {
	switch k {
	case SeatJoin:
		return "join"
	case SeatLeave:
		return "leave"
	}
	return fmt.Sprintf("SeatEventKind(%d)", uint8(k))
}

// SeatEvent is a Join or Leave the room made after Tick steps (before step
// Tick+1). The room makes them between steps, so that is exactly where
// re-simulation has to make them too.
type SeatEvent struct {
	Tick uint64
	Slot uint8
	Kind SeatEventKind
}

// TickHash is the game's hash right after step Tick.
type TickHash struct {
	Tick uint64
	Hash uint64
}

// ErrInvalidReplay is matched by every error Validate (and so Encode,
// Decode and NewPlayback) returns for a replay whose contents make no sense.
var ErrInvalidReplay = errors.New("invalid replay")

// Duration is how long the match played, pauses excluded.
func (r *Replay) Duration() time.Duration { return ticksToDuration(r.Ticks, r.TickRate) }

// Validate checks everything playback relies on but the game's own config
// (which only the game can judge: NewPlayback asks it): a named game, seats
// and results sized for the slot count, and logs in tick order within the
// match. Encode and Decode both call it, so a stored replay always plays
// on a server that runs its game.
func (r *Replay) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("spectator: %w: %s", ErrInvalidReplay, fmt.Sprintf(format, args...))
	}
	if r.Game == "" || len(r.Game) > maxString {
		return bad("game name of %d bytes", len(r.Game))
	}
	if len(r.Config) == 0 || len(r.Config) > maxConfig {
		return bad("config of %d bytes", len(r.Config))
	}
	if r.Slots < 1 || r.Slots > MaxSlots {
		return bad("%d slots outside 1..%d", r.Slots, MaxSlots)
	}
	if r.TickRate < 1 || r.TickRate > game.MaxTickRate {
		return bad("tick rate %d outside 1..%d", r.TickRate, game.MaxTickRate)
	}
	if r.Ticks < 1 || r.Ticks > MaxTicks {
		return bad("%d ticks outside 1..%d", r.Ticks, MaxTicks)
	}
	if len(r.Room) > maxString {
		return bad("room id of %d bytes", len(r.Room))
	}
	slots := r.Slots
	if len(r.Seats) != slots {
		return bad("%d seats for %d slots", len(r.Seats), slots)
	}
	for i, p := range r.Seats {
		if len(p.ID) > maxString || len(p.Name) > maxString {
			return bad("seat %d: id or name too long", i)
		}
	}
	var prev uint64
	for i, in := range r.Inputs {
		switch {
		case in.Tick < 1 || in.Tick > r.Ticks:
			return bad("input %d at tick %d outside 1..%d", i, in.Tick, r.Ticks)
		case in.Tick < prev:
			return bad("input %d at tick %d before tick %d", i, in.Tick, prev)
		case int(in.Slot) >= slots:
			return bad("input %d for slot %d of %d", i, in.Slot, slots)
		case in.Lag > MaxLag:
			return bad("input %d lag %d over %d ticks", i, in.Lag, MaxLag)
		}
		prev = in.Tick
	}
	prev = 0
	for i, ev := range r.SeatEvents {
		switch {
		case ev.Tick > r.Ticks:
			return bad("seat event %d at tick %d after the last tick %d", i, ev.Tick, r.Ticks)
		case ev.Tick < prev:
			return bad("seat event %d at tick %d before tick %d", i, ev.Tick, prev)
		case int(ev.Slot) >= slots:
			return bad("seat event %d for slot %d of %d", i, ev.Slot, slots)
		case ev.Kind != SeatJoin && ev.Kind != SeatLeave:
			return bad("seat event %d: %v", i, ev.Kind)
		}
		prev = ev.Tick
	}
	prev = 0
	for i, h := range r.Hashes {
		if h.Tick <= prev || h.Tick > r.Ticks {
			return bad("hash %d at tick %d not after %d and within %d", i, h.Tick, prev, r.Ticks)
		}
		prev = h.Tick
	}
	if r.Aborted && len(r.Result.Placements) > 0 {
		return bad("an aborted match places %d slots", len(r.Result.Placements))
	}
	return validateResult(r.Result, slots, bad)
}

func validateResult(res game.Result, slots int, bad func(string, ...any) error) error {
	if len(res.Places) != slots || len(res.Scores) != slots {
		return bad("result has %d places and %d scores for %d slots", len(res.Places), len(res.Scores), slots)
	}
	if len(res.Placements) > slots {
		return bad("result places %d slots of %d", len(res.Placements), slots)
	}
	var seen uint64
	for _, s := range res.Placements {
		if s < 0 || s >= slots || seen&(1<<s) != 0 {
			return bad("result placement of slot %d", s)
		}
		seen |= 1 << s
	}
	for i, p := range res.Places {
		if p < 0 || p > slots {
			return bad("result place %d for slot %d", p, i)
		}
	}
	for i, sc := range res.Scores {
		// The encoding is portable to 32-bit ints; no Pong score comes close.
		if sc < math.MinInt32 || sc > math.MaxInt32 {
			return bad("result score %d for slot %d", sc, i)
		}
	}
	return nil
}

// ticksToDuration avoids overflowing ticks·second for any tick count.
func ticksToDuration(ticks uint64, rate int) time.Duration {
	if rate <= 0 {
		return 0
	}
	r, sec := uint64(rate), uint64(time.Second)
	return time.Duration((ticks/r)*sec + (ticks%r)*sec/r)
}
