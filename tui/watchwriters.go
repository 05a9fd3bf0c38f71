package tui

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// watchWriters writes shared painters' frames to their watchers' terminals
// from a few goroutines instead of one per watcher. With a goroutine per
// watcher, every frame a painter paints wakes all its watchers' goroutines
// at once; on a server with one P the room's tick goroutine then waits in
// the run queue behind a thousand of them (issue 21: tick lateness p99
// 15.5 ms with 1,000 watchers). Here a frame queues its watchers and wakes
// at most a worker per P; the workers write the watchers in turn and let
// the scheduler in between (yieldEvery), so a room whose tick comes due
// runs within that much of it.
//
// A terminal that stops reading blocks the worker writing to it (an SSH
// channel's write waits for the client's window), never the others: only
// workers between writes count as free to take the queue, so whoever queues
// work while every worker is inside a write starts another, and the
// watchers queued behind a stuck write go on getting frames. (With one P,
// a worker seen inside a write from another goroutine is blocked or
// preempted; the extra one costs a goroutine until the queue is empty.) The blocked worker ends when its write does — when the
// client reads again or the connection's blocked-output watchdog
// (server/deadconn.go) closes it. A watcher is in the queue at most once:
// a frame that comes while its previous write lasts is not queued again but
// marked, and the watcher is queued once more after that write, to get the
// newest frame (latest wins, as before).
//
// Workers start when there is work and end when the queue is empty, so an
// idle hub has no goroutine and nothing to close.
type watchWriters struct {
	// size is how many workers are kept free to take the queue while
	// it has that much work.
	size int

	mu sync.Mutex
	// queue[head:] are the watchers with something to write, in turn.
	queue   []*watchSeat
	head    int
	workers map[*watchWorker]struct{}
}

const (
	// yieldEvery is how long a worker writes before it lets any other
	// runnable goroutine (a room's tick, a painter) run first.
	yieldEvery = 250 * time.Microsecond
	// maxWatchWriters caps the pool on a machine with many cores: more
	// workers than that only contend for the queue.
	maxWatchWriters = 4
)

// watchWorker is one of the pool's goroutines.
type watchWorker struct {
	// since is when the write in progress started (unix nanoseconds; 0:
	// between writes).
	since atomic.Int64
}

func newWatchWriters() *watchWriters {
	return &watchWriters{size: min(max(runtime.GOMAXPROCS(0), 1), maxWatchWriters), workers: map[*watchWorker]struct{}{}}
}

// Seat states: who may touch a seat's writing state (shown, seq, buf) is
// the worker that moved it to seatWriting.
const (
	seatNew     int32 = iota // not started: a poke before start queues nothing
	seatIdle                 // nothing to write
	seatQueued               // in the queue
	seatWriting              // a worker is writing it
	seatAgain                // a worker is writing it, and more came meanwhile
	seatEnded                // ended: never queued again
)

// kick queues s to be written (what it lacks of its painter's newest
// frame, or its end). It never waits for a write.
func (p *watchWriters) kick(s *watchSeat) {
	if s.mark() {
		p.mu.Lock()
		p.queue = append(p.queue, s)
		p.spawnLocked()
		p.mu.Unlock()
	}
}

// kickAll queues every seat in seats under one lock, as one frame's
// wake-up: the workers start once, after the whole frame is queued.
func (p *watchWriters) kickAll(seats map[*watchSeat]struct{}) {
	p.mu.Lock()
	for s := range seats {
		if s.mark() {
			p.queue = append(p.queue, s)
		}
	}
	p.spawnLocked()
	p.mu.Unlock()
}

// mark moves s to queued and reports whether the caller must queue it:
// false when it is queued already, being written (then marked to go again)
// or ended.
func (s *watchSeat) mark() bool {
	for {
		switch st := s.state.Load(); st {
		case seatIdle:
			if s.state.CompareAndSwap(seatIdle, seatQueued) {
				return true
			}
		case seatWriting:
			if s.state.CompareAndSwap(seatWriting, seatAgain) {
				return false
			}
		default:
			return false
		}
	}
}

// spawnLocked starts workers until min(size, queued) of them are free to
// take the queue (not inside a write); p.mu is held.
func (p *watchWriters) spawnLocked() {
	want := min(p.size, len(p.queue)-p.head)
	free := 0
	for w := range p.workers {
		if free >= want {
			return
		}
		if w.since.Load() == 0 {
			free++
		}
	}
	for ; free < want; free++ {
		w := &watchWorker{}
		p.workers[w] = struct{}{}
		go p.work(w)
	}
}

// take is the next seat to write, nil when there is none (and then w has
// left the pool).
func (p *watchWriters) take(w *watchWorker) *watchSeat {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.head == len(p.queue) {
		delete(p.workers, w)
		// Empty: start again at the array's front; a burst's big
		// array is let go.
		p.queue, p.head = p.queue[:0], 0
		if cap(p.queue) > 4096 {
			p.queue = nil
		}
		return nil
	}
	s := p.queue[p.head]
	p.queue[p.head] = nil
	p.head++
	if p.head >= 1024 && p.head*2 >= len(p.queue) {
		// A queue that never runs dry (more work than the workers
		// keep up with) would grow its array for ever: move the rest
		// to the front.
		n := copy(p.queue, p.queue[p.head:])
		clear(p.queue[n:])
		p.queue, p.head = p.queue[:n], 0
	}
	return s
}

// work writes queued seats until there are none.
func (p *watchWriters) work(w *watchWorker) {
	last := time.Now()
	for {
		s := p.take(w)
		if s == nil {
			return
		}
		s.state.Store(seatWriting)
		w.since.Store(time.Now().UnixNano())
		s.serve()
		w.since.Store(0)
		if !s.state.CompareAndSwap(seatWriting, seatIdle) && s.state.CompareAndSwap(seatAgain, seatQueued) {
			// A newer frame came during the write: to the back of the
			// queue, so every watcher gets one before any gets two.
			p.mu.Lock()
			p.queue = append(p.queue, s)
			p.mu.Unlock()
		}
		if now := time.Now(); now.Sub(last) >= yieldEvery {
			runtime.Gosched()
			last = time.Now()
		}
	}
}
