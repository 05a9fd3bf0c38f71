package game

import (
	"sync"
	"time"
)

// Clock is the room's only source of time. Rooms take it as a dependency so
// tests (and later packages' tests) can drive whole matches on simulated time
// with no sleeps and no wall-clock assertions.
//
// Now is a monotonic reading since an arbitrary origin: a wall-clock step
// (NTP, a manual date change) must never speed up or stall the game.
type Clock interface {
	Now() time.Duration
	NewTimer(d time.Duration) Timer
}

// Timer follows the Go 1.23+ time.Timer contract: after Stop or Reset
// returns, no stale value is received from C.
//
// A consumer driven by a FakeClock must Reset or Stop its timer after each
// value it receives from C: the fake takes that as "handled", which is how
// FakeClock.Advance knows the consumer has caught up. The room does so on
// every turn of its loop.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
	Reset(d time.Duration) bool
}

// SystemClock returns the real monotonic clock, with its origin at the call.
func SystemClock() Clock { return systemClock{origin: time.Now()} }

type systemClock struct{ origin time.Time }

// time.Since uses the monotonic reading carried by origin, so wall-clock
// steps do not leak into Now.
func (c systemClock) Now() time.Duration { return time.Since(c.origin) }

func (c systemClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time        { return t.t.C }
func (t realTimer) Stop() bool                 { return t.t.Stop() }
func (t realTimer) Reset(d time.Duration) bool { return t.t.Reset(d) }

// FakeClock is a deterministic Clock for tests. Time moves only when the test
// calls Advance or Jump, and both return only once every timer they fired has
// been handled (its consumer called Reset or Stop on it), so after they
// return the room has run every tick that was due and published its frames.
//
// Every consumer that has an armed timer on the clock must be running (for a
// room: Run has been called), or Advance waits for it forever.
type FakeClock struct {
	mu      sync.Mutex
	handled sync.Cond // signalled when unacked drops
	now     time.Duration
	timers  []*fakeTimer // armed timers
	unacked int          // fired timers whose consumer has not Reset/Stopped them yet
	created uint64
}

// NewFakeClock returns a FakeClock reading zero.
func NewFakeClock() *FakeClock {
	c := &FakeClock{}
	c.handled.L = &c.mu
	return c
}

// Now implements Clock.
func (c *FakeClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer implements Clock.
func (c *FakeClock) NewTimer(d time.Duration) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.created++
	t := &fakeTimer{c: c, ch: make(chan time.Time, 1), order: c.created}
	t.arm(d)
	return t
}

// Advance moves time forward by d as if it flowed smoothly: each timer due
// within d fires at its own deadline (Now reads exactly that deadline while
// its consumer handles it), one at a time, earliest first. This is how a room
// that keeps up behaves: advancing one second at 60 Hz runs 60 ticks, each
// on time.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.run(c.now + max(d, 0))
}

// Jump moves time forward by d at once, then fires whatever is due, as if the
// consumers had been descheduled for d (a GC pause, an overloaded host). A
// room sees every overdue tick at the same instant, which is how its
// catch-up and drop logic is tested.
func (c *FakeClock) Jump(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now += max(d, 0)
	c.run(c.now)
}

// Pending reports how many timers are armed, for tests that want to know a
// consumer is waiting on the clock.
func (c *FakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// run fires timers due by target in deadline order, waiting for each to be
// handled before looking again, because handling usually arms the next one.
func (c *FakeClock) run(target time.Duration) {
	for {
		for c.unacked > 0 {
			c.handled.Wait()
		}
		var next *fakeTimer
		for _, t := range c.timers {
			if t.when > target {
				continue
			}
			if next == nil || t.when < next.when || (t.when == next.when && t.order < next.order) {
				next = t
			}
		}
		if next == nil {
			break
		}
		c.now = max(c.now, next.when)
		next.fire()
	}
	c.now = target
}

type fakeTimer struct {
	c       *FakeClock
	ch      chan time.Time
	when    time.Duration
	order   uint64 // ties on when fire in creation order, for determinism
	armed   bool
	pending bool // fired and not yet handled
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.disarm()
	t.ack()
	return was
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.disarm()
	t.ack()
	t.arm(d)
	return was
}

// arm, disarm, fire and ack run with c.mu held.

func (t *fakeTimer) arm(d time.Duration) {
	t.when = t.c.now + d
	if d <= 0 {
		t.fire()
		return
	}
	t.armed = true
	t.c.timers = append(t.c.timers, t)
}

func (t *fakeTimer) disarm() {
	if !t.armed {
		return
	}
	t.armed = false
	for i, o := range t.c.timers {
		if o == t {
			t.c.timers = append(t.c.timers[:i], t.c.timers[i+1:]...)
			break
		}
	}
}

func (t *fakeTimer) fire() {
	t.disarm()
	select {
	case t.ch <- time.Unix(0, 0).Add(t.when):
	default: // unreachable: a pending value is drained by ack before re-arming
	}
	if !t.pending {
		t.pending = true
		t.c.unacked++
	}
}

// ack drops an unreceived value, matching time.Timer's Go 1.23 semantics,
// and tells a waiting Advance that this consumer is done.
func (t *fakeTimer) ack() {
	select {
	case <-t.ch:
	default:
	}
	if t.pending {
		t.pending = false
		t.c.unacked--
		t.c.handled.Broadcast()
	}
}
