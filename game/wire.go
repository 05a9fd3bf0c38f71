package game

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/termarena/termarena/game/codec"
)

// The frame wire format is how a room's frames reach sessions on other
// nodes of a cluster (about 100 bytes for a Pong 1v1 frame, a third of it
// the game's snapshot). It is versioned by its first byte; a decoder reads
// the versions it knows and refuses the rest, so nodes of two releases
// side by side fail loudly rather than draw garbage.
const (
	frameWireV1 = 1
	// MaxFrameWire bounds an encoded frame: NATS's default payload limit.
	// A decoder refuses anything longer before reading it.
	MaxFrameWire = 1 << 20
	// MaxWireSeats bounds the seats a frame on the wire may have (the
	// games' largest mode has 8).
	MaxWireSeats = 16
	maxWireID    = 128 // a player id: "SHA256:" and 43 base64 characters, or a guest id
	maxWireName  = 64
	maxWireRoom  = 64
)

// ErrFrameWire is matched by every error DecodeFrame returns.
var ErrFrameWire = errors.New("game: bad frame encoding")

// Frame flag bits on the wire.
const (
	wirePaused = 1 << iota
	wireWarmUp
	wireFailed
	wireState
	wireResult
	wireRoster
	wireForfeited
)

// Seat flag bits on the wire.
const (
	wireTaken = 1 << iota
	wireConnected
	wireReady
	wireGuest
)

// AppendFrame appends f's wire encoding to b. Its State is encoded by
// codec (nil: sent without one, as a waiting screen needs none).
func AppendFrame(b []byte, codec SnapshotCodec, f *Frame) ([]byte, error) {
	if len(f.Seats) > MaxWireSeats || len(f.Roster) > MaxWireSeats || len(f.Forfeited) > MaxWireSeats {
		return b, fmt.Errorf("game: encode frame: %d seats: more than %d", len(f.Seats), MaxWireSeats)
	}
	var flags byte
	for bit, on := range [...]bool{f.Paused, f.WarmUp, f.Failed, f.State != nil && codec != nil, f.Result != nil, f.Roster != nil, f.Forfeited != nil} {
		if on {
			flags |= 1 << bit
		}
	}
	b = append(b, frameWireV1, flags, byte(f.Phase))
	b = appendString(b, f.Room)
	b = binary.AppendUvarint(b, f.Seq)
	b = binary.AppendUvarint(b, f.Tick)
	b = binary.AppendUvarint(b, uint64(max(f.TickRate, 0)))
	b = binary.AppendUvarint(b, uint64(max(f.Left, 0)))
	b = binary.LittleEndian.AppendUint64(b, f.Seed)
	b = binary.AppendUvarint(b, uint64(len(f.Seats)))
	for i, s := range f.Seats {
		var sf byte
		for bit, on := range [...]bool{s.Taken, s.Connected, s.Ready, s.Player.Guest} {
			if on {
				sf |= 1 << bit
			}
		}
		b = append(b, sf)
		b = appendString(b, string(s.Player.ID))
		b = appendString(b, s.Player.Name)
		b = binary.AppendUvarint(b, uint64(max(s.GraceLeft, 0)))
		b = binary.AppendUvarint(b, s.Misbehaved)
		b = binary.AppendUvarint(b, uint64(max(s.Sessions, 0)))
		var ack uint32
		if i < len(f.Acks) {
			ack = f.Acks[i]
		}
		b = binary.AppendUvarint(b, uint64(ack))
	}
	if flags&wireState != 0 {
		// The snapshot goes last but for the result and roster, behind its
		// length, so the decoder hands the game exactly its bytes.
		st, err := codec.AppendSnapshot(nil, f.State)
		if err != nil {
			return b, fmt.Errorf("game: encode frame %s: %w", f.Room, err)
		}
		b = binary.AppendUvarint(b, uint64(len(st)))
		b = append(b, st...)
	}
	if r := f.Result; r != nil {
		if len(r.Placements) > MaxWireSeats || len(r.Places) > MaxWireSeats || len(r.Scores) > MaxWireSeats {
			return b, fmt.Errorf("game: encode frame %s: result of more than %d seats", f.Room, MaxWireSeats)
		}
		var rf byte
		if r.Forfeit {
			rf |= 1
		}
		if r.WarmUp {
			rf |= 2
		}
		b = append(b, rf)
		for _, list := range [...][]int{r.Placements, r.Places} {
			b = binary.AppendUvarint(b, uint64(len(list)))
			for _, v := range list {
				b = binary.AppendUvarint(b, uint64(max(v, 0)))
			}
		}
		b = binary.AppendUvarint(b, uint64(len(r.Scores)))
		for _, v := range r.Scores {
			b = binary.AppendVarint(b, int64(v))
		}
	}
	if f.Roster != nil {
		b = binary.AppendUvarint(b, uint64(len(f.Roster)))
		for _, p := range f.Roster {
			var g byte
			if p.Guest {
				g = 1
			}
			b = append(b, g)
			b = appendString(b, string(p.ID))
			b = appendString(b, p.Name)
		}
	}
	if f.Forfeited != nil {
		b = binary.AppendUvarint(b, uint64(len(f.Forfeited)))
		for _, v := range f.Forfeited {
			var x byte
			if v {
				x = 1
			}
			b = append(b, x)
		}
	}
	return b, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// DecodeFrame reads what AppendFrame wrote. It trusts nothing in data:
// every count is bounded (MaxWireSeats, the bytes left), every string is
// short, valid UTF-8 without control characters, and the State is the
// codec's to check; a frame it returns is one a screen can draw. A frame
// with a State and no codec to read it is refused.
func DecodeFrame(snaps SnapshotCodec, data []byte) (*Frame, error) {
	if len(data) > MaxFrameWire {
		return nil, fmt.Errorf("%w: %d bytes, more than %d", ErrFrameWire, len(data), MaxFrameWire)
	}
	r := codec.NewReader(data, ErrFrameWire)
	if v := r.Byte(); r.Err() == nil && v != frameWireV1 {
		return nil, fmt.Errorf("%w: version %d (this build reads %d)", ErrFrameWire, v, frameWireV1)
	}
	flags, phase := r.Byte(), Phase(r.Byte())
	if r.Err() == nil && (flags >= 1<<7 || phase > Closed) {
		r.Fail("flags %#x, phase %d", flags, phase)
	}
	f := &Frame{Phase: phase, Paused: flags&wirePaused != 0, WarmUp: flags&wireWarmUp != 0, Failed: flags&wireFailed != 0}
	f.Room = readStr(r, maxWireRoom)
	f.Seq = r.Uvarint(math.MaxUint64)
	f.Tick = r.Uvarint(math.MaxUint64)
	f.TickRate = int(r.Uvarint(MaxTickRate))
	f.Left = time.Duration(r.Uvarint(math.MaxInt64))
	f.Seed = r.Uint64()
	n := int(r.Uvarint(MaxWireSeats))
	if r.Err() == nil && n > 0 {
		f.Seats, f.Acks = make([]Seat, n), make([]uint32, n)
	}
	for i := 0; i < n && r.Err() == nil; i++ {
		sf := r.Byte()
		if sf >= 1<<4 {
			r.Fail("seat %d flags %#x", i, sf)
		}
		s := &f.Seats[i]
		s.Taken, s.Connected, s.Ready = sf&wireTaken != 0, sf&wireConnected != 0, sf&wireReady != 0
		s.Player = Player{ID: PlayerID(readStr(r, maxWireID)), Name: readStr(r, maxWireName), Guest: sf&wireGuest != 0}
		s.GraceLeft = time.Duration(r.Uvarint(math.MaxInt64))
		s.Misbehaved = r.Uvarint(math.MaxUint64)
		s.Sessions = int(r.Uvarint(math.MaxInt32))
		f.Acks[i] = uint32(r.Uvarint(math.MaxUint32))
	}
	if flags&wireState != 0 {
		size := r.Uvarint(uint64(r.Len()))
		st := r.Take(int(size))
		if r.Err() == nil {
			if snaps == nil {
				r.Fail("a snapshot and no codec to read it")
			} else if v, err := snaps.DecodeSnapshot(st); err != nil {
				r.FailWith("snapshot", err)
			} else {
				f.State = v
			}
		}
	}
	if flags&wireResult != 0 {
		res := &Result{}
		rf := r.Byte()
		if rf >= 1<<2 {
			r.Fail("result flags %#x", rf)
		}
		res.Forfeit, res.WarmUp = rf&1 != 0, rf&2 != 0
		res.Placements = readInts(r, n, uint64(max(n-1, 0)))
		res.Places = readInts(r, n, uint64(n))
		if k := int(r.Uvarint(uint64(n))); r.Err() == nil && k > 0 {
			res.Scores = make([]int, k)
			for i := range res.Scores {
				res.Scores[i] = int(r.Varint(math.MinInt32, math.MaxInt32))
			}
		}
		f.Result = res
	}
	if flags&wireRoster != 0 {
		k := int(r.Uvarint(MaxWireSeats))
		f.Roster = make([]Player, 0, k)
		for i := 0; i < k && r.Err() == nil; i++ {
			g := r.Byte()
			if g > 1 {
				r.Fail("roster %d guest flag %d", i, g)
			}
			f.Roster = append(f.Roster, Player{Guest: g == 1, ID: PlayerID(readStr(r, maxWireID)), Name: readStr(r, maxWireName)})
		}
	}
	if flags&wireForfeited != 0 {
		k := int(r.Uvarint(MaxWireSeats))
		f.Forfeited = make([]bool, 0, k)
		for i := 0; i < k && r.Err() == nil; i++ {
			v := r.Byte()
			if v > 1 {
				r.Fail("forfeited %d is %d", i, v)
			}
			f.Forfeited = append(f.Forfeited, v == 1)
		}
	}
	if err := r.End(); err != nil {
		return nil, err
	}
	return f, nil
}

// readInts reads a list of at most most values, each no larger than limit.
func readInts(r *codec.Reader, most int, limit uint64) []int {
	k := int(r.Uvarint(uint64(most)))
	if r.Err() != nil || k == 0 {
		return nil
	}
	out := make([]int, k)
	for i := range out {
		out[i] = int(r.Uvarint(limit))
	}
	return out
}

// readStr reads a string of at most limit bytes that can never move a cursor
// or change a colour on a terminal that prints it.
func readStr(r *codec.Reader, limit int) string {
	size := r.Uvarint(uint64(limit))
	b := r.Take(int(size))
	if r.Err() != nil {
		return ""
	}
	if !utf8.Valid(b) {
		r.Fail("a string that is not UTF-8")
		return ""
	}
	for _, c := range string(b) {
		if unicode.IsControl(c) {
			r.Fail("a control character in a string")
			return ""
		}
	}
	return string(b)
}
