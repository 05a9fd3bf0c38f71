package game

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind is one game as the server knows it: its name, the modes it offers
// and how to build a match from an encoded config. The server's packages
// (lobby, spectator, store, ...) see games only through it, and one
// explicit Catalog, assembled in main, says which games a server runs:
// adding a game is a folder under game/ and a line there.
//
// A config travels as bytes because it is part of what a replay records
// and what a room on another node must rebuild: the game owns its
// encoding, and New must accept every config Setup ever produced for it
// (replays outlive releases).
type Kind interface {
	// Name is the game's stable key ("pong"): replays and ranked modes are
	// filed under it, so it never changes.
	Name() string
	// Title is what menus call it ("Light cycles").
	Title() string
	// Modes lists the formats the game is played in, menus' order.
	Modes() []Mode
	// Setup is the config a new match of mode is played with.
	Setup(mode string) (Setup, error)
	// New builds a match from an encoded config (from Setup or a replay).
	// It fails, rather than panics, on a config it cannot play.
	New(config []byte, seed uint64) (Game, error)
}

// Setup is how one match is configured.
type Setup struct {
	// Config is the game's encoded config.
	Config []byte
	// TickRate is the ticks per second the rules are tuned for; the room
	// runs at it unless an operator set another.
	TickRate int
}

// Mode is one format of a game: who plays, in which seats, and how a
// result counts.
type Mode struct {
	// Name is unique within its game ("1v1", "tron"); players type it.
	// Key is the key that picks it in menus: unique among a game's casual
	// modes, and among every game's ranked modes.
	Name string
	Key  string
	// Title is what menus show ("2v2 teams").
	Title string
	// Seats is the number of slots; MinPlayers how many must be seated
	// for a match to start.
	Seats, MinPlayers int
	// Teams lists each team's slots; nil when everyone plays for
	// themselves. A team's members share a place in every result.
	Teams [][]int
	// Casual: the lobby's create dialog offers it.
	Casual bool
	// Ranked, when not empty, is the name of the rating queue that plays
	// it ("pong-1v1"). Ratings and leaderboards are filed under it, so it
	// never changes. Table is how many players the queue seats at one
	// match.
	Ranked string
	Table  int
	// SeatNames name the seats in slot order, where the game has names
	// for them (Pong's sides); nil: seats are numbered from 1.
	SeatNames []string
	// WarmUp: a lone player in a casual room of the mode may start the
	// game alone to warm up (game.RoomConfig.WarmUp); the game must play
	// on with one seat taken and never end it with a result (Pong
	// re-serves every miss, a lone light cycle wins no round).
	WarmUp bool
	// HeldInputs: an input's action holds until the next one (a Pong
	// paddle's direction), so an input repeating the one before changes
	// nothing and a replay need not keep it. Games whose actions are
	// events (a light cycle's turn) leave it false.
	HeldInputs bool
}

// SeatName is slot's name: its SeatNames entry, else "seat N" (from 1).
func (m Mode) SeatName(slot int) string {
	if slot >= 0 && slot < len(m.SeatNames) {
		return m.SeatNames[slot]
	}
	return fmt.Sprintf("seat %d", slot+1)
}

// ParseSeat finds the seat a player asked for, by its name or its number
// from 1; ok false when the mode has no such seat.
func (m Mode) ParseSeat(s string) (slot int, ok bool) {
	if i := slices.Index(m.SeatNames, strings.ToLower(s)); i >= 0 {
		return i, true
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= m.Seats {
		return n - 1, true
	}
	return -1, false
}

// SeatList says which seats the mode has: "left and right", "1 to 8".
func (m Mode) SeatList() string {
	if len(m.SeatNames) >= m.Seats && m.Seats > 0 {
		names := m.SeatNames[:m.Seats]
		if len(names) < 2 {
			return names[0]
		}
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return fmt.Sprintf("1 to %d", m.Seats)
}

// Team returns the team of slot (its index in Teams), or -1.
func (m Mode) Team(slot int) int {
	for i, t := range m.Teams {
		if slices.Contains(t, slot) {
			return i
		}
	}
	return -1
}

// ActionCanon is a game whose actions have several values that mean the
// same (Pong reads only the sign of a direction). The recorder stores the
// canonical one, so a repeat is known as one and a replay holds each
// action one way.
type ActionCanon interface {
	CanonicalAction(a int8) int8
}

// OneShotAction is a game with held inputs (Mode.HeldInputs) some of whose
// actions act anew each time they are applied, so one repeating the one
// before is not a repeat (a Pong tap moves another cell): the recorder
// keeps every input with such an action.
type OneShotAction interface {
	OneShot(a int8) bool
}

// Scorer is a snapshot that reports each seat's standing score as players
// would quote it (points, lives, rounds won): results written for a match
// cut short keep the score it had.
type Scorer interface {
	Standing() []int
}

// WarmingUp is a snapshot that can say its match has not been contested
// yet (Result.WarmUp, were it to end now): a match cut short while still
// a warm-up is not recorded either.
type WarmingUp interface {
	WarmingUp() bool
}

// Catalog is the games a server runs, in menu order.
type Catalog []Kind

// Kind returns the game named name.
func (c Catalog) Kind(name string) (Kind, bool) {
	for _, k := range c {
		if k.Name() == name {
			return k, true
		}
	}
	return nil, false
}

// Mode returns the mode named mode of the game named game.
func (c Catalog) Mode(game, mode string) (Kind, Mode, bool) {
	k, ok := c.Kind(game)
	if !ok {
		return nil, Mode{}, false
	}
	for _, m := range k.Modes() {
		if m.Name == mode {
			return k, m, true
		}
	}
	return nil, Mode{}, false
}

// Ranked returns the game and mode a rating queue plays.
func (c Catalog) Ranked(queue string) (Kind, Mode, bool) {
	for _, k := range c {
		for _, m := range k.Modes() {
			if m.Ranked != "" && m.Ranked == queue {
				return k, m, true
			}
		}
	}
	return nil, Mode{}, false
}

// ParseRanked finds the rating queue a player named: its full name
// ("pong-1v1"), a ranked mode's name ("1v1"), or the queue's name without
// its game ("ffa4"); the first in catalogue order where two would fit, and
// the first queue of all for "".
func (c Catalog) ParseRanked(s string) (string, bool) {
	queues := c.RankedQueues()
	if s == "" {
		if len(queues) == 0 {
			return "", false
		}
		return queues[0], true
	}
	for _, q := range queues {
		if q == s {
			return q, true
		}
	}
	for _, k := range c {
		for _, m := range k.Modes() {
			if m.Ranked != "" && (m.Name == s || m.Ranked == k.Name()+"-"+s) {
				return m.Ranked, true
			}
		}
	}
	return "", false
}

// RankedQueues lists every rating queue, in menu order.
func (c Catalog) RankedQueues() []string {
	var out []string
	for _, k := range c {
		for _, m := range k.Modes() {
			if m.Ranked != "" {
				out = append(out, m.Ranked)
			}
		}
	}
	return out
}

// Validate checks that names are unique and modes coherent, so a wrong
// entry stops the server at start rather than confusing a lobby.
func (c Catalog) Validate() error {
	games := map[string]bool{}
	queues := map[string]bool{}
	rankedKeys := map[string]bool{}
	for _, k := range c {
		if k.Name() == "" || games[k.Name()] {
			return fmt.Errorf("game: catalog: empty or repeated game name %q", k.Name())
		}
		games[k.Name()] = true
		modes := map[string]bool{}
		keys := map[string]bool{}
		for _, m := range k.Modes() {
			if m.Casual {
				if m.Key == "" || keys[m.Key] {
					return fmt.Errorf("game: catalog: %s %s: empty or repeated menu key %q", k.Name(), m.Name, m.Key)
				}
				keys[m.Key] = true
			}
			if m.Name == "" || modes[m.Name] {
				return fmt.Errorf("game: catalog: %s: empty or repeated mode name %q", k.Name(), m.Name)
			}
			modes[m.Name] = true
			if m.Seats < 1 || m.MinPlayers < 1 || m.MinPlayers > m.Seats {
				return fmt.Errorf("game: catalog: %s %s: %d seats, %d to start", k.Name(), m.Name, m.Seats, m.MinPlayers)
			}
			if m.Ranked != "" {
				if m.Table < 2 || m.Table > m.Seats {
					return fmt.Errorf("game: catalog: %s %s: a ranked table of %d for %d seats", k.Name(), m.Name, m.Table, m.Seats)
				}
				if m.Key == "" || rankedKeys[m.Key] {
					return fmt.Errorf("game: catalog: ranked %s: empty or repeated menu key %q", m.Ranked, m.Key)
				}
				rankedKeys[m.Key] = true
				if queues[m.Ranked] {
					return fmt.Errorf("game: catalog: ranked queue %q named twice", m.Ranked)
				}
				queues[m.Ranked] = true
			}
			if _, err := k.Setup(m.Name); err != nil {
				return fmt.Errorf("game: catalog: %s %s: %w", k.Name(), m.Name, err)
			}
		}
	}
	return nil
}

// SnapshotCodec is a Kind whose snapshots can cross a network: a room
// played from another node of a cluster travels as frames whose State the
// game encodes (EncodeFrame, DecodeFrame). DecodeSnapshot reads bytes from
// the network, so it checks every count and value against what the game
// can draw and fails, never panics, on bytes it did not write; it
// allocates no more than the bytes justify.
type SnapshotCodec interface {
	// AppendSnapshot appends the encoding of state (a value Game.Snapshot
	// returned) to b.
	AppendSnapshot(b []byte, state any) ([]byte, error)
	// DecodeSnapshot reads what AppendSnapshot wrote, as the same type.
	DecodeSnapshot(data []byte) (any, error)
}
