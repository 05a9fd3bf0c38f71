package spectator

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/termarena/termarena/game"
)

// DefaultRankedDelay is how far behind live a ranked room's watchers are:
// long enough that relaying positions to a player is useless in Pong,
// where a ball crosses the board in about a second and a half.
const DefaultRankedDelay = 2 * time.Second

// MaxDelay caps DelayConfig.Delay: the ring holds up to 2 × Delay × TickRate
// frames, and a longer delay protects nothing that two seconds does not.
const MaxDelay = time.Minute

// Source is what a Delay watches: a *game.Room, or anything that publishes
// frames the same latest-wins way.
type Source interface {
	Latest() (*game.Frame, <-chan struct{})
}

// DelayConfig tunes a Delay. Zero fields take defaults.
type DelayConfig struct {
	// Delay is how far behind the room watchers are: DefaultRankedDelay
	// for ranked rooms, 0 (live) for casual ones. Clamped to 0..MaxDelay.
	Delay time.Duration
	// Clock should be the room's; nil means game.SystemClock().
	Clock game.Clock
	// TickRate is the source's tick rate. Frames stamped within the same
	// half tick collapse into one, which bounds the ring; zero means
	// game.DefaultTickRate.
	TickRate int
	// Slack is ring room beyond that bound; zero means 8.
	Slack int
}

// Delay republishes a room's frames Delay late. One goroutine (Run) samples
// the room's frames into a bounded ring stamped with the time it saw them,
// and publishes the newest one whose stamp is at least Delay old. Watchers
// read Latest exactly as they would read the room: one atomic pointer and
// a channel closed on change, with no per-watcher state, so a watcher that
// never reads costs nothing and cannot hold anything up.
//
// A frame is stamped when the Delay sees it, never earlier than the room
// published it, so lateness in sampling only ever delays a frame more,
// never less.
//
// The ring is bounded by time, not by trust in the source's rate: frames
// stamped within the same half-tick slot collapse into the newest of them
// (a room publishes at most one tick frame per slot; the extra frames of
// joins and readiness are superseded by the next anyway). So however fast
// the source publishes, the ring holds at most 2 × Delay × TickRate + 2
// frames, and it is sized for that. Dropping the oldest when full instead
// would starve watchers outright of a source faster than expected: every
// frame would be pushed out before it was Delay old.
type Delay struct {
	src   Source
	delay time.Duration
	clock game.Clock
	slot  time.Duration // frames stamped in the same slot collapse

	cur      atomic.Pointer[delayed]
	watchers atomic.Int64
	ran      atomic.Bool
	done     chan struct{}

	// Owned by the Run goroutine.
	ring    []stamped
	head, n int
	peak    int    // most frames ever held, for tests of the bound
	dropped uint64 // frames pushed out of a full ring

	// turnDone, set by tests before Run, is called at the end of every turn
	// of Run's loop (frames sampled and released, timer re-armed) with the
	// newest frame sampled, so a test on a FakeClock knows when it may move
	// time on.
	turnDone func(sampled *game.Frame)
}

type stamped struct {
	f    *game.Frame
	at   time.Duration // when f was sampled: never before it was published
	slot int64         // at / Delay.slot when the entry was opened
}

// delayed is one publication: the frame watchers see, the frame after it
// (for interpolation) and the channel closed when the frame changes.
type delayed struct {
	frame   *game.Frame
	at      time.Duration
	next    *game.Frame
	nextAt  time.Duration
	changed chan struct{}
	wall    time.Time // when it was published, for LatestAt
}

// NewDelay prepares a Delay for src; Run starts it. Create it with the room:
// a room's first frame is its empty waiting room, which shows nothing worth
// hiding, so it is published at once and watchers always have a frame. A
// Delay made for a room already counting down or playing has no frame to
// show (Latest returns nil) until the first one is Delay old.
func NewDelay(src Source, cfg DelayConfig) *Delay {
	cfg.Delay = min(max(cfg.Delay, 0), MaxDelay)
	if cfg.Clock == nil {
		cfg.Clock = game.SystemClock()
	}
	if cfg.TickRate <= 0 {
		cfg.TickRate = game.DefaultTickRate
	}
	cfg.TickRate = min(cfg.TickRate, game.MaxTickRate)
	if cfg.Slack <= 0 {
		cfg.Slack = 8
	}
	slot := time.Second / time.Duration(2*cfg.TickRate)
	// Entries still held were stamped within the last Delay, one per slot.
	held := 0
	if cfg.Delay > 0 {
		held = int((cfg.Delay+slot-1)/slot) + 2
	}
	d := &Delay{
		src:   src,
		delay: cfg.Delay,
		clock: cfg.Clock,
		slot:  slot,
		done:  make(chan struct{}),
		ring:  make([]stamped, held+cfg.Slack),
	}
	p := &delayed{changed: make(chan struct{}), wall: time.Now()}
	if f, _ := src.Latest(); f != nil && harmless(f.Phase) {
		p.frame, p.at = f, cfg.Clock.Now()
	}
	d.cur.Store(p)
	return d
}

// harmless phases carry no live positions a watcher could relay.
func harmless(ph game.Phase) bool {
	return ph == game.Waiting || ph == game.Finished || ph == game.Closed
}

// Latest returns the newest frame at least Delay old and a channel closed
// when a newer one is published. As with a room, the Closed frame is the
// last and its channel never closes: stop on Phase == Closed (or on Done).
// When Run ends because its context did, it publishes a Closed copy of the
// last frame, so watchers stop then too.
func (d *Delay) Latest() (*game.Frame, <-chan struct{}) {
	p := d.cur.Load()
	return p.frame, p.changed
}

// LatestAt returns the frame watchers see now and when it was released to
// them (on the wall clock), for views that poll once per drawn frame.
func (d *Delay) LatestAt() (*game.Frame, time.Time) {
	p := d.cur.Load()
	return p.frame, p.wall
}

// Pair is for views that interpolate: prev is Latest's frame, next the
// frame that follows it in the room (nil if none has arrived yet, and
// always nil with no delay, where there is nothing ahead to show), and
// alpha in [0, 1] is where now−Delay falls between the moments the Delay
// saw them. Draw prev blended towards next by alpha; with next nil, draw
// prev (and extrapolate, as a player's view does).
func (d *Delay) Pair() (prev, next *game.Frame, alpha float64) {
	p := d.cur.Load()
	if p.frame == nil || p.next == nil {
		return p.frame, nil, 0
	}
	span := p.nextAt - p.at
	if span <= 0 {
		return p.frame, p.next, 1
	}
	a := float64(d.clock.Now()-d.delay-p.at) / float64(span)
	return p.frame, p.next, min(max(a, 0), 1)
}

// Watch counts a watcher until stop is called (more calls do nothing). The
// count is for showing players how many are watching; it gives the watcher
// nothing, since frames come from Latest.
func (d *Delay) Watch() (stop func()) {
	d.watchers.Add(1)
	var stopped atomic.Bool
	return func() {
		if stopped.CompareAndSwap(false, true) {
			d.watchers.Add(-1)
		}
	}
}

// Watchers is the number of watchers between Watch and stop.
func (d *Delay) Watchers() int { return int(d.watchers.Load()) }

// Done is closed when Run returns.
func (d *Delay) Done() <-chan struct{} { return d.done }

// PanicError is what Delay.Run returns when its goroutine panicked.
type PanicError struct {
	Value any    // what was passed to panic
	Stack []byte // where
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("spectator: delay feed panicked: %v", e.Value)
}

// Run samples the source and publishes its frames Delay late until the
// source's Closed frame has been published (it returns nil) or ctx ends (it
// returns ctx.Err()). It starts no other goroutine.
//
// A panic in Run ends the feed, not the server: it publishes a Closed frame
// marked Failed, so watchers stop and can say why, and returns a
// *PanicError. The room it watches plays on.
func (d *Delay) Run(ctx context.Context) (err error) {
	if !d.ran.CompareAndSwap(false, true) {
		return errors.New("spectator: Delay.Run called twice")
	}
	defer close(d.done)
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
			d.closeFeed(true)
		}
	}()
	if f := d.cur.Load().frame; f != nil && f.Phase == game.Closed {
		return nil
	}
	timer := d.clock.NewTimer(time.Hour)
	timer.Stop()
	// A FakeClock counts a fired timer as pending until it is stopped or
	// reset, so it is stopped on the way out whatever the reason.
	defer timer.Stop()

	f, changed := d.src.Latest()
	if f != nil && f != d.cur.Load().frame {
		d.push(d.clock.Now(), f)
	}
	if f != nil && f.Phase == game.Closed {
		changed = nil // the room publishes nothing after it
	}
	for {
		now := d.clock.Now()
		if d.release(now) {
			return nil
		}
		// Reset or Stop on every turn: that is also how a FakeClock learns
		// this turn is done.
		if d.n > 0 {
			timer.Reset(d.ring[d.head].at + d.delay - now)
		} else {
			timer.Stop()
		}
		if d.turnDone != nil {
			d.turnDone(f)
		}
		select {
		case <-ctx.Done():
			d.closeFeed(false)
			return ctx.Err()
		case <-changed:
			f, changed = d.src.Latest()
			if f == nil {
				continue // a source that is itself a Delay has nothing yet
			}
			// Stamped after reading: the room may have published again
			// since the channel closed, and a stamp taken before the read
			// could predate the frame it ends up on.
			d.push(d.clock.Now(), f)
			if f.Phase == game.Closed {
				changed = nil
			}
		case <-timer.C():
		}
	}
}

// push adds a frame, or replaces the newest one if it was stamped in the
// same slot. The replacement takes the new stamp, which only holds the slot
// back longer. A full ring cannot happen with a monotonic clock; if it did,
// the oldest frame goes.
func (d *Delay) push(at time.Duration, f *game.Frame) {
	slot := int64(at / d.slot)
	if d.n > 0 {
		if last := &d.ring[(d.head+d.n-1)%len(d.ring)]; last.slot == slot {
			last.f, last.at = f, at
			return
		}
	}
	if d.n == len(d.ring) {
		d.ring[d.head] = stamped{}
		d.head = (d.head + 1) % len(d.ring)
		d.n--
		d.dropped++
	}
	d.ring[(d.head+d.n)%len(d.ring)] = stamped{f: f, at: at, slot: slot}
	d.n++
	d.peak = max(d.peak, d.n)
}

// release publishes the newest frame that is Delay old, discarding older
// ones, and reports whether it was the room's last (Closed) frame.
func (d *Delay) release(now time.Duration) bool {
	var last stamped
	for d.n > 0 && d.ring[d.head].at+d.delay <= now {
		last = d.ring[d.head]
		d.ring[d.head] = stamped{} // the ring must not keep old frames alive
		d.head = (d.head + 1) % len(d.ring)
		d.n--
	}
	if last.f != nil {
		p := &delayed{frame: last.f, at: last.at}
		if d.n > 0 {
			p.next, p.nextAt = d.ring[d.head].f, d.ring[d.head].at
		}
		d.publish(p)
		return last.f.Phase == game.Closed
	}
	if p := d.cur.Load(); p.frame != nil && p.next == nil && d.n > 0 {
		// Same frame, now with a successor to interpolate towards. It keeps
		// the unclosed channel: watchers wait for a new frame, not this.
		q := *p
		q.next, q.nextAt = d.ring[d.head].f, d.ring[d.head].at
		d.cur.Store(&q)
	}
	return false
}

func (d *Delay) publish(p *delayed) {
	p.changed = make(chan struct{})
	p.wall = time.Now()
	if old := d.cur.Swap(p); old != nil {
		close(old.changed)
	}
}

// closeFeed tells watchers the feed is over when Run stops before the room
// did, so none of them waits forever on a channel nobody will close; failed
// marks the frame as the end of a feed that broke (Frame.Failed).
func (d *Delay) closeFeed(failed bool) {
	p := d.cur.Load()
	if p.frame != nil && p.frame.Phase == game.Closed {
		return
	}
	var f game.Frame
	if p.frame != nil {
		f = *p.frame // shares the immutable seats and state, changes nothing in them
		f.Seq++
	}
	f.Phase, f.Left, f.Failed = game.Closed, 0, failed
	d.publish(&delayed{frame: &f, at: d.clock.Now()})
}
