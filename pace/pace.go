// Package pace owns the shared frame clocks that game screens draw on.
//
// Every session's game screen draws at a fixed rate. With a timer of its
// own, each of a thousand sessions costs a timer-heap operation and a timer
// channel send per frame, on top of its wake-up; under load those were a
// sixth of the server's CPU. A Clock is one ticker per frame rate that
// closes a channel on every beat, so all sessions at that rate wake from a
// single timer. Sessions that are busy (writing to a slow terminal) simply
// miss beats, as they would miss a time.Ticker's.
//
// Waking every session at the same instant would make each beat a burst:
// a thousand frame writes back to back, with every room tick and keypress
// that falls due meanwhile waiting behind them. So a clock spreads its
// sessions over Phases groups, one beat of its ticker per group in turn:
// a session still wakes fps times a second, and bursts are 1/Phases the
// size.
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
	// manual clocks beat only when Step is called, so a test can say
	// exactly when a beat falls instead of racing a ticker.
	manual bool
}

// New makes an empty set of clocks.
func New() *Clocks { return &Clocks{clocks: map[int]*Clock{}} }

// NewManual makes clocks that beat only when Step is called: for tests
// that must know whether something happened before or after a beat.
func NewManual() *Clocks { return &Clocks{clocks: map[int]*Clock{}, manual: true} }

// Step gives every group of every clock held now one beat. It does
// nothing for clocks made by New, which their tickers drive.
func (cs *Clocks) Step() {
	if !cs.manual {
		return
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, c := range cs.clocks {
		for g := range c.groups {
			c.beatGroup(g)
		}
	}
}

// Phases is how many groups a clock spreads its sessions over.
const Phases = 8

// Clock beats fps times a second for each of its Phases groups.
type Clock struct {
	fps    int
	users  int // guarded by Clocks.mu
	joined int // guarded by Clocks.mu: sessions ever given a group
	groups [Phases]atomic.Pointer[beat]
	stop   chan struct{}
	done   chan struct{}
}

// Beat is one session's place on a clock: its group's beats.
type Beat struct {
	c *Clock
	g int
}

type beat struct {
	n  uint64        // beats before this one
	ch chan struct{} // closed when beat n+1 happens
}

// Acquire returns a place on the clock for fps (clamped to 1–1000),
// starting the clock if nobody holds it yet; sessions are dealt to its
// groups in turn. release must be called once when done; the last release
// stops the clock's goroutine before it returns.
func (cs *Clocks) Acquire(fps int) (b Beat, release func()) {
	fps = min(max(fps, 1), 1000)
	cs.mu.Lock()
	c := cs.clocks[fps]
	if c == nil {
		c = &Clock{fps: fps, stop: make(chan struct{}), done: make(chan struct{})}
		for g := range c.groups {
			c.groups[g].Store(&beat{ch: make(chan struct{})})
		}
		cs.clocks[fps] = c
		if cs.manual {
			close(c.done) // no goroutine to wait for
		} else {
			go c.run()
		}
	}
	c.users++
	g := c.joined % Phases
	c.joined++
	cs.mu.Unlock()
	var once sync.Once
	return Beat{c, g}, func() { once.Do(func() { cs.release(c) }) }
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

// FPS is the rate the session's group beats at.
func (b Beat) FPS() int { return b.c.fps }

// Next returns a channel closed at the group's next beat, and how many
// beats the group has had so far. A reader that drew for beat n+1 and next
// sees a count above n+1 missed the beats in between.
func (b Beat) Next() (<-chan struct{}, uint64) {
	cur := b.c.groups[b.g].Load()
	return cur.ch, cur.n
}

// beatGroup ends group g's current beat and starts its next.
func (c *Clock) beatGroup(g int) {
	old := c.groups[g].Load()
	c.groups[g].Store(&beat{n: old.n + 1, ch: make(chan struct{})})
	close(old.ch)
}

func (c *Clock) run() {
	defer close(c.done)
	t := time.NewTicker(time.Second / time.Duration(c.fps*Phases))
	defer t.Stop()
	g := 0
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			c.beatGroup(g)
			g = (g + 1) % Phases
		}
	}
}
