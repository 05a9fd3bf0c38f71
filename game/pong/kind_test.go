package pong

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/termarena/termarena/game"
)

// A Config field the encoding does not know would be dropped from every
// replay and every room rebuilt from it; this fails first, as a reminder
// to encode it (at the end, so older encodings still decode).
func TestConfigEncodingCoversEveryField(t *testing.T) {
	// The mode, the numbers, and Rules.
	if n := reflect.TypeFor[Config]().NumField(); n != 1+ConfigFields+1 {
		t.Fatalf("Config has %d fields; the encoding writes %d", n, 1+ConfigFields+1)
	}
}

func TestConfigRoundTrip(t *testing.T) {
	for _, m := range []Mode{OneVOne, FFA4, TwoVTwo} {
		c := DefaultConfig(m)
		c.SpeedUpPerHit, c.Lives = 0, 3
		b, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var got Config
		if err := got.UnmarshalBinary(b); err != nil || got != c {
			t.Fatalf("%v: %+v, %v; want %+v", m, got, err, c)
		}
		for n := range len(b) - 1 {
			if err := got.UnmarshalBinary(b[:n]); !errors.Is(err, ErrConfigEncoding) {
				t.Fatalf("%v: %d of %d bytes: %v", m, n, len(b), err)
			}
		}
		// Without its last byte, the rules version, it is the same config
		// as the original rules wrote it.
		old := c
		old.Rules = RulesOriginal
		if err := got.UnmarshalBinary(b[:len(b)-1]); err != nil || got != old {
			t.Fatalf("%v without the rules version: %+v, %v; want %+v", m, got, err, old)
		}
		if err := got.UnmarshalBinary(append(b, 0)); !errors.Is(err, ErrConfigEncoding) {
			t.Fatalf("%v: trailing byte: %v", m, err)
		}
	}
}

// Replays keep their config's bytes, and rooms rebuilt from them must play
// by the rules the match was played by: a config of the original rules
// encodes to the bytes every older build wrote (no rules version), and
// those bytes decode to the original rules; the current rules are
// written out, and a rules version no build writes is refused.
func TestConfigRulesVersionEncoding(t *testing.T) {
	c := DefaultConfig(OneVOne)
	if c.Rules != CurrentRules || CurrentRules == RulesOriginal {
		t.Fatalf("DefaultConfig plays by rules %d, current %d", c.Rules, CurrentRules)
	}
	c.Rules = RulesOriginal
	orig, _ := c.MarshalBinary()
	// The original encoding: the mode byte and 11 zig-zag varints.
	want := []byte{0, 152, 1, 80, 16, 224, 3, 192, 3, 24, 192, 7, 22, 10, 120, 120}
	if !slices.Equal(orig, want) {
		t.Fatalf("original rules encode to % x, want the older builds' % x", orig, want)
	}
	var got Config
	if err := got.UnmarshalBinary(want); err != nil || got.Rules != RulesOriginal {
		t.Fatalf("older bytes decode to rules %d, %v", got.Rules, err)
	}
	c.Rules = RulesProgress
	cur, _ := c.MarshalBinary()
	if !slices.Equal(cur, append(slices.Clone(want), byte(RulesProgress))) {
		t.Fatalf("current rules encode to % x", cur)
	}
	for _, tail := range []byte{0, byte(CurrentRules) + 1} {
		b := append(slices.Clone(want), tail)
		err := got.UnmarshalBinary(b)
		if err == nil {
			err = got.Validate()
		}
		if err == nil {
			t.Fatalf("rules version %d accepted", tail)
		}
	}
}

func TestSetupPlaysByCurrentRules(t *testing.T) {
	// An operator's config built from scratch still gets the current rules.
	k := Kind{Configure: func(m Mode) Config { c := DefaultConfig(m); c.Rules = RulesOriginal; return c }}
	for _, m := range k.Modes() {
		s, err := k.Setup(m.Name)
		if err != nil {
			t.Fatal(err)
		}
		g, err := k.New(s.Config, 1)
		if err != nil {
			t.Fatal(err)
		}
		if r := g.(*Game).Config().Rules; r != CurrentRules {
			t.Fatalf("%s: a new room plays by rules %d, want %d", m.Name, r, CurrentRules)
		}
	}
}

func TestKind(t *testing.T) {
	k := Kind{Configure: func(m Mode) Config { c := DefaultConfig(m); c.PointsToWin = 1; return c }}
	if err := (game.Catalog{k}).Validate(); err != nil {
		t.Fatal(err)
	}
	for _, m := range k.Modes() {
		s, err := k.Setup(m.Name)
		if err != nil {
			t.Fatal(err)
		}
		g, err := k.New(s.Config, 7)
		if err != nil {
			t.Fatal(err)
		}
		if g.Slots() != m.Seats || s.TickRate != 60 || g.(*Game).Config().PointsToWin != 1 {
			t.Fatalf("%s: %d slots, tick rate %d, %+v", m.Name, g.Slots(), s.TickRate, g.(*Game).Config())
		}
	}
	if _, err := k.Setup("3v3"); err == nil {
		t.Fatal("unknown mode accepted")
	}
	bad := DefaultConfig(OneVOne)
	bad.Width = 2
	b, _ := bad.MarshalBinary()
	if _, err := k.New(b, 1); err == nil {
		t.Fatal("a config Validate refuses was built")
	}
}
