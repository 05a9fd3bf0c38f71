package tron

import (
	"fmt"
	"testing"

	"github.com/termarena/termarena/game"
)

// benchScript records the bot's inputs for a long 8-rider match with the
// default timing, so the benchmarks replay real play (turns, crashes,
// round resets) without the bot's own cost in the loop.
func benchScript(b *testing.B) (Config, [][]game.Input) {
	b.Helper()
	cfg := DefaultConfig(Casual)
	cfg.RoundsToWin = 1 << 20
	g := newBench(cfg)
	bt := newBot(8)
	script := make([][]game.Input, 20000)
	for i := range script {
		in := bt.inputs(g)
		script[i] = append([]game.Input(nil), in...)
		g.Step(in)
	}
	return cfg, script
}

func newBench(cfg Config) *Game {
	g := New(cfg, 99)
	for s := range cfg.Players {
		_ = g.Join(s)
	}
	return g
}

// BenchmarkStep is one tick of an 8-rider match: inputs, moves (one tick in
// MoveEvery), crashes and round resets as they come.
func BenchmarkStep(b *testing.B) {
	cfg, script := benchScript(b)
	g := newBench(cfg)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := i % len(script)
		if k == 0 && i > 0 {
			b.StopTimer()
			g = newBench(cfg)
			b.StartTimer()
		}
		g.Step(script[k])
	}
}

// BenchmarkSnapshot is the snapshot the room takes after every tick: after
// a move it copies the grid, otherwise it shares the last copy.
func BenchmarkSnapshot(b *testing.B) {
	cfg, script := benchScript(b)
	g := newBench(cfg)
	for _, in := range script[:600] {
		g.Step(in)
	}
	b.Run("after-move", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			g.dirty = true
			_ = g.Snapshot()
		}
	})
	b.Run("no-move", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_ = g.Snapshot()
		}
	})
}

// BenchmarkTick is Step plus Snapshot, what the room pays per tick.
func BenchmarkTick(b *testing.B) {
	cfg, script := benchScript(b)
	g := newBench(cfg)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := i % len(script)
		if k == 0 && i > 0 {
			b.StopTimer()
			g = newBench(cfg)
			b.StartTimer()
		}
		g.Step(script[k])
		_ = g.Snapshot()
	}
}

func BenchmarkHash(b *testing.B) {
	g := newBench(DefaultConfig(Casual))
	g.Step(nil)
	b.ReportAllocs()
	for range b.N {
		_ = g.Hash()
	}
}

// BenchmarkSnapshotEncode encodes snapshots through a recorded match and
// reports the average and largest encoding.
func BenchmarkSnapshotEncode(b *testing.B) {
	cfg, script := benchScript(b)
	g := newBench(cfg)
	snaps := make([]*Snapshot, 0, len(script)/50)
	for i, in := range script {
		g.Step(in)
		if i%50 == 0 {
			snaps = append(snaps, snap(g))
		}
	}
	var buf []byte
	total, largest := 0, 0
	for _, s := range snaps {
		buf, _ = s.AppendBinary(buf[:0])
		total += len(buf)
		largest = max(largest, len(buf))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		buf, _ = snaps[i%len(snaps)].AppendBinary(buf[:0])
	}
	b.ReportMetric(float64(total)/float64(len(snaps)), "avg-B")
	b.ReportMetric(float64(largest), "max-B")
}

// BenchmarkStepRollback is one Step of an 8-rider match that rolls back
// lag ticks and re-simulates them: every op brings a turn with that Lag.
// The riders ride side by side across the default arena, and the turn is
// the rider's own heading, so the re-simulation redoes the same moves and
// the match stays mid-round; every 300 ops the arena is laid out afresh
// (untimed). lag=9 is the server's default cap (150 ms at 60 Hz), lag=60
// the most a room passes (one second).
func BenchmarkStepRollback(b *testing.B) {
	cfg := DefaultConfig(Casual)
	cfg.RoundsToWin = 1 << 20
	fresh := func(lag int) *Game {
		g := newBench(cfg)
		ps := make([]pos, cfg.Players)
		for i := range ps {
			ps[i] = pos{i, 0, 4 + 8*i, Right}
		}
		arrange(b, g, ps...)
		for range lag {
			g.Step(nil)
		}
		return g
	}
	for _, lag := range []uint16{9, 60} {
		b.Run(fmt.Sprintf("lag=%d", lag), func(b *testing.B) {
			g := fresh(int(lag))
			in := []game.Input{{Lag: lag, Action: Right}}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%300 == 0 && i > 0 {
					b.StopTimer()
					g = fresh(int(lag))
					b.StartTimer()
				}
				in[0].Slot = i % cfg.Players
				g.Step(in)
			}
			b.StopTimer()
			for s := range cfg.Players {
				if !g.cycles[s].alive {
					b.Fatalf("slot %d crashed: the benchmark left mid-round play", s)
				}
			}
		})
	}
}
