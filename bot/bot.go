// Package bot owns server-side players without a connection: the driver
// that seats a game's brain in a room and plays it through exactly the
// path a person's keys take (Room.Submit, with the room's per-tick caps),
// showing it only the frames a seat's screen is shown, late by a human
// reaction time. The brains themselves are each game's (game/NAME/bot),
// handed to the server through the games/ catalogue as views are, so this
// package names no game.
package bot

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/termarena/termarena/game"
)

// Levels is how many levels every game's bots have, 1 (a beginner can
// beat it) to Levels (strongest).
const Levels = 5

// IDPrefix starts every bot's player id, so that what counts players
// (results, leaderboards, who) can tell a bot from a person without
// asking this package.
const IDPrefix = "bot:"

// IsBot reports whether id is a bot's.
func IsBot(id game.PlayerID) bool { return strings.HasPrefix(string(id), IDPrefix) }

// Player is the identity a bot sits down with: "bot:3:1" plays slot 1 at
// level 3; its name says what it is. It is a guest's, so nothing keyed by
// a player's key (ratings, profiles, replays kept per player) ever
// counts it: a match record names it and no more.
func Player(level, slot int) game.Player {
	return game.Player{
		ID:    game.PlayerID(fmt.Sprintf("%s%d:%d", IDPrefix, level, slot)),
		Name:  fmt.Sprintf("bot-L%d", level),
		Guest: true,
	}
}

// Level is the level of the bot whose id Player made ("bot:3:1" is level
// 3), false for an id that is not one: a node that takes over another's
// room seats the same bots again from the ids its log names.
func Level(id game.PlayerID) (int, bool) {
	rest, ok := strings.CutPrefix(string(id), IDPrefix)
	if !ok {
		return 0, false
	}
	l, _, _ := strings.Cut(rest, ":")
	n, err := strconv.Atoi(l)
	if err != nil || n < 1 || n > Levels {
		return 0, false
	}
	return n, true
}

// View is what a bot's seat shows when it acts.
type View struct {
	// Seen is the game's snapshot (Frame.State) its screen showed
	// Reflex.Delay ticks ago: what the bot is reacting to. Brains read
	// the ball, the other players and the board from it.
	Seen any
	// Now is the snapshot on its screen now. Brains read only their own
	// seat from it (where their own paddle or cycle is), as a person
	// knows what their own keys did; everything else there would be
	// reading faster than a person can react.
	Now any
	// Slot is the bot's seat.
	Slot int
}

// Brain is one game's player for one seat at one level. Act is called on
// the bot's goroutine for each new frame in play and returns the actions
// (game.Input.Action) to send now, usually none; a brain keeps its own
// state between calls, and is never shared between seats.
type Brain interface {
	Act(v View) []int8
}

// Reflex is how quickly a level reacts, and the driver enforces it for
// every brain alike: the brain sees the game Delay ticks late, and sends
// at most one batch of actions every Gap ticks.
type Reflex struct {
	Delay int // ticks between what the screen showed and what the brain acts on
	Gap   int // least ticks between two sends (a key rate)
	// Jitter adds up to this many ticks to Delay, drawn afresh after
	// every send from Seed: a person is not equally quick every time,
	// and without it two bots of fixed habits would replay one match
	// whatever the seed.
	Jitter int
	Seed   uint64
}

// Maker makes a brain for a mode of one game at level (1..Levels), for
// slot, its random choices from seed. The games/ catalogue hands one per
// game to the server.
type Maker func(mode string, level, slot int, seed uint64) (Brain, Reflex, error)

// MaxActions bounds the actions one send carries, under the room's
// per-tick cap (game.DefaultMaxInputsPerTick), so a bot never has an
// input dropped that a person's would not have.
const MaxActions = 2

// Seat is one bot in one seat: the delay line between frames and its
// brain, and the inputs it sends. It is not safe for concurrent use: one
// goroutine (Run, or a headless match) drives it.
type Seat struct {
	slot   int
	brain  Brain
	reflex Reflex
	seq    uint32
	// hist holds the frames in play since the newest match started,
	// oldest first, trimmed to what the delay still needs.
	hist     []*game.Frame
	lastSend uint64
	sent     bool
	// delay is the reaction time in force, Delay plus this send's jitter.
	delay int
	rng   uint64
}

// NewSeat seats brain in slot.
func NewSeat(slot int, brain Brain, r Reflex) *Seat {
	r.Delay = max(r.Delay, 0)
	r.Gap = max(r.Gap, 1)
	r.Jitter = max(r.Jitter, 0)
	s := &Seat{slot: slot, brain: brain, reflex: r, rng: r.Seed}
	s.redraw()
	return s
}

// redraw draws the next reaction time (splitmix64: the same as the
// games' RNG, without importing a game).
func (s *Seat) redraw() {
	s.delay = s.reflex.Delay
	if s.reflex.Jitter == 0 {
		return
	}
	s.rng += 0x9e3779b97f4a7c15
	z := s.rng
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	s.delay += int(z % uint64(s.reflex.Jitter+1))
}

// Slot is the seat's slot.
func (s *Seat) Slot() int { return s.slot }

// Observe takes the newest frame the seat's screen got and returns the
// inputs to submit for it (nil while not playing, while the frame the
// delay needs is not there yet, or while the last send is under Gap ticks
// old). Frames may be skipped; the delay is counted in game ticks.
func (s *Seat) Observe(f *game.Frame) []game.Input {
	if f.Phase != game.Playing || f.State == nil {
		if f.Phase != game.Countdown {
			s.hist, s.sent = s.hist[:0], false
		}
		return nil
	}
	if n := len(s.hist); n > 0 && (s.hist[n-1].Seed != f.Seed || s.hist[n-1].Tick > f.Tick) {
		// A new match (a rematch) started: the old one's frames mean nothing.
		s.hist, s.sent = s.hist[:0], false
	}
	if n := len(s.hist); n == 0 || s.hist[n-1].Tick != f.Tick {
		s.hist = append(s.hist, f)
	}
	// The newest frame at least Delay ticks old is what the brain sees;
	// older ones are dropped.
	want := int64(f.Tick) - int64(s.delay)
	seen := -1
	for i, h := range s.hist {
		if int64(h.Tick) <= want {
			seen = i
		}
	}
	if seen < 0 {
		return nil
	}
	s.hist = append(s.hist[:0], s.hist[seen:]...)
	if s.sent && f.Tick < s.lastSend+uint64(s.reflex.Gap) {
		return nil
	}
	acts := s.brain.Act(View{Seen: s.hist[0].State, Now: f.State, Slot: s.slot})
	if len(acts) == 0 {
		return nil
	}
	acts = acts[:min(len(acts), MaxActions)]
	s.sent, s.lastSend = true, f.Tick
	s.redraw()
	out := make([]game.Input, len(acts))
	for i, a := range acts {
		s.seq++
		// Seen is the tick on the screen when the key went, as a
		// person's view sends it, not the older one reacted to: the
		// room's lag compensation is for the network, not for the
		// reaction time.
		out[i] = game.Input{Slot: s.slot, Seq: s.seq, Action: a, Seen: f.Tick}
	}
	return out
}
