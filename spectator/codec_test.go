package spectator

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/game/tron"
)

// replayDiff names the first field that differs; empty when equal. Nil and
// empty slices are the same replay.
func replayDiff(a, b *Replay) string {
	switch {
	case a.Version != b.Version:
		return fmt.Sprintf("version %d vs %d", a.Version, b.Version)
	case a.Game != b.Game || a.Room != b.Room:
		return "game or room"
	case !bytes.Equal(a.Config, b.Config) || a.Slots != b.Slots:
		return fmt.Sprintf("config %x (%d slots) vs %x (%d slots)", a.Config, a.Slots, b.Config, b.Slots)
	case a.Seed != b.Seed || a.TickRate != b.TickRate || a.Ticks != b.Ticks:
		return "seed, tick rate or ticks"
	case !a.Start.Equal(b.Start):
		return fmt.Sprintf("start %v vs %v", a.Start, b.Start)
	case !slices.Equal(a.Seats, b.Seats):
		return fmt.Sprintf("seats %v vs %v", a.Seats, b.Seats)
	case !slices.Equal(a.Inputs, b.Inputs):
		return "inputs"
	case !slices.Equal(a.SeatEvents, b.SeatEvents):
		return fmt.Sprintf("seat events %v vs %v", a.SeatEvents, b.SeatEvents)
	case !slices.Equal(a.Hashes, b.Hashes):
		return "hashes"
	case a.FinalHash != b.FinalHash:
		return "final hash"
	case a.Aborted != b.Aborted:
		return fmt.Sprintf("aborted %v vs %v", a.Aborted, b.Aborted)
	case !sameResult(a.Result, b.Result):
		return fmt.Sprintf("result %+v vs %+v", a.Result, b.Result)
	}
	return ""
}

// A game.Result or game.Player field the codec does not know would be
// silently dropped from every replay; this fails first, as a reminder to
// encode it and bump FormatVersion. (A game's config is the game's own
// encoding, tested next to it.)
func TestCodecCoversEveryField(t *testing.T) {
	// WarmUp is the fifth, and never recorded (a warm-up keeps no replay).
	if n := reflect.TypeFor[game.Result]().NumField(); n != 5 {
		t.Fatalf("game.Result has %d fields; the codec writes 4 and WarmUp", n)
	}
	if n := reflect.TypeFor[game.Player]().NumField(); n != 3 {
		t.Fatalf("game.Player has %d fields; the codec writes 3", n)
	}
}

// sample is a small hand-made replay that exercises every encoding path:
// long tick gaps (escaped deltas), negative and odd config values, a guest
// seat, an empty seat, a zero start.
func sample() *Replay {
	cfg := pong.DefaultConfig(pong.FFA4)
	cfg.SpeedUpPerHit = 0
	return &Replay{
		Version: FormatVersion, Game: "pong", Room: "r7",
		Config: pongBytes(cfg), Slots: cfg.Slots(), Seed: 0xfedcba9876543210, TickRate: 60,
		Seats: []game.Player{{ID: "SHA256:abc", Name: "ann"}, {ID: "guest-1", Name: "bob", Guest: true}, {}, {ID: "SHA256:d", Name: "dé"}},
		Start: time.Date(2026, 3, 4, 5, 6, 7, 8, time.UTC),
		Ticks: 100_000,
		Inputs: []InputChange{
			{1, 0, 1, 0}, {1, 1, -1, 9}, {14, 3, 0, 0}, {15, 0, -1, 200}, {29, 0, 1, MaxLag}, {30, 1, 1, 9}, {60_000, 3, -1, 0}, {100_000, 1, 0, 1},
		},
		SeatEvents: []SeatEvent{{0, 0, SeatJoin}, {0, 1, SeatJoin}, {0, 3, SeatJoin}, {500, 2, SeatJoin}, {100_000, 3, SeatLeave}},
		Hashes:     []TickHash{{60, 1}, {120, 1 << 63}, {100_000, 42}},
		FinalHash:  7,
		Result:     game.Result{Placements: []int{0, 1, 2, 3}, Places: []int{1, 2, 3, 4}, Scores: []int{5, 0, -1, 0}, Forfeit: true},
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, r := range []*Replay{sample(), func() *Replay {
		r := sample()
		r.Start, r.Inputs, r.Hashes, r.SeatEvents = time.Time{}, nil, nil, nil
		r.Result.Placements = nil
		return r
	}(), func() *Replay {
		r := sample()
		r.Aborted, r.Result.Placements, r.Result.Places = true, nil, make([]int, 4)
		return r
	}()} {
		b, err := Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if diff := replayDiff(r, d); diff != "" {
			t.Fatalf("round trip differs: %s", diff)
		}
		b2, _ := Encode(d)
		if !bytes.Equal(b, b2) {
			t.Fatal("re-encoding a decoded replay changed the bytes")
		}
	}
}

func compress(t testing.TB, body []byte) []byte {
	var buf bytes.Buffer
	buf.WriteString(magic)
	buf.WriteByte(FormatVersion)
	zw := zlib.NewWriter(&buf)
	_, _ = zw.Write(body)
	_ = zw.Close()
	return buf.Bytes()
}

// format3 relabels an encoded replay as format 3.
func format3(b []byte) []byte {
	b[len(magic)] = 3
	return b
}

func TestDecodeRejects(t *testing.T) {
	good, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	body := appendBody(nil, sample())
	badVersion := slices.Clone(good)
	badVersion[len(magic)] = FormatVersion + 1
	zeroVersion := slices.Clone(good)
	zeroVersion[len(magic)] = 0
	flipped := slices.Clone(good)
	flipped[len(flipped)/2] ^= 0x40

	for _, c := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrNotReplay},
		{"garbage", []byte("SSH-2.0-OpenSSH_9.6\r\n"), ErrNotReplay},
		{"magic only", []byte(magic), ErrNotReplay},
		{"future version", badVersion, ErrVersion},
		{"version 0", zeroVersion, ErrVersion},
		{"not zlib", append([]byte(magic+"\x01"), "plain text"...), ErrCorrupt},
		{"bit flip", flipped, ErrCorrupt},
		{"trailing bytes", append(slices.Clone(good), 0), ErrCorrupt},
		{"body with extra byte", compress(t, append(slices.Clone(body), 0)), ErrCorrupt},
		{"body truncated", compress(t, body[:len(body)-1]), ErrCorrupt},
		{"bomb", compress(t, make([]byte, MaxDecodedSize+1)), ErrTooLarge},
		{"absurd input count", compress(t, absurdCount(body)), ErrCorrupt},
		{"absurd string", compress(t, binary.AppendUvarint(nil, 1<<40)), ErrCorrupt},
		{"overlong varint", compress(t, bytes.Repeat([]byte{0xff}, 20)), ErrCorrupt},
		{"unknown result flag", compress(t, append(slices.Clone(body[:len(body)-1]), 4)), ErrCorrupt},
		// Format 3's last byte was the forfeit flag alone: no aborted bit.
		{"aborted in format 3", format3(compress(t, append(slices.Clone(body[:len(body)-1]), 2))), ErrCorrupt},
		{"aborted with placements", compress(t, append(slices.Clone(body[:len(body)-1]), 3)), ErrInvalidReplay},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Decode(c.b)
			if err == nil || r != nil {
				t.Fatalf("accepted (%v)", err)
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("error %q does not match %q", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "spectator: decode replay: ") {
				t.Fatalf("error without context: %q", err)
			}
			t.Log(err)
		})
	}
}

// absurdCount rewrites the input count of an encoded body to 2^62.
func absurdCount(body []byte) []byte {
	head := headerLen(sample())
	out := slices.Clone(body[:head])
	out = binary.AppendUvarint(out, 1<<62)
	return append(out, body[head+1:]...) // the sample's count fits one byte
}

// headerLen is the length of the body before the input count.
func headerLen(r *Replay) int {
	c := *r
	c.Inputs, c.SeatEvents, c.Hashes = nil, nil, nil
	c.Result = game.Result{}
	full := appendBody(nil, &c)
	// After the header: input count, event count, hash count (one byte
	// each, all zero), final hash (8), placements count (1), forfeit (1).
	return len(full) - 3 - 8 - 1 - 1
}

// Every prefix of a valid replay is refused, cleanly.
func TestDecodeTruncations(t *testing.T) {
	good, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(good) {
		if r, err := Decode(good[:n]); err == nil || r != nil {
			t.Fatalf("prefix of %d/%d bytes accepted", n, len(good))
		}
	}
	body := appendBody(nil, sample())
	for n := range len(body) {
		if r, err := parseBody(body[:n], FormatVersion); err == nil || r != nil {
			t.Fatalf("body prefix of %d/%d bytes accepted", n, len(body))
		} else if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("body prefix of %d: %v", n, err)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*Replay)
	}{
		{"game", func(r *Replay) { r.Game = "" }},
		{"config", func(r *Replay) { r.Config = nil }},
		{"slots", func(r *Replay) { r.Slots = MaxSlots + 1 }},
		{"tick rate", func(r *Replay) { r.TickRate = 0 }},
		{"no ticks", func(r *Replay) { r.Ticks = 0 }},
		{"too many ticks", func(r *Replay) { r.Ticks = MaxTicks + 1 }},
		{"seats", func(r *Replay) { r.Seats = r.Seats[:2] }},
		{"long name", func(r *Replay) { r.Seats[0].Name = strings.Repeat("x", maxString+1) }},
		{"long room", func(r *Replay) { r.Room = strings.Repeat("x", maxString+1) }},
		{"input at 0", func(r *Replay) { r.Inputs[0].Tick = 0 }},
		{"input after end", func(r *Replay) { r.Inputs[len(r.Inputs)-1].Tick = r.Ticks + 1 }},
		{"inputs out of order", func(r *Replay) { r.Inputs[2].Tick = 1000 }},
		{"input slot", func(r *Replay) { r.Inputs[0].Slot = 4 }},
		{"input lag", func(r *Replay) { r.Inputs[0].Lag = MaxLag + 1 }},
		{"event order", func(r *Replay) { r.SeatEvents[0].Tick = 9 }},
		{"event after end", func(r *Replay) { r.SeatEvents[4].Tick = r.Ticks + 1 }},
		{"event slot", func(r *Replay) { r.SeatEvents[0].Slot = 7 }},
		{"event kind", func(r *Replay) { r.SeatEvents[0].Kind = 0 }},
		{"hash at 0", func(r *Replay) { r.Hashes[0].Tick = 0 }},
		{"hash twice", func(r *Replay) { r.Hashes[1].Tick = r.Hashes[0].Tick }},
		{"places", func(r *Replay) { r.Result.Places = r.Result.Places[:3] }},
		{"placements", func(r *Replay) { r.Result.Placements = []int{0, 0} }},
		{"placement slot", func(r *Replay) { r.Result.Placements = []int{4} }},
		{"place", func(r *Replay) { r.Result.Places[0] = 5 }},
		{"score", func(r *Replay) { r.Result.Scores[0] = 1 << 40 }},
	} {
		r := sample()
		c.mod(r)
		err := r.Validate()
		if !errors.Is(err, ErrInvalidReplay) {
			t.Errorf("%s: %v", c.name, err)
		}
		if _, err := Encode(r); err == nil {
			t.Errorf("%s: Encode accepted", c.name)
		}
		if _, err := NewPlayback(r, testGames); err == nil {
			t.Errorf("%s: NewPlayback accepted", c.name)
		}
	}
	if _, err := Encode(nil); err == nil {
		t.Error("Encode(nil) accepted")
	}
	if _, err := NewPlayback(nil, testGames); err == nil {
		t.Error("NewPlayback(nil, testGames) accepted")
	}
}

// tronSample is a hand-made light-cycle replay: two riders turning now
// and then, so the fuzzers also reach the other game's playback.
func tronSample(f *testing.F) *Replay {
	cfg := tron.DefaultConfig(tron.Casual)
	cfg.Players, cfg.RoundsToWin = 2, 1
	b, err := cfg.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	return &Replay{
		Version: FormatVersion, Game: "tron", Room: "r3",
		Config: b, Slots: 2, Seed: 99, TickRate: cfg.TickRate,
		Seats:      []game.Player{{ID: "SHA256:abc", Name: "ann"}, {ID: "SHA256:d", Name: "dee"}},
		Ticks:      400,
		Inputs:     []InputChange{{70, 0, tron.Up, 0}, {75, 1, tron.Left, 3}, {90, 0, tron.Right, 0}, {200, 1, tron.Down, 0}},
		SeatEvents: []SeatEvent{{0, 0, SeatJoin}, {0, 1, SeatJoin}},
		Result:     game.Result{Placements: []int{0, 1}, Places: []int{1, 2}, Scores: []int{1, 0}},
	}
}

func fuzzSeeds(f *testing.F) (encoded, bodies [][]byte) {
	small := sample()
	empty := sample()
	empty.Inputs, empty.Hashes, empty.SeatEvents, empty.Start = nil, nil, nil, time.Time{}
	aborted := sample()
	aborted.Aborted, aborted.Result = true, game.Result{Places: make([]int, 4), Scores: []int{3, 0, 1, 2}, Forfeit: true}
	for _, r := range []*Replay{small, empty, tronSample(f), aborted} {
		b, err := Encode(r)
		if err != nil {
			f.Fatal(err)
		}
		encoded = append(encoded, b)
		bodies = append(bodies, appendBody(nil, r))
	}
	return encoded, bodies
}

// FuzzDecode: no input panics or allocates beyond the caps, and whatever is
// accepted is a replay that re-encodes to itself and can be played.
func FuzzDecode(f *testing.F) {
	encoded, _ := fuzzSeeds(f)
	for _, b := range encoded {
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte(magic + "\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(b)
		if err != nil {
			if r != nil {
				t.Fatal("replay and error")
			}
			return
		}
		checkDecoded(t, r)
	})
}

// FuzzParseBody goes past zlib's checksum, which otherwise turns almost
// every mutation into the same early error, to reach the parser itself.
func FuzzParseBody(f *testing.F) {
	_, bodies := fuzzSeeds(f)
	for _, b := range bodies {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseBody(b, FormatVersion)
		if err != nil {
			if r != nil {
				t.Fatal("replay and error")
			}
			return
		}
		checkDecoded(t, r)
	})
}

func checkDecoded(t *testing.T, r *Replay) {
	b, err := Encode(r)
	if err != nil {
		t.Fatalf("decoded replay does not encode: %v", err)
	}
	r2, err := Decode(b)
	if err != nil {
		t.Fatalf("re-encoded replay does not decode: %v", err)
	}
	if diff := replayDiff(r, r2); diff != "" {
		t.Fatalf("round trip differs: %s", diff)
	}
	// Decoding is the format's business and knows no games: a replay of
	// a game this server does not run decodes (its header can be listed)
	// but does not play, and says so; one of a game it runs plays, unless
	// the game refuses its config (an invalid replay, said so too).
	p, err := NewPlayback(r, testGames)
	if _, known := testGames.Kind(r.Game); !known {
		if !errors.Is(err, ErrUnknownGame) || !strings.Contains(err.Error(), strconv.Quote(r.Game)) {
			t.Fatalf("a replay of %q, a game the catalogue lacks: %v; want ErrUnknownGame naming it", r.Game, err)
		}
		return
	}
	if errors.Is(err, ErrInvalidReplay) {
		return
	}
	if err != nil {
		t.Fatalf("decoded replay of %q does not play: %v", r.Game, err)
	}
	for range 200 {
		if err := p.Step(); err != nil {
			var div *DivergedError
			if !errors.As(err, &div) && !errors.Is(err, ErrReplayEnded) && !errors.Is(err, ErrInvalidReplay) {
				t.Fatalf("step %d: %v", p.Tick(), err)
			}
			break
		}
	}
}
