package web

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Compressing a live stream per viewer was most of what a web viewer
// cost the server (a deflate flush per frame per viewer: 80 % of the
// server's CPU with 300 viewers, BENCHMARKS.md). So each room's frames are
// compressed once, as one deflate stream that every viewer in step shares:
// a viewer that got every frame since the stream's last restart gets the
// shared bytes; one that joins, falls behind or was sent anything else
// gets its frames from a compressor of its own until the shared stream
// restarts at a whole frame, which it asks for (at most once every
// zipRestartEvery). Each viewer's gzip framing (header, CRC, length) is
// its own; the bytes of a deflate stream restarted at a whole frame refer
// to nothing before it, so they continue any viewer's stream.

// zipRestartEvery bounds how often a room's shared stream restarts for
// viewers out of step: a restart sends every viewer a whole frame.
const zipRestartEvery = 5 * time.Second

// zipChunk is a frame's bytes in the room's shared deflate stream: the
// stream's run (restarts counted), and whether the run starts here (with
// the whole frame) or continues from the frame before (its row diff).
type zipChunk struct {
	run   uint64
	start bool
	b     []byte
}

// sharedZip is a room's shared deflate stream, owned by its painter.
type sharedZip struct {
	zw      *flate.Writer
	buf     bytes.Buffer
	run     uint64
	started time.Time
	// want: a viewer is out of step and waits for a restart (set by
	// viewers, taken by the painter).
	want atomic.Bool
}

// chunk compresses the frame (full, and its diff from the frame before)
// into the shared stream: a restart with the whole frame when there is
// no stream yet or a viewer waits for one, else the diff.
func (z *sharedZip) chunk(full, diff []byte, now time.Time) *zipChunk {
	restart := z.zw == nil
	if !restart && now.Sub(z.started) >= zipRestartEvery && z.want.Swap(false) {
		restart = true
	}
	z.buf.Reset()
	if restart {
		if z.zw == nil {
			z.zw, _ = flate.NewWriter(&z.buf, flate.DefaultCompression)
		} else {
			z.zw.Reset(&z.buf)
		}
		z.run++
		z.started = now
		z.zw.Write(full)
	} else {
		z.zw.Write(diff)
	}
	z.zw.Flush()
	return &zipChunk{run: z.run, start: restart, b: bytes.Clone(z.buf.Bytes())}
}

// gzipHeader opens a gzip member: deflate, no name, no time, unknown OS.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// zipStream is one viewer's gzip framing over a mix of shared and own
// deflate bytes.
type zipStream struct {
	pool *sync.Pool // *flate.Writer
	own  *flate.Writer
	buf  bytes.Buffer
	// shared: the last bytes sent were the room's shared stream, of run
	// run; ownInStep: they were own's (which may then refer back to them).
	shared, ownInStep bool
	run               uint64
	crc, size         uint32
	opened            bool
}

func newFlatePool() *sync.Pool {
	return &sync.Pool{New: func() any { w, _ := flate.NewWriter(nil, flate.DefaultCompression); return w }}
}

// open is the gzip header, once.
func (z *zipStream) open(out []byte) []byte {
	if z.opened {
		return out
	}
	z.opened = true
	return append(out, gzipHeader...)
}

// plain compresses b with the viewer's own compressor and returns what to
// write. After shared bytes the compressor starts afresh: what it said
// before is no longer the end of what the viewer has.
func (z *zipStream) plain(b []byte) []byte {
	out := z.open(nil)
	if z.own == nil {
		z.own = z.pool.Get().(*flate.Writer)
		z.ownInStep = false
	}
	z.buf.Reset()
	if !z.ownInStep {
		z.own.Reset(&z.buf)
	}
	z.shared, z.ownInStep = false, true
	z.own.Write(b)
	z.own.Flush()
	z.account(b)
	return append(out, z.buf.Bytes()...)
}

// fromShared returns the shared chunk c (whose text is raw) to write; the
// viewer's own compressor goes back to the pool while it is in step.
func (z *zipStream) fromShared(c *zipChunk, raw []byte) []byte {
	out := z.open(nil)
	z.shared, z.run, z.ownInStep = true, c.run, false
	z.account(raw)
	z.release()
	return append(out, c.b...)
}

// follows: c continues the shared stream this viewer is in step with
// (its frame comes right after the one sent last, of the same run).
func (z *zipStream) follows(c *zipChunk, inStep bool) bool {
	return c != nil && (c.start || inStep && z.shared && c.run == z.run)
}

func (z *zipStream) account(b []byte) {
	z.crc = crc32.Update(z.crc, crc32.IEEETable, b)
	z.size += uint32(len(b))
}

// close is the end of the gzip member: an empty final block, the CRC and
// the length.
func (z *zipStream) close() []byte {
	out := append(z.open(nil), 1, 0, 0, 0xff, 0xff)
	out = binary.LittleEndian.AppendUint32(out, z.crc)
	out = binary.LittleEndian.AppendUint32(out, z.size)
	z.release()
	return out
}

// release gives the own compressor back.
func (z *zipStream) release() {
	if z.own != nil {
		z.own.Reset(nil)
		z.pool.Put(z.own)
		z.own = nil
	}
}

// acceptsGzip: the client takes a gzipped stream.
func acceptsGzip(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept-Encoding"), "gzip")
}
