package chat

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkSend100: one Say to a channel of 100 subscribers who never drain
// (the steady state of full rings), through sanitising, flood control and
// the default filter. Each of the 100 members speaks in turn, at the refill
// rate, with text that never repeats within the duplicate window.
func BenchmarkSend100(b *testing.B) {
	c := New(Config{})
	members := make([]Member, 100)
	for i := range members {
		members[i] = player(fmt.Sprintf("p%03d", i))
		c.Join(members[i], LobbyChannel)
	}
	texts := make([]string, 4096) // 4096 × 10 ms > the 30 s duplicate window
	for i := range texts {
		texts[i] = fmt.Sprintf("good game, that rally went on forever %d", i)
	}
	now := t0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		now = now.Add(10 * time.Millisecond)
		if r := c.Send(members[i%len(members)], LobbyChannel, texts[i%len(texts)], now); !r.Delivered {
			b.Fatalf("not delivered: %v", r.Reply)
		}
	}
}

func BenchmarkMask(b *testing.B) {
	f := DefaultFilter()
	for _, c := range []struct{ name, in string }{
		{"clean", "good game everyone, that last rally was 12 hits long!"},
		{"dirty", "well sh1t, what the f u c k was that, you absolute dickhead"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f.Mask(c.in)
			}
		})
	}
}

// TestSendAllocations pins the benchmark's one allocation (the message,
// shared by every subscriber) so a regression shows up in CI, where
// benchmarks do not run.
func TestSendAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	c := New(Config{})
	members := make([]Member, 20)
	for i := range members {
		members[i] = player(fmt.Sprintf("p%02d", i))
		c.Join(members[i], LobbyChannel)
	}
	texts := make([]string, 4096)
	for i := range texts {
		texts[i] = fmt.Sprintf("good game %d", i)
	}
	now, i := t0, 0
	allocs := testing.AllocsPerRun(1000, func() {
		now = now.Add(100 * time.Millisecond)
		if !c.Send(members[i%len(members)], LobbyChannel, texts[i%len(texts)], now).Delivered {
			t.Fatal("not delivered")
		}
		i++
	})
	if allocs > 1 {
		t.Errorf("Send: %v allocations, want at most 1", allocs)
	}
}
