package tron

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Mode is the match format.
type Mode uint8

const (
	// Casual is the lobby's light-cycle room: 2 to 8 riders, late joiners
	// ride from the next round.
	Casual Mode = iota
	// FFA is ranked free-for-all through the queue: 4 to 6 riders. Four is
	// the least for which a placement-scored rating measures more than a
	// duel, and six keeps the start ring roomy enough (47 cells between
	// neighbours on the default arena, against 35 with eight) that the
	// opening is decided by steering rather than by who was placed next to
	// whom, which matters once the result moves a rating.
	FFA
)

// String gives the mode's name as the lobby and `play` spell it.
func (m Mode) String() string {
	switch m {
	case Casual:
		return "tron"
	case FFA:
		return "tron-ffa"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// ParseMode accepts the names String produces.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "tron":
		return Casual, nil
	case "tron-ffa":
		return FFA, nil
	}
	return 0, fmt.Errorf("tron: unknown mode %q (want tron or tron-ffa)", s)
}

// Ranked reports whether the mode is played through the rating queue.
func (m Mode) Ranked() bool { return m == FFA }

// Config is everything that shapes a match. It is part of what a replay
// records: the same Config, seed and inputs give the same match.
type Config struct {
	Mode Mode
	// Players is the number of seats; MinPlayers is how many a room needs
	// to start.
	Players, MinPlayers int
	// Width and Height of the arena in cells. Every player gets the same
	// arena whatever their terminal, so nobody sees further by resizing.
	Width, Height int
	// MoveEvery is the number of ticks between moves: every cycle moves
	// one cell each MoveEvery ticks.
	MoveEvery int
	// RoundsToWin ends the match: the first rider to win that many rounds.
	RoundsToWin int
	// PauseTicks is how long the arena stays frozen after a round ends, so
	// everyone sees who crashed where, before it is cleared.
	PauseTicks int
	// ReadyTicks is how long the cycles hold still at their new starting
	// cells after a reset, so riders find themselves before moving. The
	// first round has none: the room's countdown already serves.
	ReadyTicks int
	// TickRate is the room's ticks per second. The rules never read it (they
	// count ticks); views use it to turn ticks into time.
	TickRate int
}

// MaxPlayers is the most seats any config may have: one bit per seat in
// the masks the state keeps, and eight colours a terminal can tell apart.
const MaxPlayers = 8

// Limits enforced by Validate. The arena bound keeps cell indices and
// coordinates in int16 and the grid under 64 KiB per snapshot.
const (
	minArena    = 16
	maxArena    = 255
	maxMove     = 60 // one cell a second at 60 Hz is already a crawl
	maxCount    = 1 << 20
	maxTickRate = 1000
)

// DefaultConfig is tuned for 60 ticks per second. The 120×72 arena is
// larger than an 80×24 terminal shows at full resolution (those follow
// their cycle), and drawn with half blocks it is 120 columns × 36 rows, so a
// 200×50 terminal shows it whole with a border and HUD. A move every 3
// ticks is 20 cells a second: the arena's width in 6 s, its height in
// 3.6 s, and the half-screen an 80×24 camera shows ahead in about 2 s,
// which leaves room for a round trip over ssh without feeling sluggish.
// A round ends frozen for 1.5 s, and the next starts after 1 s of holding
// still.
func DefaultConfig(m Mode) Config {
	c := Config{
		Mode:        m,
		Players:     8,
		MinPlayers:  2,
		Width:       120,
		Height:      72,
		MoveEvery:   3,
		RoundsToWin: 3,
		PauseTicks:  90,
		ReadyTicks:  60,
		TickRate:    60,
	}
	if m == FFA {
		c.Players, c.MinPlayers = 6, 4
	}
	return c
}

// Slots is the number of seats.
func (c Config) Slots() int { return c.Players }

// Validate reports every reason the config cannot run. New panics on a
// config that fails it, so callers building configs from user input (or a
// replay file) should call it first.
func (c Config) Validate() error {
	var errs []error
	if c.Mode > FFA {
		errs = append(errs, fmt.Errorf("unknown mode %d", c.Mode))
	}
	if c.Players < 1 || c.Players > MaxPlayers {
		errs = append(errs, fmt.Errorf("players %d outside 1..%d", c.Players, MaxPlayers))
	}
	if c.MinPlayers < 1 || c.MinPlayers > c.Players {
		errs = append(errs, fmt.Errorf("min players %d outside 1..%d", c.MinPlayers, c.Players))
	}
	if c.Width < minArena || c.Width > maxArena || c.Height < minArena || c.Height > maxArena {
		errs = append(errs, fmt.Errorf("arena %dx%d outside %d..%d cells", c.Width, c.Height, minArena, maxArena))
	}
	if c.MoveEvery < 1 || c.MoveEvery > maxMove {
		errs = append(errs, fmt.Errorf("move every %d ticks outside 1..%d", c.MoveEvery, maxMove))
	}
	if c.RoundsToWin < 1 || c.RoundsToWin > maxCount {
		errs = append(errs, fmt.Errorf("rounds to win %d outside 1..%d", c.RoundsToWin, maxCount))
	}
	if c.PauseTicks < 0 || c.PauseTicks > maxCount {
		errs = append(errs, fmt.Errorf("pause %d outside 0..%d ticks", c.PauseTicks, maxCount))
	}
	if c.ReadyTicks < 0 || c.ReadyTicks > maxCount {
		errs = append(errs, fmt.Errorf("ready %d outside 0..%d ticks", c.ReadyTicks, maxCount))
	}
	if c.TickRate < 1 || c.TickRate > maxTickRate {
		errs = append(errs, fmt.Errorf("tick rate %d outside 1..%d", c.TickRate, maxTickRate))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("tron: invalid config: %w", errors.Join(errs...))
}

// configVersion is the first byte of an encoded Config. A new field means a
// new version; UnmarshalBinary keeps reading every older one.
const configVersion = 1

// ErrConfigEncoding is matched by every error UnmarshalBinary returns.
var ErrConfigEncoding = errors.New("tron: bad config encoding")

// AppendBinary appends the versioned encoding of c to b: the version byte,
// the mode byte, then every other field as a uvarint in declaration order.
func (c Config) AppendBinary(b []byte) ([]byte, error) {
	if err := c.Validate(); err != nil {
		return b, err
	}
	b = append(b, configVersion, byte(c.Mode))
	for _, v := range c.fields() {
		b = binary.AppendUvarint(b, uint64(v))
	}
	return b, nil
}

// MarshalBinary is AppendBinary to a new slice.
func (c Config) MarshalBinary() ([]byte, error) { return c.AppendBinary(make([]byte, 0, 16)) }

func (c *Config) fields() [9]int {
	return [9]int{c.Players, c.MinPlayers, c.Width, c.Height, c.MoveEvery,
		c.RoundsToWin, c.PauseTicks, c.ReadyTicks, c.TickRate}
}

// UnmarshalBinary decodes exactly what MarshalBinary wrote and validates
// it, so a decoded config always runs.
func (c *Config) UnmarshalBinary(data []byte) error {
	n, err := c.decode(data)
	if err != nil {
		return err
	}
	if n != len(data) {
		return fmt.Errorf("%w: %d trailing bytes", ErrConfigEncoding, len(data)-n)
	}
	return nil
}

// decode reads one encoded config from the front of data and returns how
// many bytes it used.
func (c *Config) decode(data []byte) (int, error) {
	if len(data) < 2 {
		return 0, fmt.Errorf("%w: %d bytes", ErrConfigEncoding, len(data))
	}
	if data[0] != configVersion {
		return 0, fmt.Errorf("%w: version %d (want %d)", ErrConfigEncoding, data[0], configVersion)
	}
	d := Config{Mode: Mode(data[1])}
	ptrs := [9]*int{&d.Players, &d.MinPlayers, &d.Width, &d.Height, &d.MoveEvery,
		&d.RoundsToWin, &d.PauseTicks, &d.ReadyTicks, &d.TickRate}
	off := 2
	for i, p := range ptrs {
		v, n := binary.Uvarint(data[off:])
		if n <= 0 || v > maxCount {
			return 0, fmt.Errorf("%w: field %d", ErrConfigEncoding, i)
		}
		*p = int(v)
		off += n
	}
	if err := d.Validate(); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrConfigEncoding, err)
	}
	*c = d
	return off, nil
}
