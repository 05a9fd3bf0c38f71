package web

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"testing"
	"time"
)

// A viewer's gzip stream mixes its own compressor's bytes with the room's
// shared stream however it falls in and out of step — joining with its
// own, taking a restart, following diffs, falling behind, a text event of
// its own, the next restart — and a gzip reader gets exactly the text it
// was sent, CRC and length checked at the end. The room compresses each
// frame once however many viewers are in step.
func TestSharedZipStreamsDecodeAsSent(t *testing.T) {
	var room sharedZip
	now := time.Unix(0, 0)
	frame := func(i int) (full, diff []byte) {
		full = []byte(fmt.Sprintf("data: {\"rows\":[%q,%q]}\n\n", fmt.Sprint("score ", i), bytes.Repeat([]byte{'x'}, 200+i%7)))
		diff = []byte(fmt.Sprintf("data: {\"diff\":{\"0\":%q}}\n\n", fmt.Sprint("score ", i)))
		return full, diff
	}
	pool := newFlatePool()
	type viewer struct {
		z     zipStream
		wire  bytes.Buffer
		want  bytes.Buffer
		last  int // frame sent last, -1 none
		every int // takes every n-th frame (1: keeps up)
	}
	vs := []*viewer{{every: 1, last: -1}, {every: 1, last: -1}, {every: 3, last: -1}}
	for _, v := range vs {
		v.z.pool = pool
	}
	shared := 0
	for i := 0; i < 200; i++ {
		now = now.Add(time.Second / 15)
		full, diff := frame(i)
		c := room.chunk(full, diff, now)
		for k, v := range vs {
			if i < k*20 || i%v.every != 0 {
				continue // not there yet, or slow
			}
			inStep := v.last == i-1
			raw := full
			if inStep {
				raw = diff
			}
			switch {
			case v.z.follows(c, inStep) && c.start:
				v.wire.Write(v.z.fromShared(c, full))
				raw = full
				shared++
			case v.z.follows(c, inStep):
				v.wire.Write(v.z.fromShared(c, diff))
				shared++
			default:
				room.want.Store(true)
				v.wire.Write(v.z.plain(raw))
			}
			v.want.Write(raw)
			v.last = i
			if i == 100 && k == 0 {
				beat := []byte(": beat\n\n")
				v.wire.Write(v.z.plain(beat))
				v.want.Write(beat)
			}
		}
	}
	for k, v := range vs {
		v.wire.Write(v.z.close())
		zr, err := gzip.NewReader(&v.wire)
		if err != nil {
			t.Fatalf("viewer %d: %v", k, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("viewer %d: reading its stream: %v", k, err)
		}
		if !bytes.Equal(got, v.want.Bytes()) {
			t.Fatalf("viewer %d decoded %d bytes, was sent %d; first difference at %d", k, len(got), v.want.Len(), firstDiff(got, v.want.Bytes()))
		}
	}
	// The two that keep up are in step from the first restart they see
	// (restarts come at most every 5 s: frames 0, 75, 150) until the
	// beat puts the first out of step until the next: 151 + 125 frames,
	// and the slow one's frames that are restarts.
	if shared < 270 {
		t.Fatalf("%d frames went out as the room's shared bytes, want at least 270", shared)
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
