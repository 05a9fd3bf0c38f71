package tron

import (
	"fmt"

	"github.com/termarena/termarena/game"
)

// Kind is light cycles as the server's catalogue lists it (game.Kind).
type Kind struct {
	// Configure, when set, gives the config a mode is played with
	// (operators and tests: smaller arenas, fewer rounds); nil means
	// DefaultConfig.
	Configure func(Mode) Config
}

var _ game.Kind = Kind{}

// Name is the key replays and ranked modes are filed under.
func (Kind) Name() string { return "tron" }

// Title is what menus call the game.
func (Kind) Title() string { return "Light cycles" }

// Modes are a casual room of 2 to 8 riders and the ranked free-for-all
// (tron-ffa, 4 to 6 seats; the queue seats the least, four). A turn is an
// event, not a state: inputs are not held.
func (k Kind) Modes() []game.Mode {
	c, f := k.config(Casual), k.config(FFA)
	return []game.Mode{
		{Name: Casual.String(), Key: "1", Title: fmt.Sprintf("free-for-all, %d-%d riders", c.MinPlayers, c.Players),
			Seats: c.Players, MinPlayers: c.MinPlayers, Casual: true, WarmUp: true},
		{Name: FFA.String(), Key: "t", Title: fmt.Sprintf("ranked free-for-all, %d-%d riders", f.MinPlayers, f.Players),
			Seats: f.Players, MinPlayers: f.MinPlayers, Ranked: FFA.String(), Table: f.MinPlayers},
	}
}

func (k Kind) config(m Mode) Config {
	c := DefaultConfig(m)
	if k.Configure != nil {
		c = k.Configure(m)
	}
	c.Mode = m
	return c
}

// Setup encodes the config a match of mode is played with.
func (k Kind) Setup(mode string) (game.Setup, error) {
	m, err := ParseMode(mode)
	if err != nil {
		return game.Setup{}, err
	}
	c := k.config(m)
	if err := c.Validate(); err != nil {
		return game.Setup{}, fmt.Errorf("tron: %s config: %w", m, err)
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
		return nil, fmt.Errorf("tron: config: %w", err)
	}
	return New(c, seed), nil
}

// Standing is each seat's rounds won (game.Scorer).
func (s *Snapshot) Standing() []int {
	out := make([]int, s.Slots)
	for i := range out {
		out[i] = int(s.Cycles[i].Wins)
	}
	return out
}
