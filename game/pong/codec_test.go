package pong

import (
	"errors"
	"reflect"
	"testing"
)

// TestSnapshotCodecRoundTrip plays whole matches of every mode with bots
// (points, serves, paddles shrinking, forfeits) and checks every tick's
// snapshot decodes to exactly what was encoded: a remote player's screen
// draws the very state the owner's room stepped.
func TestSnapshotCodecRoundTrip(t *testing.T) {
	for _, m := range []Mode{OneVOne, TwoVTwo, FFA4} {
		t.Run(m.String(), func(t *testing.T) {
			cfg := DefaultConfig(m)
			cfg.PointsToWin, cfg.Lives = 3, 2
			g := newGame(t, cfg, allSeats(m)...)
			b := newBot(uint64(m) + 7)
			var k Kind
			for tick := 0; tick < 40000; tick++ {
				s := snap(g)
				enc, err := k.AppendSnapshot(nil, s)
				if err != nil {
					t.Fatalf("tick %d: encode: %v", tick, err)
				}
				got, err := k.DecodeSnapshot(enc)
				if err != nil {
					t.Fatalf("tick %d: decode %x: %v", tick, enc, err)
				}
				if !reflect.DeepEqual(got, s) {
					t.Fatalf("tick %d: decoded\n%+v\nwant\n%+v", tick, got, s)
				}
				if s.Over {
					return
				}
				if tick == 20000 && m == FFA4 {
					g.Leave(Top) // a forfeit mid-match travels too
				}
				g.Step(b.inputs(g))
			}
			t.Fatal("the match never ended")
		})
	}
}

// TestDecodeSnapshotRefusesWhatNoGameDraws: values outside the board, a
// config that does not validate, a truncated or padded encoding are
// errors, never a snapshot a view would index out of range with.
func TestDecodeSnapshotRefusesWhatNoGameDraws(t *testing.T) {
	g := newGame(t, DefaultConfig(OneVOne), 0, 1)
	good, err := snap(g).AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeSnapshot(good); err != nil {
		t.Fatalf("a good snapshot: %v", err)
	}
	far := snap(g)
	far.Ball.X = far.Width*Sub + 1
	off, _ := far.AppendBinary(nil)
	wide := snap(g)
	c := *wide.Config
	c.Width = 5000
	wide.Config = &c
	bad, _ := wide.AppendBinary(nil)
	for name, data := range map[string][]byte{
		"empty":          nil,
		"version":        append([]byte{9}, good[1:]...),
		"truncated":      good[:len(good)-1],
		"trailing":       append(append([]byte(nil), good...), 0),
		"ball off board": off,
		"config":         bad,
	} {
		if s, err := DecodeSnapshot(data); !errors.Is(err, ErrSnapshotEncoding) {
			t.Errorf("%s: got %v, %v; want ErrSnapshotEncoding", name, s, err)
		}
	}
}

// FuzzDecodeSnapshot: bytes from the network never panic the decoder, and
// whatever it accepts encodes back to the same bytes.
func FuzzDecodeSnapshot(f *testing.F) {
	for _, m := range []Mode{OneVOne, FFA4} {
		g := New(DefaultConfig(m), 3)
		for _, s := range allSeats(m) {
			_ = g.Join(s)
		}
		b := newBot(1)
		for range 500 {
			g.Step(b.inputs(g))
		}
		enc, _ := snap(g).AppendBinary(nil)
		f.Add(enc)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodeSnapshot(data)
		if err != nil {
			return
		}
		again, err := s.AppendBinary(nil)
		if err != nil {
			t.Fatalf("a decoded snapshot does not encode: %v", err)
		}
		if _, err := DecodeSnapshot(again); err != nil {
			t.Fatalf("a re-encoded snapshot does not decode: %v", err)
		}
	})
}
