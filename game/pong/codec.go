package pong

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
var ErrSnapshotEncoding = errors.New("pong: bad snapshot encoding")

var _ game.SnapshotCodec = Kind{}

// AppendSnapshot appends the encoding of a *Snapshot (game.SnapshotCodec).
func (Kind) AppendSnapshot(b []byte, state any) ([]byte, error) {
	s, ok := state.(*Snapshot)
	if !ok || s == nil {
		return b, fmt.Errorf("pong: encode snapshot: a %T, not a *pong.Snapshot", state)
	}
	return s.AppendBinary(b)
}

// DecodeSnapshot reads what AppendSnapshot wrote (game.SnapshotCodec).
func (Kind) DecodeSnapshot(data []byte) (any, error) { return DecodeSnapshot(data) }

// Snapshot flag bits in the encoding.
const (
	snapLive = 1 << iota
	snapContested
	snapOver
	snapForfeit
	snapAll = snapLive | snapContested | snapOver | snapForfeit
)

// Paddle flag bits in the encoding.
const (
	paddlePresent = 1 << iota
	paddleJoining
	paddleOut
)

// AppendBinary appends the encoding of s to b: a version byte, the
// encoded Config behind its length, then every number as a varint and the
// booleans as bits; a 1v1 snapshot is about 45 bytes. Mode, Width and
// Height are the config's, so they are not sent twice.
func (s *Snapshot) AppendBinary(b []byte) ([]byte, error) {
	if s.Config == nil {
		return b, fmt.Errorf("pong: encode snapshot: no config")
	}
	cfg, err := s.Config.MarshalBinary()
	if err != nil {
		return b, fmt.Errorf("pong: encode snapshot: %w", err)
	}
	b = append(b, snapshotVersion)
	b = binary.AppendUvarint(b, uint64(len(cfg)))
	b = append(b, cfg...)
	b = binary.AppendUvarint(b, s.Tick)
	var flags byte
	for bit, on := range [...]bool{s.Ball.Live, s.Contested, s.Over, s.Forfeit} {
		if on {
			flags |= 1 << bit
		}
	}
	b = append(b, flags, s.Winners, byte(s.LastPointBy), byte(s.LastPointAgainst))
	b = binary.AppendUvarint(b, s.LastPointTick)
	for _, v := range [...]int32{s.Ball.X, s.Ball.Y, s.Ball.VX, s.Ball.VY, s.ServeIn} {
		b = binary.AppendVarint(b, int64(v))
	}
	for i := range s.Config.Slots() {
		p := &s.Paddles[i]
		var pf byte
		for bit, on := range [...]bool{p.Present, p.Joining, p.Out} {
			if on {
				pf |= 1 << bit
			}
		}
		b = append(b, pf, byte(p.Dir))
		for _, v := range [...]int32{p.Tap, p.Pos, p.Len, s.Scores[i], s.Lives[i], s.Hits[i]} {
			b = binary.AppendVarint(b, int64(v))
		}
	}
	return b, nil
}

// DecodeSnapshot reads what Snapshot.AppendBinary wrote. It trusts no
// count or value: the config must validate, and every position, speed and
// length must lie where the config's board puts them, so a view can draw
// the result without bounds surprises.
func DecodeSnapshot(data []byte) (*Snapshot, error) {
	r := codec.NewReader(data, ErrSnapshotEncoding)
	if v := r.Byte(); r.Err() == nil && v != snapshotVersion {
		return nil, fmt.Errorf("%w: version %d (want %d)", ErrSnapshotEncoding, v, snapshotVersion)
	}
	size := r.Uvarint(uint64(r.Len()))
	raw := r.Take(int(size))
	if r.Err() != nil {
		return nil, r.Err()
	}
	cfg := new(Config)
	if err := cfg.UnmarshalBinary(raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSnapshotEncoding, err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSnapshotEncoding, err)
	}
	s := &Snapshot{Config: cfg, Mode: cfg.Mode, Width: cfg.Width, Height: cfg.Height}
	s.Tick = r.Uvarint(math.MaxUint64)
	flags, winners := r.Byte(), r.Byte()
	s.LastPointBy, s.LastPointAgainst = int8(r.Byte()), int8(r.Byte())
	s.LastPointTick = r.Uvarint(math.MaxUint64)
	slots := cfg.Slots()
	if r.Err() == nil && (flags&^snapAll != 0 || winners>>slots != 0 ||
		s.LastPointBy < -1 || int(s.LastPointBy) >= slots || s.LastPointAgainst < -1 || int(s.LastPointAgainst) >= slots) {
		r.Fail("flags %#x, winners %#x, last point %d against %d", flags, winners, s.LastPointBy, s.LastPointAgainst)
	}
	s.Ball.Live, s.Contested, s.Over, s.Forfeit = flags&snapLive != 0, flags&snapContested != 0, flags&snapOver != 0, flags&snapForfeit != 0
	s.Winners = winners
	w, h := cfg.Width*Sub, cfg.Height*Sub
	s.Ball.X, s.Ball.Y = r.Int32(0, w), r.Int32(0, h)
	s.Ball.VX, s.Ball.VY = r.Int32(-cfg.MaxBallSpeed, cfg.MaxBallSpeed), r.Int32(-cfg.MaxBallSpeed, cfg.MaxBallSpeed)
	s.ServeIn = r.Int32(0, int32(cfg.ServeDelayTicks))
	for i := 0; i < slots && r.Err() == nil; i++ {
		p := &s.Paddles[i]
		pf, dir := r.Byte(), int8(r.Byte())
		if r.Err() == nil && (pf >= 1<<3 || dir < -1 || dir > 1) {
			r.Fail("paddle %d flags %#x, direction %d", i, pf, dir)
		}
		p.Present, p.Joining, p.Out, p.Dir = pf&paddlePresent != 0, pf&paddleJoining != 0, pf&paddleOut != 0, dir
		p.Tap = r.Int32(0, math.MaxInt32)
		p.Pos = r.Int32(0, cfg.sideLen(i))
		p.Len = r.Int32(0, cfg.PaddleLen*Sub)
		s.Scores[i] = r.Int32(0, math.MaxInt32)
		s.Lives[i] = r.Int32(0, int32(cfg.Lives))
		s.Hits[i] = r.Int32(0, math.MaxInt32)
	}
	if err := r.End(); err != nil {
		return nil, err
	}
	return s, nil
}
