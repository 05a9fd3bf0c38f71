package game

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// periodic is a consumer that behaves like the room: it records when each
// fire is handled and re-arms.
type periodic struct {
	clk    Clock
	t      Timer
	period time.Duration
	mu     sync.Mutex
	seen   []time.Duration
	quit   chan struct{}
	wg     sync.WaitGroup
}

func startPeriodic(clk Clock, period time.Duration) *periodic {
	p := &periodic{clk: clk, t: clk.NewTimer(period), period: period, quit: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer p.t.Stop()
		for {
			select {
			case <-p.t.C():
				p.mu.Lock()
				p.seen = append(p.seen, p.clk.Now())
				p.mu.Unlock()
				p.t.Reset(p.period)
			case <-p.quit:
				return
			}
		}
	}()
	return p
}

func (p *periodic) stop() { close(p.quit); p.wg.Wait() }

func (p *periodic) fires() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.seen)
}

func TestFakeClockAdvanceFiresOnTime(t *testing.T) {
	clk := NewFakeClock()
	p := startPeriodic(clk, 100*time.Millisecond)
	defer p.stop()
	clk.Advance(time.Second)
	var want []time.Duration
	for i := 1; i <= 10; i++ {
		want = append(want, time.Duration(i)*100*time.Millisecond)
	}
	if got := p.fires(); !slices.Equal(got, want) {
		t.Fatalf("fires at %v, want %v", got, want)
	}
	if clk.Now() != time.Second {
		t.Fatalf("Now = %v", clk.Now())
	}
	clk.Advance(99 * time.Millisecond)
	if got := len(p.fires()); got != 10 {
		t.Fatalf("fired early: %d", got)
	}
}

func TestFakeClockJumpFiresOnce(t *testing.T) {
	clk := NewFakeClock()
	p := startPeriodic(clk, 100*time.Millisecond)
	defer p.stop()
	clk.Jump(time.Second)
	if got := p.fires(); !slices.Equal(got, []time.Duration{time.Second}) {
		t.Fatalf("fires %v, want one at 1s", got)
	}
	if clk.Pending() != 1 {
		t.Fatalf("pending = %d", clk.Pending())
	}
}

func TestFakeClockOrderAndStop(t *testing.T) {
	clk := NewFakeClock()
	a := startPeriodic(clk, 300*time.Millisecond)
	b := startPeriodic(clk, 200*time.Millisecond)
	clk.Advance(600 * time.Millisecond)
	if got := a.fires(); !slices.Equal(got, []time.Duration{300 * time.Millisecond, 600 * time.Millisecond}) {
		t.Fatalf("a fires %v", got)
	}
	if got := b.fires(); !slices.Equal(got, []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 600 * time.Millisecond}) {
		t.Fatalf("b fires %v", got)
	}
	a.stop()
	b.stop()
	if clk.Pending() != 0 {
		t.Fatalf("pending after stop = %d", clk.Pending())
	}
	clk.Advance(time.Second) // nothing armed: returns at once
}

func TestFakeTimerSemantics(t *testing.T) {
	clk := NewFakeClock()
	tm := clk.NewTimer(time.Second)
	if !tm.Stop() || tm.Stop() {
		t.Fatal("Stop should report true once, then false")
	}
	tm.Reset(time.Second)
	// Fired but not received: Reset drops the stale value, as time.Timer does.
	go func() { <-tm.C(); tm.Reset(time.Hour) }()
	clk.Advance(time.Second)
	select {
	case <-tm.C():
		t.Fatal("stale value after Reset")
	default:
	}
	tm.Stop()

	z := clk.NewTimer(0)
	select {
	case <-z.C():
	default:
		t.Fatal("a zero timer should fire at once")
	}
	z.Stop()
	clk.Advance(0) // nothing outstanding
}

func TestSystemClock(t *testing.T) {
	clk := SystemClock()
	a := clk.Now()
	b := clk.Now()
	if b < a || a < 0 {
		t.Fatalf("not monotonic: %v then %v", a, b)
	}
	tm := clk.NewTimer(time.Millisecond)
	select {
	case <-tm.C():
	case <-time.After(10 * time.Second):
		t.Fatal("timer never fired")
	}
	if tm.Stop() {
		t.Fatal("Stop of a fired timer reported true")
	}
	tm.Reset(time.Hour)
	if !tm.Stop() {
		t.Fatal("Stop of an armed timer reported false")
	}
}
