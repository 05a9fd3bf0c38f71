package codec

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

var errTest = errors.New("test encoding")

// A message read past its end, or holding a value out of bounds, is
// refused with the decoder's sentinel, and the first error is the one
// kept: later reads return zeros and do not replace it.
func TestReaderKeepsTheFirstError(t *testing.T) {
	msg := binary.AppendUvarint(nil, 300)
	msg = binary.AppendVarint(msg, -5)
	r := NewReader(msg, errTest)
	if v := r.Uvarint(299); v != 0 || !errors.Is(r.Err(), errTest) {
		t.Fatalf("Uvarint above its limit: %d, %v; want 0 and an errTest", v, r.Err())
	}
	first := r.Err()
	if v := r.Int32(-10, 10); v != 0 || r.Err() != first {
		t.Fatalf("a read after the error: %d, %v; want 0 and the first error kept", v, r.Err())
	}

	r = NewReader(msg, errTest)
	if v, w := r.Uvarint(math.MaxUint64), r.Int32(-10, 10); v != 300 || w != -5 || r.End() != nil {
		t.Fatalf("read %d, %d, end %v; want 300, -5 and no error", v, w, r.End())
	}
	if r.Take(1) != nil || !errors.Is(r.Err(), errTest) {
		t.Fatalf("Take past the end: %v; want truncated", r.Err())
	}
}

// A message with bytes left over is refused: decoders read messages whole.
func TestEndRefusesTrailingBytes(t *testing.T) {
	r := NewReader([]byte{1, 2, 3}, errTest)
	r.Byte()
	if err := r.End(); !errors.Is(err, errTest) {
		t.Fatalf("End with 2 bytes left: %v; want an errTest", err)
	}
}

// Take hands out bytes that appending to cannot write into the message.
func TestTakeCapsCapacity(t *testing.T) {
	msg := []byte{1, 2, 3, 4}
	r := NewReader(msg, errTest)
	b := r.Take(2)
	_ = append(b, 9)
	if msg[2] != 3 {
		t.Fatalf("appending to Take's bytes wrote into the message: %v", msg)
	}
	if r.Take(-1) != nil || r.Err() == nil {
		t.Fatal("Take(-1) was not refused")
	}
}
