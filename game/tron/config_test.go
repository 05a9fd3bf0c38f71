package tron

import (
	"bytes"
	"errors"
	"testing"
)

func TestModes(t *testing.T) {
	for _, tt := range []struct {
		name     string
		mode     Mode
		min, max int
		ranked   bool
	}{{"tron", Casual, 2, 8, false}, {"tron-ffa", FFA, 4, 6, true}} {
		m, err := ParseMode(tt.name)
		if err != nil || m != tt.mode || m.String() != tt.name || m.Ranked() != tt.ranked {
			t.Errorf("ParseMode(%q) = %v, %v (ranked %v)", tt.name, m, err, m.Ranked())
		}
		c := DefaultConfig(m)
		if err := c.Validate(); err != nil {
			t.Errorf("%s: default config invalid: %v", tt.name, err)
		}
		if c.MinPlayers != tt.min || c.Slots() != tt.max {
			t.Errorf("%s: %d..%d players, want %d..%d", tt.name, c.MinPlayers, c.Slots(), tt.min, tt.max)
		}
		if c.Width != 120 || c.Height != 72 {
			t.Errorf("%s: arena %dx%d, want the one 120x72 arena", tt.name, c.Width, c.Height)
		}
	}
	if _, err := ParseMode("pong"); err == nil {
		t.Error("ParseMode(pong) accepted")
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*Config)
	}{
		{"mode", func(c *Config) { c.Mode = 7 }},
		{"no players", func(c *Config) { c.Players = 0 }},
		{"nine players", func(c *Config) { c.Players = 9 }},
		{"min above max", func(c *Config) { c.MinPlayers = 9 }},
		{"tiny arena", func(c *Config) { c.Width = 15 }},
		{"huge arena", func(c *Config) { c.Height = 256 }},
		{"never moves", func(c *Config) { c.MoveEvery = 0 }},
		{"no rounds", func(c *Config) { c.RoundsToWin = 0 }},
		{"negative pause", func(c *Config) { c.PauseTicks = -1 }},
		{"negative ready", func(c *Config) { c.ReadyTicks = -1 }},
		{"tick rate", func(c *Config) { c.TickRate = 0 }},
	} {
		c := DefaultConfig(Casual)
		tt.edit(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
		if _, err := c.MarshalBinary(); err == nil {
			t.Errorf("%s: encoded", tt.name)
		}
	}
}

func TestConfigEncoding(t *testing.T) {
	c := DefaultConfig(FFA)
	c.MoveEvery, c.PauseTicks = 2, 1000
	data, err := c.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if data[0] != 1 {
		t.Errorf("version byte %d, want 1", data[0])
	}
	var d Config
	if err := d.UnmarshalBinary(data); err != nil || d != c {
		t.Fatalf("decoded %+v, %v; want %+v", d, err, c)
	}
	// The encoding of version 1 is fixed: replays written today must read
	// the same tomorrow.
	want := []byte{1, 1, 6, 4, 120, 72, 2, 3, 0xe8, 0x07, 60, 60}
	if !bytes.Equal(data, want) {
		t.Errorf("encoding % x, want % x", data, want)
	}
	for n := range len(data) {
		if err := d.UnmarshalBinary(data[:n]); !errors.Is(err, ErrConfigEncoding) {
			t.Errorf("truncated to %d: %v", n, err)
		}
	}
	for _, bad := range [][]byte{
		append(bytes.Clone(data), 0),                    // trailing
		{2, 1, 6, 4, 120, 72, 2, 3, 0xe8, 0x07, 60, 60}, // unknown version
		{1, 1, 9, 4, 120, 72, 2, 3, 0xe8, 0x07, 60, 60}, // 9 players
	} {
		if err := d.UnmarshalBinary(bad); !errors.Is(err, ErrConfigEncoding) {
			t.Errorf("% x: %v, want ErrConfigEncoding", bad, err)
		}
	}
}

func TestNewPanicsOnInvalidConfig(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New accepted an invalid config")
		}
	}()
	c := DefaultConfig(Casual)
	c.Players = 0
	New(c, 1)
}
