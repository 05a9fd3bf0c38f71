//go:build linux

package main

import (
	"syscall"
	"testing"
	"time"
)

// cpuPerOp reports the process's CPU time per op ("cpu-ns/op") beside
// the wall time: on a shared machine ns/op counts the time other
// processes held the core, CPU time only this one's work.
func cpuPerOp(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	b.ResetTimer()
	start := cpu()
	return func() {
		b.StopTimer()
		b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkTrackerFrame is the tool's own per-frame parsing of a typical
// in-play frame (ball and paddle moves: cursor moves, colours and half
// blocks, about 60 bytes), after a full board.
func BenchmarkTrackerFrame(b *testing.B) {
	tr := newTracker(80, 24)
	tr.Write(boardFrame("▸ann 1  bob 0", "w/s ↑/↓ move · q leave"))
	frames := [][]byte{
		[]byte("\x1b7\x1b[14;40H\x1b[38;5;15m▀\x1b[14;41H \x1b[9;3H\x1b[38;5;39m \x1b[13;3H█\x1b[0m\x1b8"),
		[]byte("\x1b7\x1b[14;40H \x1b[15;41H\x1b[38;5;15m▄\x1b[13;3H\x1b[38;5;39m \x1b[9;3H█\x1b[0m\x1b8"),
	}
	n := 0
	for _, f := range frames {
		n += len(f)
	}
	b.SetBytes(int64(n / len(frames)))
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for i := range b.N {
		tr.Write(frames[i%2])
	}
	if tr.frames == 0 || tr.phase != phasePlay {
		b.Fatalf("frames %d phase %v", tr.frames, tr.phase)
	}
}

// BenchmarkVerifierFrame is what a verified session adds per frame: the
// emulator (only --verify sessions pay it), without the check.
func BenchmarkVerifierFrame(b *testing.B) {
	v := newVerifier(80, 24, "ann")
	v.Write(boardFrame("▸ann 1  bob 0", "w/s ↑/↓ move · q leave"))
	f := []byte("\x1b7\x1b[14;40H\x1b[38;5;15m▀\x1b[14;41H \x1b[9;3H\x1b[38;5;39m \x1b[13;3H█\x1b[0m\x1b8")
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for range b.N {
		v.Write(f)
	}
}

// BenchmarkVerifierCheck is one screen check (once a second per verified
// session).
func BenchmarkVerifierCheck(b *testing.B) {
	v := newVerifier(80, 24, "ann")
	v.Write(boardFrame("▸ann 1  bob 0", "w/s ↑/↓ move · q leave"))
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for range b.N {
		if ok, why := v.check(); !ok {
			b.Fatal(why)
		}
	}
}
