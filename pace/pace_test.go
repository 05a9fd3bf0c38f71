package pace

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// wait fails the test if ch is not closed within a generous bound: beats
// are 1/fps apart, the bound only guards against a clock that never beats.
func wait(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("no beat within 10 s")
	}
}

func TestOneBeatWakesEveryReader(t *testing.T) {
	cs := New()
	const readers = 50
	var wg sync.WaitGroup
	start := make(chan struct{})
	woke := make(chan uint64, readers)
	for range readers {
		c, release := cs.Acquire(60)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer release()
			<-start
			ch, n := c.Next()
			wait(t, ch)
			woke <- n
		}()
	}
	close(start)
	wg.Wait()
	close(woke)
	got := 0
	for range woke {
		got++
	}
	if got != readers {
		t.Fatalf("%d of %d readers woke", got, readers)
	}
}

func TestBeatsCountAndMissedBeatsShow(t *testing.T) {
	cs := New()
	c, release := cs.Acquire(50)
	defer release()
	ch, n0 := c.Next()
	wait(t, ch)
	// Busy for a while: beats go on without us.
	for {
		ch, n := c.Next()
		if n >= n0+5 {
			break
		}
		wait(t, ch)
	}
	_, n := c.Next()
	if missed := n - (n0 + 1); missed < 4 {
		t.Fatalf("count %d after beat %d: a reader that slept through beats must see them counted", n, n0+1)
	}
}

func TestSameRateSharesAClockAndLastReleaseStopsIt(t *testing.T) {
	base := runtime.NumGoroutine()
	cs := New()
	a, ra := cs.Acquire(30)
	b, rb := cs.Acquire(30)
	c, rc := cs.Acquire(45)
	if a.c != b.c || a.c == c.c {
		t.Fatalf("clocks: 30=%p 30=%p 45=%p: one clock per rate", a.c, b.c, c.c)
	}
	if a.g == b.g {
		t.Fatalf("two sessions at one rate share phase group %d", a.g)
	}
	if a.FPS() != 30 || c.FPS() != 45 {
		t.Fatalf("rates %d %d", a.FPS(), c.FPS())
	}
	ra()
	ra() // a second call of the same release is a no-op
	ch, _ := b.Next()
	wait(t, ch) // still beating for b
	rb()
	rc()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Fatalf("goroutines %d > %d after every clock was released", n, base)
	}
	// A rate acquired again after its clock stopped gets a running clock.
	d, rd := cs.Acquire(30)
	defer rd()
	if d.c == a.c {
		t.Fatal("got the stopped clock back")
	}
	ch, _ = d.Next()
	wait(t, ch)
}

func TestRatesAreClamped(t *testing.T) {
	cs := New()
	lo, r1 := cs.Acquire(-5)
	defer r1()
	hi, r2 := cs.Acquire(1 << 30)
	defer r2()
	if lo.FPS() != 1 || hi.FPS() != 1000 {
		t.Fatalf("clamped rates %d %d, want 1 and 1000", lo.FPS(), hi.FPS())
	}
}

func TestSessionsAreSpreadOverThePhases(t *testing.T) {
	cs := New()
	var seen [Phases]int
	for range 2 * Phases {
		b, release := cs.Acquire(30)
		defer release()
		seen[b.g]++
	}
	for g, n := range seen {
		if n != 2 {
			t.Fatalf("phase group %d has %d of %d sessions: %v", g, n, 2*Phases, seen)
		}
	}
}
