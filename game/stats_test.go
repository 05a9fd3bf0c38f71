package game

import (
	"testing"
	"time"
)

func TestLatenessBuckets(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int
	}{
		{0, 0},
		{249 * time.Microsecond, 0},
		{250 * time.Microsecond, 1},
		{999 * time.Microsecond, 2},
		{time.Millisecond, 3},
		{15 * time.Millisecond, 6},
		{16 * time.Millisecond, 7},
		{time.Hour, 7},
	} {
		if got := latenessBucket(c.d); got != c.want {
			t.Errorf("bucket(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}

func TestStatsSnapshot(t *testing.T) {
	var c tickCounters
	c.ticks.Add(3)
	c.observeLateness(0)
	c.observeLateness(time.Second)
	c.setRate(59.5)
	s := c.snapshot()
	if s.Ticks != 3 || s.Rate != 59.5 || s.Lateness[0] != 1 || s.Lateness[LatenessBuckets-1] != 1 {
		t.Fatalf("snapshot %+v", s)
	}
	if len(s.LatenessBounds) != LatenessBuckets-1 || s.LatenessBounds[6] != 16*time.Millisecond {
		t.Fatalf("bounds %v", s.LatenessBounds)
	}
	s.LatenessBounds[0] = 0 // a caller's copy: must not leak into the next one
	if c.snapshot().LatenessBounds[0] != 250*time.Microsecond {
		t.Fatal("LatenessBounds shared between snapshots")
	}
}
