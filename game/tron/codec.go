package tron

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/codec"
)

// snapshotVersion is the first byte of an encoded Snapshot.
const snapshotVersion = 1

// ErrSnapshotEncoding is matched by every error DecodeSnapshot returns.
var ErrSnapshotEncoding = errors.New("tron: bad snapshot encoding")

// Cycle flag bits in the encoding.
const (
	flagSeated = 1 << iota
	flagPending
	flagLeft
	flagRider
	flagAlive
	flagAll = flagSeated | flagPending | flagLeft | flagRider | flagAlive
)

// AppendBinary appends the encoding of s to b: a version byte, the encoded
// Config, the counters as uvarints, each seat in a few bytes, and the grid
// run-length encoded as (owner+1 byte, uvarint run-1) pairs. Trails are
// long straight runs on a mostly empty arena, so a busy 8-player arena is
// a few hundred bytes to a few kilobytes instead of Width×Height.
func (s *Snapshot) AppendBinary(b []byte) ([]byte, error) {
	if s.Config == nil {
		return b, fmt.Errorf("tron: encode snapshot: no config")
	}
	if len(s.Grid) != s.Width*s.Height || s.Width != s.Config.Width || s.Height != s.Config.Height ||
		s.Slots != s.Config.Players {
		return b, fmt.Errorf("tron: encode snapshot: grid %d cells, arena %dx%d, %d slots: not the config's",
			len(s.Grid), s.Width, s.Height, s.Slots)
	}
	b = append(b, snapshotVersion)
	b, err := s.Config.AppendBinary(b)
	if err != nil {
		return b, fmt.Errorf("tron: encode snapshot: %w", err)
	}
	b = binary.AppendUvarint(b, s.Tick)
	for _, v := range [...]int32{s.Round, s.MoveIn, s.HoldIn, s.PauseIn} {
		b = binary.AppendUvarint(b, uint64(uint32(v)))
	}
	var flags byte
	if s.Over {
		flags |= 1
	}
	if s.Forfeit {
		flags |= 2
	}
	b = append(b, s.RoundWinners, flags, s.Winners)
	for i := range s.Slots {
		c := &s.Cycles[i]
		var f byte
		for bit, v := range [...]bool{c.Seated, c.Pending, c.Left, c.Rider, c.Alive} {
			if v {
				f |= 1 << bit
			}
		}
		b = append(b, f, byte(c.X), byte(c.Y), byte(c.Heading), byte(c.Queue[0]), byte(c.Queue[1]), byte(c.Place))
		b = binary.AppendUvarint(b, uint64(uint32(c.Wins)))
		b = binary.AppendUvarint(b, uint64(c.Survival))
	}
	for i := 0; i < len(s.Grid); {
		v := s.Grid[i]
		j := i + 1
		for j < len(s.Grid) && s.Grid[j] == v {
			j++
		}
		b = append(b, v)
		b = binary.AppendUvarint(b, uint64(j-i-1))
		i = j
	}
	return b, nil
}

// MarshalBinary is AppendBinary to a new slice.
func (s *Snapshot) MarshalBinary() ([]byte, error) { return s.AppendBinary(nil) }

// UnmarshalBinary decodes what MarshalBinary wrote, checking every value
// against the decoded config, so a decoded snapshot is one a view can draw
// without bounds surprises.
func (s *Snapshot) UnmarshalBinary(data []byte) error {
	d, err := DecodeSnapshot(data)
	if err != nil {
		return err
	}
	*s = *d
	return nil
}

// DecodeSnapshot reads what Snapshot.MarshalBinary wrote. It trusts no
// count or value: everything is checked against the decoded config.
func DecodeSnapshot(data []byte) (*Snapshot, error) {
	r := codec.NewReader(data, ErrSnapshotEncoding)
	if v := r.Byte(); r.Err() == nil && v != snapshotVersion {
		return nil, fmt.Errorf("%w: version %d (want %d)", ErrSnapshotEncoding, v, snapshotVersion)
	}
	if r.Err() != nil {
		return nil, r.Err()
	}
	cfg := new(Config)
	n, err := cfg.decode(r.Rest())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSnapshotEncoding, err)
	}
	r.Skip(n)
	s := &Snapshot{Config: cfg, Width: cfg.Width, Height: cfg.Height, Slots: cfg.Players}
	s.Tick = r.Uvarint(math.MaxUint64)
	for _, p := range [...]*int32{&s.Round, &s.MoveIn, &s.HoldIn, &s.PauseIn} {
		*p = int32(r.Uvarint(math.MaxInt32))
	}
	all := byte(1<<cfg.Players - 1)
	s.RoundWinners = r.Byte()
	flags := r.Byte()
	s.Winners = r.Byte()
	if r.Err() == nil && (s.RoundWinners&^all != 0 || flags&^3 != 0 || s.Winners&^all != 0) {
		r.Fail("round winners %#x, flags %#x, winners %#x", s.RoundWinners, flags, s.Winners)
	}
	s.Over, s.Forfeit = flags&1 != 0, flags&2 != 0
	for i := range cfg.Players {
		c := &s.Cycles[i]
		f := r.Byte()
		x, y := r.Byte(), r.Byte()
		h, q0, q1, place := int8(r.Byte()), int8(r.Byte()), int8(r.Byte()), int8(r.Byte())
		c.Wins = int32(r.Uvarint(math.MaxInt32))
		c.Survival = uint32(r.Uvarint(math.MaxUint32))
		if r.Err() != nil {
			break
		}
		if f&^flagAll != 0 || int(x) >= cfg.Width || int(y) >= cfg.Height || h < None || h > Right ||
			q0 < None || q0 > Right || q1 < None || q1 > Right || place < 0 || int(place) > cfg.Players {
			r.Fail("seat %d: flags %#x, head (%d,%d), heading %d, queue %d %d, place %d", i, f, x, y, h, q0, q1, place)
			break
		}
		c.Seated, c.Pending, c.Left = f&flagSeated != 0, f&flagPending != 0, f&flagLeft != 0
		c.Rider, c.Alive = f&flagRider != 0, f&flagAlive != 0
		c.X, c.Y, c.Heading, c.Queue, c.Place = int16(x), int16(y), h, [QueueLen]int8{q0, q1}, place
	}
	cells := cfg.Width * cfg.Height
	s.Grid = make([]byte, 0, cells)
	for r.Err() == nil && len(s.Grid) < cells {
		v := r.Byte()
		run := r.Uvarint(uint64(cells-len(s.Grid)-1)) + 1
		if r.Err() == nil && int(v) > cfg.Players {
			r.Fail("cell owner %d with %d players", v, cfg.Players)
		}
		if r.Err() != nil {
			break
		}
		for range run {
			s.Grid = append(s.Grid, v)
		}
	}
	if err := r.End(); err != nil {
		return nil, err
	}
	return s, nil
}

var _ game.SnapshotCodec = Kind{}

// AppendSnapshot appends the encoding of a *Snapshot (game.SnapshotCodec).
func (Kind) AppendSnapshot(b []byte, state any) ([]byte, error) {
	s, ok := state.(*Snapshot)
	if !ok || s == nil {
		return b, fmt.Errorf("tron: encode snapshot: a %T, not a *tron.Snapshot", state)
	}
	return s.AppendBinary(b)
}

// DecodeSnapshot reads what AppendSnapshot wrote (game.SnapshotCodec).
func (Kind) DecodeSnapshot(data []byte) (any, error) { return DecodeSnapshot(data) }
