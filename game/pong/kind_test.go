package pong

import (
	"errors"
	"reflect"
	"testing"

	"github.com/termarena/termarena/game"
)

// A Config field the encoding does not know would be dropped from every
// replay and every room rebuilt from it; this fails first, as a reminder
// to encode it (at the end, so older encodings still decode).
func TestConfigEncodingCoversEveryField(t *testing.T) {
	if n := reflect.TypeFor[Config]().NumField(); n != 1+ConfigFields {
		t.Fatalf("Config has %d fields; the encoding writes %d", n, 1+ConfigFields)
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
		for n := range len(b) {
			if err := got.UnmarshalBinary(b[:n]); !errors.Is(err, ErrConfigEncoding) {
				t.Fatalf("%v: %d of %d bytes: %v", m, n, len(b), err)
			}
		}
		if err := got.UnmarshalBinary(append(b, 0)); !errors.Is(err, ErrConfigEncoding) {
			t.Fatalf("%v: trailing byte: %v", m, err)
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
