package spectator

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/termarena/termarena/game"
)

// magic starts every encoded replay, uncompressed, so that a file that is
// not a replay is refused before any decompression work.
const magic = "TMRP"

// MaxDecodedSize bounds the decompressed body Decode will read. A
// three-minute match is a few kilobytes and the longest replay MaxTicks
// allows is around two megabytes, so anything larger is a decompression
// bomb or garbage, and the bound caps what Decode allocates.
const MaxDecodedSize = 4 << 20

// Errors Decode wraps, so callers can tell "not ours" from "damaged".
var (
	ErrNotReplay = errors.New("not a termarena replay")
	ErrVersion   = errors.New("unsupported replay format version")
	ErrCorrupt   = errors.New("corrupt replay")
	ErrTooLarge  = errors.New("replay too large")
)

// An input change starts with one byte when it follows the previous change
// within 14 ticks, which at human key rates is most of them: the high
// nibble is the tick delta (15 = a uvarint of delta-15 follows). In
// formats 1 and 2 two bits of slot and two of action followed; format 3
// has four bits of slot, then a uvarint of the zig-zag action shifted left
// once, its low bit set when the slot's lag changed (its new value
// follows), so a Pong input still takes two bytes.
const (
	// legacyConfigFields is how many zig-zag varints followed the mode
	// byte of the inline Pong config in formats 1 and 2.
	legacyConfigFields = 11

	deltaEscape = 15
	actZero     = 0
	actPlus     = 1
	actMinus    = 2
)

// Encode writes r compactly: varint tick deltas, one byte per typical input
// change, then zlib (whose checksum also lets Decode refuse a damaged file).
// It refuses a replay that Validate refuses, so whatever it writes decodes.
func Encode(r *Replay) ([]byte, error) {
	if r == nil {
		return nil, errors.New("spectator: encode replay: nil replay")
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("spectator: encode replay: %w", err)
	}
	body := appendBody(make([]byte, 0, 64+2*len(r.Inputs)+10*len(r.Hashes)), r)

	var out bytes.Buffer
	out.Grow(len(body)/2 + 64)
	out.WriteString(magic)
	out.WriteByte(FormatVersion)
	zw, err := zlib.NewWriterLevel(&out, zlib.BestCompression)
	if err != nil {
		return nil, fmt.Errorf("spectator: encode replay: %w", err)
	}
	if _, err := zw.Write(body); err != nil {
		return nil, fmt.Errorf("spectator: encode replay: compress: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("spectator: encode replay: compress: %w", err)
	}
	return out.Bytes(), nil
}

func appendBody(b []byte, r *Replay) []byte {
	b = appendString(b, r.Game)
	b = appendString(b, r.Room)
	b = appendString(b, string(r.Config))
	b = binary.AppendUvarint(b, uint64(r.Slots))
	b = binary.LittleEndian.AppendUint64(b, r.Seed)
	b = binary.AppendUvarint(b, uint64(r.TickRate))
	if r.Start.IsZero() {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.AppendVarint(b, r.Start.Unix())
		b = binary.AppendUvarint(b, uint64(r.Start.Nanosecond()))
	}
	b = binary.AppendUvarint(b, r.Ticks)
	for _, p := range r.Seats {
		b = appendString(b, string(p.ID))
		b = appendString(b, p.Name)
		b = appendBool(b, p.Guest)
	}

	b = binary.AppendUvarint(b, uint64(len(r.Inputs)))
	var last uint64
	var lag [MaxSlots]uint16
	for _, in := range r.Inputs {
		d := in.Tick - last
		last = in.Tick
		b = append(b, byte(min(d, deltaEscape))<<4|in.Slot)
		if d >= deltaEscape {
			b = binary.AppendUvarint(b, d-deltaEscape)
		}
		v := zigzag(in.Action) << 1
		if in.Lag != lag[in.Slot] {
			v |= 1
		}
		b = binary.AppendUvarint(b, v)
		if in.Lag != lag[in.Slot] {
			lag[in.Slot] = in.Lag
			b = binary.AppendUvarint(b, uint64(in.Lag))
		}
	}

	b = binary.AppendUvarint(b, uint64(len(r.SeatEvents)))
	last = 0
	for _, ev := range r.SeatEvents {
		b = binary.AppendUvarint(b, ev.Tick-last)
		last = ev.Tick
		b = append(b, byte(ev.Kind)<<4|ev.Slot)
	}

	b = binary.AppendUvarint(b, uint64(len(r.Hashes)))
	last = 0
	for _, h := range r.Hashes {
		b = binary.AppendUvarint(b, h.Tick-last)
		last = h.Tick
		b = binary.LittleEndian.AppendUint64(b, h.Hash)
	}
	b = binary.LittleEndian.AppendUint64(b, r.FinalHash)

	res := &r.Result
	b = binary.AppendUvarint(b, uint64(len(res.Placements)))
	for _, s := range res.Placements {
		b = binary.AppendUvarint(b, uint64(s))
	}
	for _, p := range res.Places {
		b = binary.AppendUvarint(b, uint64(p))
	}
	for _, s := range res.Scores {
		b = binary.AppendVarint(b, int64(s))
	}
	var flags byte
	if res.Forfeit {
		flags |= flagForfeit
	}
	if r.Aborted {
		flags |= flagAborted
	}
	return append(b, flags)
}

// The result's flags byte (a bool, the forfeit flag, before format 4).
const (
	flagForfeit = 1 << iota
	flagAborted
)

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// Decode reads what Encode wrote. It never trusts a length or count: the
// decompressed body is capped at MaxDecodedSize and every count is checked
// against the bytes left, so garbage, truncation and absurd sizes come back
// as errors (matching ErrNotReplay, ErrVersion, ErrCorrupt, ErrTooLarge or
// ErrInvalidReplay) with bounded work and memory.
func Decode(b []byte) (*Replay, error) {
	if len(b) < len(magic)+1 || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("spectator: decode replay: %w", ErrNotReplay)
	}
	v := b[len(magic)]
	if v < 1 || v > FormatVersion {
		return nil, fmt.Errorf("spectator: decode replay: %w: %d (this server reads 1 to %d)", ErrVersion, v, FormatVersion)
	}
	src := bytes.NewReader(b[len(magic)+1:])
	zr, err := zlib.NewReader(src)
	if err != nil {
		return nil, fmt.Errorf("spectator: decode replay: %w: %w", ErrCorrupt, err)
	}
	body, err := io.ReadAll(io.LimitReader(zr, MaxDecodedSize+1))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("spectator: decode replay: %w: truncated", ErrCorrupt)
		}
		return nil, fmt.Errorf("spectator: decode replay: %w: %w", ErrCorrupt, err)
	}
	if len(body) > MaxDecodedSize {
		return nil, fmt.Errorf("spectator: decode replay: %w: body over %d bytes", ErrTooLarge, MaxDecodedSize)
	}
	// bytes.Reader is an io.ByteReader, so flate has read exactly its
	// stream: anything left is not part of the replay.
	if src.Len() != 0 {
		return nil, fmt.Errorf("spectator: decode replay: %w: %d trailing bytes", ErrCorrupt, src.Len())
	}
	r, err := parseBody(body, int(v))
	if err != nil {
		return nil, fmt.Errorf("spectator: decode replay: %w", err)
	}
	return r, nil
}

// parseBody decodes an uncompressed body of format version and validates
// the result.
func parseBody(body []byte, version int) (*Replay, error) {
	d := &decoder{b: body}
	r := &Replay{Version: version}
	r.Game = d.str("game")
	r.Room = d.str("room")
	if version < formatGeneric {
		r.Config, r.Slots = d.legacyConfig()
	} else {
		r.Config = []byte(d.strMax("config", maxConfig))
		r.Slots = int(d.uvarintMax("slots", MaxSlots))
	}
	r.Seed = d.u64("seed")
	r.TickRate = int(d.uvarintMax("tick rate", game.MaxTickRate))
	if d.bool("start flag") {
		sec := d.varint("start")
		nsec := d.uvarintMax("start nanoseconds", 999_999_999)
		r.Start = time.Unix(sec, int64(nsec)).UTC()
	}
	r.Ticks = d.uvarintMax("ticks", MaxTicks)
	slots := r.Slots
	r.Seats = make([]game.Player, slots)
	for i := range r.Seats {
		r.Seats[i] = game.Player{ID: game.PlayerID(d.str("player id")), Name: d.str("player name"), Guest: d.bool("guest flag")}
	}

	if version < formatGeneric {
		d.legacyLogs(r, version)
	} else {
		d.logs(r)
	}
	if n := d.count("hashes", 9); n > 0 {
		r.Hashes = make([]TickHash, 0, n)
		var tick uint64
		for range n {
			tick += d.uvarintMax("hash tick delta", MaxTicks)
			r.Hashes = append(r.Hashes, TickHash{Tick: tick, Hash: d.u64("hash")})
			if d.err != nil || tick > MaxTicks {
				d.fail("hash at tick %d", tick)
				break
			}
		}
	}
	r.FinalHash = d.u64("final hash")

	res := &r.Result
	n := d.count("placements", 1)
	if n > slots {
		d.fail("%d placements for %d slots", n, slots)
		n = 0
	}
	res.Placements = make([]int, n)
	for i := range res.Placements {
		res.Placements[i] = int(d.uvarintMax("placement", uint64(slots)))
	}
	res.Places = make([]int, slots)
	for i := range res.Places {
		res.Places[i] = int(d.uvarintMax("place", uint64(slots)))
	}
	res.Scores = make([]int, slots)
	for i := range res.Scores {
		res.Scores[i] = int(d.int32("score"))
	}
	if version < formatAborted {
		res.Forfeit = d.bool("forfeit flag")
	} else {
		f := d.byte("result flags")
		if f&^(flagForfeit|flagAborted) != 0 {
			d.fail("result flags %#x", f)
		}
		res.Forfeit, r.Aborted = f&flagForfeit != 0, f&flagAborted != 0
	}

	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != d.off {
		return nil, fmt.Errorf("%w: %d unexpected bytes after the result", ErrCorrupt, len(d.b)-d.off)
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return r, nil
}

func zigzag(a int8) uint64 { return uint64(uint8(a<<1) ^ uint8(a>>7)) }

func unzigzag(v uint64) int8 { return int8(uint8(v>>1) ^ -uint8(v&1)) }

// logs reads format 3's inputs and seat events.
func (d *decoder) logs(r *Replay) {
	if n := d.count("inputs", 2); n > 0 {
		r.Inputs = make([]InputChange, 0, n)
		var tick uint64
		var lag [MaxSlots]uint16
		for range n {
			p := d.byte("input")
			delta := uint64(p >> 4)
			if delta == deltaEscape {
				delta += d.uvarintMax("input tick delta", MaxTicks)
			}
			tick += delta
			in := InputChange{Tick: tick, Slot: p & 15}
			v := d.uvarintMax("input action", 511)
			in.Action = unzigzag(v >> 1)
			if v&1 != 0 {
				lag[in.Slot] = uint16(d.uvarintMax("input lag", MaxLag))
			}
			in.Lag = lag[in.Slot]
			r.Inputs = append(r.Inputs, in)
			if d.err != nil || tick > MaxTicks {
				d.fail("input at tick %d", tick)
				break
			}
		}
	}
	d.seatEvents(r, 4)
}

// legacyConfig reads the Pong config formats 1 and 2 held inline and
// returns it as the game's own encoding (the same bytes), with the seat
// count its mode gives.
func (d *decoder) legacyConfig() ([]byte, int) {
	start := d.off
	mode := d.byte("mode")
	for range legacyConfigFields {
		d.int32("config field")
	}
	if d.err != nil {
		return nil, 0
	}
	slots := 4
	if mode == 0 {
		slots = 2
	}
	return bytes.Clone(d.b[start:d.off]), slots
}

// legacyLogs reads the packed inputs and seat events of formats 1 and 2.
func (d *decoder) legacyLogs(r *Replay, version int) {
	if n := d.count("inputs", 1); n > 0 {
		r.Inputs = make([]InputChange, 0, n)
		var tick uint64
		for range n {
			p := d.byte("input")
			delta := uint64(p >> 4)
			if delta == deltaEscape {
				delta += d.uvarintMax("input tick delta", MaxTicks)
			}
			tick += delta
			in := InputChange{Tick: tick, Slot: p >> 2 & 3}
			switch p & 3 {
			case actPlus:
				in.Action = 1
			case actMinus:
				in.Action = -1
			case actZero:
			default:
				d.fail("input action code %d", p&3)
			}
			if version >= formatLag {
				in.Lag = uint16(d.uvarintMax("input lag", MaxLag))
			}
			r.Inputs = append(r.Inputs, in)
			if d.err != nil || tick > MaxTicks {
				d.fail("input at tick %d", tick)
				break
			}
		}
	}
	d.seatEvents(r, 2)
}

// seatEvents reads the seat events: a tick delta, then a byte of the kind
// above slotBits bits of slot (4 in format 3, 2 before).
func (d *decoder) seatEvents(r *Replay, slotBits uint) {
	n := d.count("seat events", 2)
	if n == 0 {
		return
	}
	r.SeatEvents = make([]SeatEvent, 0, n)
	var tick uint64
	for range n {
		tick += d.uvarintMax("seat event tick delta", MaxTicks)
		p := d.byte("seat event")
		r.SeatEvents = append(r.SeatEvents, SeatEvent{Tick: tick, Slot: p & (1<<slotBits - 1), Kind: SeatEventKind(p >> slotBits)})
		if d.err != nil || tick > MaxTicks {
			d.fail("seat event at tick %d", tick)
			break
		}
	}
}

// decoder reads a body front to back. The first error sticks and every
// later read returns a zero value, so parseBody reads straight through and
// checks once.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) truncated(what string) {
	d.fail("truncated in %s", what)
}

func (d *decoder) byte(what string) byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.b) {
		d.truncated(what)
		return 0
	}
	v := d.b[d.off]
	d.off++
	return v
}

func (d *decoder) bool(what string) bool {
	switch v := d.byte(what); v {
	case 0:
		return false
	case 1:
		return true
	default:
		d.fail("%s is %d, not 0 or 1", what, v)
		return false
	}
}

func (d *decoder) u64(what string) uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.b)-d.off < 8 {
		d.truncated(what)
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b[d.off:])
	d.off += 8
	return v
}

func (d *decoder) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	switch {
	case n == 0:
		d.truncated(what)
		return 0
	case n < 0:
		d.fail("%s: varint overflows 64 bits", what)
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) uvarintMax(what string, limit uint64) uint64 {
	v := d.uvarint(what)
	if v > limit {
		d.fail("%s %d over %d", what, v, limit)
		return 0
	}
	return v
}

func (d *decoder) varint(what string) int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.off:])
	switch {
	case n == 0:
		d.truncated(what)
		return 0
	case n < 0:
		d.fail("%s: varint overflows 64 bits", what)
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) int32(what string) int32 {
	v := d.varint(what)
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail("%s %d out of range", what, v)
		return 0
	}
	return int32(v)
}

// count reads an element count and refuses one the remaining bytes cannot
// hold at minSize bytes each, so no allocation is ever sized by an
// unchecked prefix.
func (d *decoder) count(what string, minSize int) int {
	n := d.uvarint(what + " count")
	if d.err != nil {
		return 0
	}
	if left := uint64(len(d.b) - d.off); n > left/uint64(minSize) {
		d.fail("%d %s in %d bytes", n, what, left)
		return 0
	}
	return int(n)
}

func (d *decoder) str(what string) string { return d.strMax(what, maxString) }

func (d *decoder) strMax(what string, limit uint64) string {
	n := d.uvarintMax(what+" length", limit)
	if d.err != nil {
		return ""
	}
	if uint64(len(d.b)-d.off) < n {
		d.truncated(what)
		return ""
	}
	s := string(d.b[d.off : d.off+int(n)])
	d.off += int(n)
	return s
}
