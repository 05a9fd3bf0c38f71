package game

import (
	"math"
	"sync/atomic"
	"time"
)

// LatenessBuckets is the number of buckets in TickStats.Lateness.
const LatenessBuckets = 8

// latenessBounds are the upper bounds of all but the last bucket; they double
// so one histogram covers both scheduler jitter (sub-millisecond) and a stall
// that costs whole frames (≥16 ms at 60 Hz).
func latenessBounds() [LatenessBuckets - 1]time.Duration {
	return [...]time.Duration{
		250 * time.Microsecond,
		500 * time.Microsecond,
		time.Millisecond,
		2 * time.Millisecond,
		4 * time.Millisecond,
		8 * time.Millisecond,
		16 * time.Millisecond,
	}
}

// TickStats is a room's loop health. Each field is read atomically on its
// own, so a TickStats taken while the room runs may mix two adjacent ticks.
type TickStats struct {
	// Ticks is how many loop ticks ran (Countdown and Playing, paused or
	// not); Dropped is how many due ticks were skipped after a stall.
	Ticks, Dropped uint64
	// InputsDropped counts inputs lost to a full buffer or over the
	// per-seat, per-tick limit; InputsRejected counts inputs from players who
	// are not seated or that claim another seat's slot.
	InputsDropped, InputsRejected uint64
	// Rate is the measured ticks per second over the last second or so;
	// zero while no game is running.
	Rate float64
	// Lateness[i] counts ticks that started late (versus their due time) by
	// less than LatenessBounds[i]; the last bucket counts the rest.
	Lateness       [LatenessBuckets]uint64
	LatenessBounds []time.Duration
}

// tickCounters is written by the room goroutine and read by anyone, hence
// atomics rather than a lock the room could be made to wait on.
type tickCounters struct {
	ticks, dropped                atomic.Uint64
	inputsDropped, inputsRejected atomic.Uint64
	rateBits                      atomic.Uint64
	lateness                      [LatenessBuckets]atomic.Uint64
}

func latenessBucket(d time.Duration) int {
	b := latenessBounds()
	for i, ub := range b {
		if d < ub {
			return i
		}
	}
	return len(b)
}

func (c *tickCounters) observeLateness(d time.Duration) {
	c.lateness[latenessBucket(d)].Add(1)
}

func (c *tickCounters) setRate(r float64) { c.rateBits.Store(math.Float64bits(r)) }

func (c *tickCounters) snapshot() TickStats {
	b := latenessBounds()
	s := TickStats{
		Ticks:          c.ticks.Load(),
		Dropped:        c.dropped.Load(),
		InputsDropped:  c.inputsDropped.Load(),
		InputsRejected: c.inputsRejected.Load(),
		Rate:           math.Float64frombits(c.rateBits.Load()),
		LatenessBounds: b[:],
	}
	for i := range c.lateness {
		s.Lateness[i] = c.lateness[i].Load()
	}
	return s
}
