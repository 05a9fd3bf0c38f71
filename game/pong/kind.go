package pong

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/termarena/termarena/game"
)

// Kind is Pong as the server's catalogue lists it (game.Kind).
type Kind struct {
	// Configure, when set, gives the config a mode is played with
	// (operators and tests: shorter matches, other boards); nil means
	// DefaultConfig.
	Configure func(Mode) Config
}

var _ game.Kind = Kind{}

// Name is the key replays and ranked modes are filed under.
func (Kind) Name() string { return "pong" }

// Title is what menus call the game.
func (Kind) Title() string { return "Pong" }

// Teams2v2 are 2v2's teams, each a new list: left and right against top
// and bottom.
func Teams2v2() [][]int { return [][]int{{Left, Right}, {Top, Bottom}} }

// Modes are 1v1, four-player free-for-all and 2v2, each casual and ranked.
// A paddle's direction holds until the next key, so inputs are held.
func (Kind) Modes() []game.Mode {
	return []game.Mode{
		{Name: OneVOne.String(), Key: "1", Title: "1v1", Seats: 2, MinPlayers: 2, Casual: true, WarmUp: true, Ranked: "pong-1v1", Table: 2, HeldInputs: true, SeatNames: SideNames(2)},
		{Name: TwoVTwo.String(), Key: "2", Title: "2v2", Seats: 4, MinPlayers: 2, Teams: Teams2v2(), Casual: true, WarmUp: true, Ranked: "pong-2v2", Table: 4, HeldInputs: true, SeatNames: SideNames(4)},
		{Name: FFA4.String(), Key: "4", Title: "free-for-all", Seats: 4, MinPlayers: 2, Casual: true, WarmUp: true, Ranked: "pong-ffa4", Table: 4, HeldInputs: true, SeatNames: SideNames(4)},
	}
}

// Setup encodes the config a match of mode is played with.
func (k Kind) Setup(mode string) (game.Setup, error) {
	m, err := ParseMode(mode)
	if err != nil {
		return game.Setup{}, err
	}
	c := DefaultConfig(m)
	if k.Configure != nil {
		c = k.Configure(m)
	}
	// A new match plays by the current rules whatever the config was
	// built from: only a replay plays by older ones.
	c.Mode, c.Rules = m, CurrentRules
	if err := c.Validate(); err != nil {
		return game.Setup{}, fmt.Errorf("pong: %s config: %w", m, err)
	}
	b, err := c.MarshalBinary()
	if err != nil {
		return game.Setup{}, err
	}
	return game.Setup{Config: b, TickRate: c.TickRate}, nil
}

// New builds a match from an encoded config.
func (Kind) New(config []byte, seed uint64) (game.Game, error) {
	var c Config
	if err := c.UnmarshalBinary(config); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("pong: config: %w", err)
	}
	return New(c, seed), nil
}

// CanonicalAction is a held direction's sign, which is all a step reads
// of it, and a tap as it is (game.ActionCanon).
func (*Game) CanonicalAction(a int8) int8 {
	if TapTicks(a) > 0 {
		return a
	}
	return int8(sign8(a))
}

// OneShot: a tap acts anew each time, even after the same tap
// (game.OneShotAction).
func (*Game) OneShot(a int8) bool { return TapTicks(a) > 0 }

// ErrConfigEncoding is returned for bytes that are not an encoded Config.
var ErrConfigEncoding = errors.New("pong: bad config encoding")

// MarshalBinary encodes the config as the mode byte followed by every
// number as a zig-zag varint, in field order. It is the layout replays of
// formats 1 and 2 stored inline, so those decode into these bytes as they
// are; a new field goes at the end, and older encodings (shorter) must go
// on decoding to what they were played with. Rules follows the numbers
// only when it is not RulesOriginal, so a config of the original rules
// encodes to the very bytes it always did.
func (c Config) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, 24)
	b = append(b, byte(c.Mode))
	for _, v := range c.numbers() {
		b = binary.AppendVarint(b, v)
	}
	if c.Rules != RulesOriginal {
		b = binary.AppendUvarint(b, uint64(c.Rules))
	}
	return b, nil
}

func (c Config) numbers() []int64 {
	return []int64{
		int64(c.Width), int64(c.Height), int64(c.PaddleLen), int64(c.PaddleSpeed),
		int64(c.BallSpeed), int64(c.SpeedUpPerHit), int64(c.MaxBallSpeed),
		int64(c.PointsToWin), int64(c.Lives), int64(c.ServeDelayTicks), int64(c.TickRate),
	}
}

// ConfigFields is how many numbers follow the mode byte in an encoded
// config; the rules version may follow them.
const ConfigFields = 11

// UnmarshalBinary decodes what MarshalBinary wrote; it does not Validate.
// An encoding without the rules version is a config of RulesOriginal.
func (c *Config) UnmarshalBinary(data []byte) error {
	if len(data) < 1 {
		return fmt.Errorf("%w: empty", ErrConfigEncoding)
	}
	*c = Config{Mode: Mode(data[0])}
	off := 1
	var v [ConfigFields]int32
	for i := range v {
		x, n := binary.Varint(data[off:])
		if n <= 0 {
			return fmt.Errorf("%w: field %d truncated", ErrConfigEncoding, i+1)
		}
		if x < math.MinInt32 || x > math.MaxInt32 {
			return fmt.Errorf("%w: field %d out of range", ErrConfigEncoding, i+1)
		}
		v[i] = int32(x)
		off += n
	}
	if off < len(data) {
		r, n := binary.Uvarint(data[off:])
		switch {
		case n <= 0:
			return fmt.Errorf("%w: rules version truncated", ErrConfigEncoding)
		case r == uint64(RulesOriginal) || r > math.MaxUint8:
			// RulesOriginal is written as no version at all, so each
			// config has exactly one encoding.
			return fmt.Errorf("%w: rules version %d", ErrConfigEncoding, r)
		}
		c.Rules = Rules(r)
		off += n
	}
	if off != len(data) {
		return fmt.Errorf("%w: %d trailing bytes", ErrConfigEncoding, len(data)-off)
	}
	c.Width, c.Height, c.PaddleLen, c.PaddleSpeed = v[0], v[1], v[2], v[3]
	c.BallSpeed, c.SpeedUpPerHit, c.MaxBallSpeed = v[4], v[5], v[6]
	c.PointsToWin, c.Lives, c.ServeDelayTicks, c.TickRate = int(v[7]), int(v[8]), int(v[9]), int(v[10])
	return nil
}

// Standing is each side's score as players quote it: points in 1v1 and
// 2v2 (a team's shared), lives left in free-for-all (game.Scorer).
func (s *Snapshot) Standing() []int {
	n := 2
	if s.Mode != OneVOne {
		n = 4
	}
	out := make([]int, n)
	for i := range out {
		if s.Mode == FFA4 {
			out[i] = int(s.Lives[i])
		} else {
			out[i] = int(s.Scores[i])
		}
	}
	return out
}
