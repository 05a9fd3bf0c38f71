// Package pace owns the shared frame clocks that game screens draw on.
//
// Every session's game screen draws at a fixed rate. With a timer of its
// own, each of a thousand sessions costs a timer-heap operation and a timer
// channel send per frame, on top of its wake-up; under load those were a
// sixth of the server's CPU. A Clock is one ticker per frame rate that
// closes a channel on every beat, so all sessions at that rate wake from a
// single timer. Sessions that are busy (writing to a slow terminal) simply
// miss beats, as they would miss a time.Ticker's.
package pace

import (
	"sync"
	"sync/atomic"
	"time"
)

// Clocks hands out one shared Clock per frame rate. A clock's goroutine
// runs only while someone holds it, so a server with no players has none.
type Clocks struct {
	mu     sync.Mutex
	clocks map[int]*Clock
}

// New makes an empty set of clocks.
func New() *Clocks { return &Clocks{clocks: map[int]*Clock{}} }

// Clock beats fps times a second.
type Clock struct {
	fps   int
	users int // guarded by Clocks.mu
	cur   atomic.Pointer[beat]
	stop  chan struct{}
	done  chan struct{}
}

type beat struct {
	n  uint64        // beats before this one
	ch chan struct{} // closed when beat n+1 happens
}

// Acquire returns the clock for fps (clamped to 1–1000), starting it if
// nobody holds it yet. release must be called once when done; the last
// release stops the clock's goroutine before it returns.
func (cs *Clocks) Acquire(fps int) (c *Clock, release func()) {
	fps = min(max(fps, 1), 1000)
	cs.mu.Lock()
	c = cs.clocks[fps]
	if c == nil {
		c = &Clock{fps: fps, stop: make(chan struct{}), done: make(chan struct{})}
		c.cur.Store(&beat{ch: make(chan struct{})})
		cs.clocks[fps] = c
		go c.run()
	}
	c.users++
	cs.mu.Unlock()
	var once sync.Once
	return c, func() { once.Do(func() { cs.release(c) }) }
}

func (cs *Clocks) release(c *Clock) {
	cs.mu.Lock()
	c.users--
	last := c.users == 0
	if last {
		// Removed under the lock: an Acquire from now on starts a new
		// clock rather than joining one that is stopping.
		delete(cs.clocks, c.fps)
	}
	cs.mu.Unlock()
	if last {
		close(c.stop)
		<-c.done
	}
}

// FPS is the clock's rate.
func (c *Clock) FPS() int { return c.fps }

// Next returns a channel closed at the next beat, and how many beats there
// have been so far. A reader that drew for beat n+1 and next sees a count
// above n+1 missed the beats in between.
func (c *Clock) Next() (<-chan struct{}, uint64) {
	b := c.cur.Load()
	return b.ch, b.n
}

func (c *Clock) run() {
	defer close(c.done)
	t := time.NewTicker(time.Second / time.Duration(c.fps))
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			old := c.cur.Load()
			c.cur.Store(&beat{n: old.n + 1, ch: make(chan struct{})})
			close(old.ch)
		}
	}
}
