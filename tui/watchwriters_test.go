package tui

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// frameCount counts the frames all watchers of a test were written, and
// signals reached when the count comes to want (a channel, not a spin, so
// that waiting schedules nothing but the waiter).
type frameCount struct {
	n, want atomic.Int64
	reached chan struct{}
}

// wait waits until the count is want (set before the writes it waits for).
func (c *frameCount) wait(t testing.TB) {
	t.Helper()
	select {
	case <-c.reached:
	case <-time.After(10 * time.Second):
		t.Fatalf("%d frames written, want %d", c.n.Load(), c.want.Load())
	}
}

// countingOut is a watcher's terminal that keeps nothing: it counts the
// frames written to it and, with who set, which goroutine wrote each.
type countingOut struct {
	frames *frameCount // shared by all watchers of a test
	who    *writerSet
}

func (o countingOut) WriteFrame(p []byte) error {
	if o.who != nil {
		o.who.add(goroutineID())
	}
	if o.frames.n.Add(1) == o.frames.want.Load() {
		o.frames.reached <- struct{}{}
	}
	return nil
}

// writerSet is the goroutines that wrote frames.
type writerSet struct {
	mu  sync.Mutex
	ids map[uint64]bool
}

func (w *writerSet) add(id uint64) {
	w.mu.Lock()
	w.ids[id] = true
	w.mu.Unlock()
}

func (w *writerSet) take() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(w.ids)
	w.ids = map[uint64]bool{}
	return n
}

// goroutineID is the calling goroutine's number, from its stack header
// ("goroutine 17 [running]:"). Tests only.
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	id, _ := strconv.ParseUint(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	return id
}

// sharedWatchers is n watchers of one painter (the painter itself is the
// caller, through g.WriteFrame), each writing to a countingOut.
func sharedWatchers(t testing.TB, n int, who *writerSet) (*watchGroup, *frameCount, func()) {
	hub := NewWatchHub(nil)
	g := &watchGroup{hub: hub, done: make(chan struct{}), seats: map[*watchSeat]struct{}{}}
	// The whole screen, so that every watcher's first delivery has
	// something to start from.
	g.whole.Store(&watchFrame{seq: 0, b: []byte("\x1b[H\x1b[2J")})
	frames := &frameCount{reached: make(chan struct{}, 1)}
	frames.want.Store(int64(n)) // the whole screen, to each
	ctx, cancel := context.WithCancel(context.Background())
	var seats []*watchSeat
	for range n {
		s := &watchSeat{hub: hub, out: countingOut{frames, who}, done: make(chan struct{})}
		s.group.Store(g)
		g.seats[s] = struct{}{}
		seats = append(seats, s)
		s.start(ctx)
	}
	stop := func() {
		cancel()
		for _, s := range seats {
			<-s.done
		}
	}
	return g, frames, stop
}

// A frame for many watchers of one painter is written by a few goroutines,
// not one a watcher: a thousand goroutines woken by one frame keep the
// room's tick waiting in the run queue behind them (issue 21). Every
// watcher still gets every frame, and once they stop no goroutine of the
// writers is left.
func TestOneFrameWakesAFewWritersNotOneAWatcher(t *testing.T) {
	const watchers, frames = 200, 10
	base := runtime.NumGoroutine()
	who := &writerSet{ids: map[uint64]bool{}}
	g, written, stop := sharedWatchers(t, watchers, who)
	written.wait(t) // the whole screen, to each
	who.take()
	most := 0
	for i := range frames {
		written.want.Store(int64(watchers * (i + 2)))
		_ = g.WriteFrame(fmt.Appendf(nil, "\x1b[1;1Hframe %d", i))
		written.wait(t)
		most = max(most, who.take())
	}
	// The pool keeps up to GOMAXPROCS (at most maxWatchWriters) free
	// workers, and starts one more for each it finds inside a write.
	if most > 2*maxWatchWriters {
		t.Fatalf("one frame to %d watchers was written by as many as %d goroutines, want a few", watchers, most)
	}
	t.Logf("one frame to %d watchers: written by at most %d goroutines", watchers, most)
	stop()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines after the watchers ended, %d before\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkSharedWatchFrame is one painted frame written to every watcher
// of a shared painter (their terminals discard it): what a frame costs the
// server per watcher beside the SSH write itself, and how many goroutines
// it wakes. sched/watcher-frame is goroutines put on a P per watcher per
// frame, from the runtime's scheduling-latency histogram (which samples
// one scheduling in 8 of each goroutine, so it is ×8 and approximate);
// goroutines/frame is goroutines started per frame.
func BenchmarkSharedWatchFrame(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("watchers=%d", n), func(b *testing.B) {
			g, written, stop := sharedWatchers(b, n, nil)
			defer stop()
			written.wait(b)
			frame := []byte("\x1b[12;40H●\x1b[12;39H ")
			sched0, created0 := schedCounts()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				written.want.Store(int64(n * (i + 2)))
				_ = g.WriteFrame(frame)
				written.wait(b)
			}
			b.StopTimer()
			sched1, created1 := schedCounts()
			frames := float64(b.N)
			b.ReportMetric(float64(sched1-sched0)*8/frames/float64(n), "sched/watcher-frame")
			b.ReportMetric(float64(created1-created0)/frames, "goroutines/frame")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/frames/float64(n), "ns/watcher-frame")
		})
	}
}

// schedCounts is the runtime's sampled count of goroutines scheduled and
// its count of goroutines created.
func schedCounts() (sched, created uint64) {
	s := []metrics.Sample{{Name: "/sched/latencies:seconds"}, {Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	for _, c := range s[0].Value.Float64Histogram().Counts {
		sched += c
	}
	return sched, s[1].Value.Uint64()
}
