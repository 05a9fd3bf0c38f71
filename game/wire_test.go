package game_test

import (
	"errors"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/game/tron"
)

// wireFrames are frames as rooms publish them: waiting, mid-match with a
// player in grace, finished with a result, roster and a forfeit.
func wireFrames(t testing.TB) []*game.Frame {
	t.Helper()
	var k pong.Kind
	setup, err := k.Setup("1v1")
	if err != nil {
		t.Fatal(err)
	}
	g, err := k.New(setup.Config, 42)
	if err != nil {
		t.Fatal(err)
	}
	for s := range 2 {
		if err := g.Join(s); err != nil {
			t.Fatal(err)
		}
	}
	for range 200 {
		g.Step([]game.Input{{Slot: 0, Seq: 1, Action: 1}})
	}
	ann := game.Player{ID: "SHA256:annannannannannannannannannannannannannann", Name: "ann"}
	bob := game.Player{ID: "guest-7", Name: "guest-7 ✓", Guest: true}
	playing := &game.Frame{Room: "r3@n1", Seq: 901, Tick: 200, TickRate: 60, Phase: game.Playing, Seed: 0xfeedface12345678,
		Seats: []game.Seat{
			{Player: ann, Taken: true, Connected: true, Ready: true, Sessions: 1},
			{Player: bob, Taken: true, GraceLeft: 27 * time.Second, Misbehaved: 3},
		},
		Acks: []uint32{17, 4_000_000_000}, State: g.Snapshot(), Paused: true,
		Roster: []game.Player{ann, bob}}
	finished := &game.Frame{Room: "r3@n1", Seq: 950, Tick: 9000, TickRate: 60, Phase: game.Finished,
		Seats: []game.Seat{{Player: ann, Taken: true, Connected: true}, {}}, Acks: []uint32{0, 0},
		State: g.Snapshot(), Roster: []game.Player{ann, bob}, Forfeited: []bool{false, true},
		Result: &game.Result{Placements: []int{0, 1}, Places: []int{1, 2}, Scores: []int{11, -1}, Forfeit: true}}
	waiting := &game.Frame{Room: "r9", Seq: 1, TickRate: 60, Phase: game.Countdown, Left: 2500 * time.Millisecond,
		Seats: []game.Seat{{}, {}}, Acks: []uint32{0, 0}, WarmUp: true}
	closed := &game.Frame{Room: "r9", Seq: 2, Phase: game.Closed, Failed: true}
	return []*game.Frame{playing, finished, waiting, closed}
}

// TestFrameWireRoundTrip: a frame crosses the wire whole, its Pong state
// through the game's codec.
func TestFrameWireRoundTrip(t *testing.T) {
	var k pong.Kind
	for i, f := range wireFrames(t) {
		b, err := game.AppendFrame(nil, k, f)
		if err != nil {
			t.Fatalf("frame %d: encode: %v", i, err)
		}
		got, err := game.DecodeFrame(k, b)
		if err != nil {
			t.Fatalf("frame %d: decode: %v", i, err)
		}
		if !reflect.DeepEqual(got, f) {
			t.Errorf("frame %d (%d bytes): decoded\n%+v\nwant\n%+v", i, len(b), got, f)
		}
	}
}

// TestFrameWireTron: a light-cycle frame carries its arena through tron's
// codec the same way.
func TestFrameWireTron(t *testing.T) {
	var k tron.Kind
	setup, err := k.Setup("tron")
	if err != nil {
		t.Fatal(err)
	}
	g, err := k.New(setup.Config, 5)
	if err != nil {
		t.Fatal(err)
	}
	_ = g.Join(0)
	_ = g.Join(1)
	for range 100 {
		g.Step(nil)
	}
	f := &game.Frame{Room: "r1@n2", Seq: 3, Tick: 100, TickRate: 60, Phase: game.Playing, Seats: []game.Seat{{}, {}}, Acks: []uint32{0, 0}, State: g.Snapshot()}
	for range g.Slots() - 2 {
		f.Seats, f.Acks = append(f.Seats, game.Seat{}), append(f.Acks, 0)
	}
	b, err := game.AppendFrame(nil, k, f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := game.DecodeFrame(k, b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, f) {
		t.Errorf("decoded\n%+v\nwant\n%+v", got, f)
	}
}

// TestDecodeFrameRefusesHostileBytes: counts and lengths far beyond the
// bytes sent, control characters in names, a state with no codec, a
// version from a newer build are errors, and none of them allocates more
// than a few kilobytes whatever it claims.
func TestDecodeFrameRefusesHostileBytes(t *testing.T) {
	var k pong.Kind
	good, err := game.AppendFrame(nil, k, wireFrames(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	huge := []byte{1, 0, 2, 2, 'r', '1', 1, 1, 60, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}
	longName := []byte{1, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}
	ctrl := []byte{1, 0, 0, 3, 'r', 0x1b, '1'}
	cases := map[string][]byte{
		"empty":          nil,
		"newer version":  append([]byte{2}, good[1:]...),
		"truncated":      good[:len(good)/2],
		"trailing":       append(append([]byte(nil), good...), 0),
		"2^63 seats":     huge,
		"4 GB room name": longName,
		"escape in name": ctrl,
		"too long":       make([]byte, game.MaxFrameWire+1),
	}
	for name, data := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f, err := game.DecodeFrame(k, data)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, game.ErrFrameWire) {
			t.Errorf("%s: got %+v, %v; want ErrFrameWire", name, f, err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 16<<10 {
			t.Errorf("%s: decoding allocated %d bytes", name, n)
		}
	}
	if f, err := game.DecodeFrame(nil, good); !errors.Is(err, game.ErrFrameWire) {
		t.Errorf("a state without a codec: got %+v, %v", f, err)
	}
}

// FuzzDecodeFrame: hostile bytes from NATS never panic the decoder or make
// it allocate beyond what they justify, and a frame it accepts encodes
// and decodes again to the same frame.
func FuzzDecodeFrame(f *testing.F) {
	var k pong.Kind
	for _, fr := range wireFrames(f) {
		b, err := game.AppendFrame(nil, k, fr)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := game.DecodeFrame(k, data)
		if err != nil {
			return
		}
		again, err := game.AppendFrame(nil, k, fr)
		if err != nil {
			t.Fatalf("a decoded frame does not encode: %v", err)
		}
		back, err := game.DecodeFrame(k, again)
		if err != nil {
			t.Fatalf("a re-encoded frame does not decode: %v", err)
		}
		if !reflect.DeepEqual(back, fr) {
			t.Fatalf("re-decoded\n%+v\nwant\n%+v", back, fr)
		}
	})
}
