// Package game owns the authoritative room loop and the Game interface that
// every game implements.
//
// The split follows Nakama's match handler: a Game sees only its own state,
// the tick, seat changes and the validated inputs of that tick. It knows
// nothing of SSH, Bubble Tea or the store, which keeps it deterministic and
// lets a recorded (config, seed, inputs) log reproduce a match exactly.
package game

// Input is one player action, applied at the next tick boundary.
//
// Slot is the seat the sender claims; the room applies an input only when
// it is the sender's own seat, and counts the rest as misbehaviour. Seq is
// the client's own monotonically increasing sequence
// number; the room reports the last applied Seq per seat in every Frame so
// the client can reconcile its prediction. Action is game-defined (for Pong:
// the paddle direction -1, 0 or +1).
//
// Seen and Lag are for latency-fair judging. The sender sets Seen: the room
// tick its player's screen showed when the key was pressed (0 = unknown).
// The room overwrites Lag with how many ticks old that view is by the time
// the input is applied, capped by RoomConfig.LagCompensation (0 when off or
// unknown); a game judges that seat's actions against its state that many
// ticks back. Lag is what a game reads and a replay records, so a replay
// never depends on when anything arrived.
type Input struct {
	Slot   int
	Seq    uint32
	Action int8
	Lag    uint16
	Seen   uint64
}

// Game is the state machine a room drives. All methods are called from the
// room's goroutine only, so implementations need no locking.
type Game interface {
	// Slots is the number of seats (Pong: 2 or 4).
	Slots() int
	// Join seats a player in slot before or during play (casual rooms admit
	// joiners between points). It fails if the slot is taken or invalid.
	Join(slot int) error
	// Leave removes the player in slot for good: in Pong the side becomes a
	// wall, and the game may end because of it (a forfeit).
	Leave(slot int)
	// Step advances exactly one tick with the inputs of that tick, already
	// validated by the room (each input is for its sender's own slot). The
	// slice is reused by the room: a game must not keep it.
	Step(inputs []Input)
	// Snapshot returns an immutable view of the current state; the room
	// shares it with every subscriber goroutine, so it must never be mutated
	// after it is returned.
	Snapshot() any
	// Result reports placements and scores once the game is over.
	Result() (Result, bool)
	// Hash is a digest of the whole simulation state (positions, velocities,
	// scores, RNG state, tick). Equal hashes every tick is what determinism
	// and replay verification check.
	Hash() uint64
}

// Result is how a finished game ranked its seats.
type Result struct {
	// Placements lists slots from first place to last. Slots that tie share
	// a place, ranked densely (a tie for first is followed by second);
	// Places[i] gives the 1-based place of slot i (0 = not seated).
	Placements []int
	Places     []int
	// Scores is the per-slot score (points in 1v1/2v2, lives left in FFA).
	Scores []int
	// Forfeit is true when the game ended because seats left rather than
	// by play.
	Forfeit bool
	// WarmUp is true when nothing was ever at stake: the game ended (its
	// players left) without two sides having contended (Pong: a 2v2 of
	// one team, where misses only re-serve). A warm-up is not a match: it
	// is not recorded, and no replay is kept. Never true of a match a
	// replay holds, so replays do not encode it.
	WarmUp bool
}
