// Package codec reads the compact binary encodings that games' snapshots
// and rooms' frames cross the network in (game.SnapshotCodec, the frame
// wire format). The bytes come from another node and are not trusted: a
// Reader checks every length and bound before it allocates, keeps the first
// error and reads zeros after it, so a decoder reads a whole message and
// checks once at the end instead of after every field.
package codec

import (
	"encoding/binary"
	"fmt"
)

// Reader consumes a message front to back.
type Reader struct {
	b    []byte
	err  error
	kind error
}

// NewReader reads data; every error it returns wraps kind (the decoder's
// sentinel, e.g. a game's ErrSnapshotEncoding), so callers can match it.
func NewReader(data []byte, kind error) *Reader { return &Reader{b: data, kind: kind} }

// Err is the first error met, nil while every read has succeeded.
func (r *Reader) Err() error { return r.err }

// Fail records an error (the first one only) as kind: format.
func (r *Reader) Fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", r.kind, fmt.Sprintf(format, args...))
	}
}

// FailWith records err (the first error only) as kind: what: err.
func (r *Reader) FailWith(what string, err error) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s: %w", r.kind, what, err)
	}
}

// Len is how many bytes are left.
func (r *Reader) Len() int { return len(r.b) }

// Rest is the bytes left, for a part another decoder reads; Skip then
// steps over what it took.
func (r *Reader) Rest() []byte { return r.b }

// Skip steps over n bytes (Take without the bytes).
func (r *Reader) Skip(n int) { r.Take(n) }

// Take returns the next n bytes (capacity n: appending to them cannot
// touch the message).
func (r *Reader) Take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.Fail("truncated")
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if v := r.Take(1); v != nil {
		return v[0]
	}
	return 0
}

// Uint64 reads 8 bytes, little endian.
func (r *Reader) Uint64() uint64 {
	if v := r.Take(8); v != nil {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}

// Uvarint reads a uvarint no larger than limit.
func (r *Reader) Uvarint(limit uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.Fail("truncated or overlong varint")
		return 0
	}
	if v > limit {
		r.Fail("value %d above %d", v, limit)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Varint reads a varint in [lo, hi].
func (r *Reader) Varint(lo, hi int64) int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.Fail("truncated or overlong varint")
		return 0
	}
	if v < lo || v > hi {
		r.Fail("value %d outside %d..%d", v, lo, hi)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Int32 reads a varint in [lo, hi].
func (r *Reader) Int32(lo, hi int32) int32 { return int32(r.Varint(int64(lo), int64(hi))) }

// End is the decoder's last check: the first error, else one for bytes
// left over (a message is read whole or refused).
func (r *Reader) End() error {
	if r.err == nil && len(r.b) != 0 {
		r.Fail("%d trailing bytes", len(r.b))
	}
	return r.err
}
