package spectator

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// humanInputs is a per-tick input script for four players changing
// direction every 100–500 ms, with auto-repeat re-sends in between.
func humanInputs(ticks int) [][]game.Input {
	r := rand.New(rand.NewPCG(5, 6))
	out := make([][]game.Input, ticks)
	var dir [4]int8
	var wait [4]int
	for t := range out {
		for s := range 4 {
			wait[s]--
			switch {
			case wait[s] <= 0:
				dir[s] = int8(r.IntN(3) - 1)
				wait[s] = 6 + r.IntN(25)
				out[t] = append(out[t], game.Input{Slot: s, Action: dir[s]})
			case dir[s] != 0 && wait[s]%3 == 0:
				out[t] = append(out[t], game.Input{Slot: s, Action: dir[s]})
			}
		}
	}
	return out
}

// synthReplay records a four-player FFA straight through the recorder, with
// no room, for benchmarks that need a replay quickly.
func synthReplay(tb testing.TB, ticks int) *Replay {
	pc := pong.DefaultConfig(pong.FFA4)
	pc.Lives = 1 << 20
	var got *Replay
	rc := pongRecorder(pc)
	rc.OnReplay = func(r *Replay) { got = r }
	rec, err := NewRecorder(rc)
	if err != nil {
		tb.Fatal(err)
	}
	g := rec.Factory()(99)
	for s := range 4 {
		_ = g.Join(s)
	}
	rec.MatchStarted("bench", 99, nil)
	for t, in := range humanInputs(ticks) {
		g.Step(in)
		rec.Ticked(uint64(t+1), in, g)
	}
	for s := 1; s < 4; s++ {
		g.Leave(s)
	}
	res, _ := g.Result()
	rec.MatchEnded("bench", res, nil, uint64(ticks))
	if got == nil {
		tb.Fatal("no replay")
	}
	return got
}

// The per-tick hook: a pass over the applied inputs, an append on a change,
// a hash once a second. It must not allocate in steady state.
func BenchmarkRecorderTick(b *testing.B) {
	pc := pong.DefaultConfig(pong.FFA4)
	rec, err := NewRecorder(pongRecorder(pc))
	if err != nil {
		b.Fatal(err)
	}
	g := rec.Factory()(1)
	for s := range 4 {
		_ = g.Join(s)
	}
	rec.MatchStarted("bench", 1, nil)
	rg := g.(*recordedGame)
	script := humanInputs(1 << 14)
	// Warm the log to its steady capacity.
	for t := range script {
		rg.steps = uint64(t + 1)
		rec.Ticked(rg.steps, script[t], g)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		t := i % len(script)
		if t == 0 {
			// A new "match" reusing the log's memory, so the benchmark
			// measures the hook rather than slice growth or MaxTicks.
			rg.log.inputs, rg.log.hashes = rg.log.inputs[:0], rg.log.hashes[:0]
			clear(rg.log.last)
		}
		rg.steps = uint64(t + 1)
		rec.Ticked(rg.steps, script[t], g)
	}
}

// Re-simulating a whole three-minute four-player match (what a backward
// seek costs at worst).
func BenchmarkPlayback3Min(b *testing.B) {
	r := synthReplay(b, 3*60*60)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		p, err := NewPlayback(r, testGames)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Seek(r.Ticks); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(r.Ticks), "ns/tick")
}

func BenchmarkSeekBackHalfway(b *testing.B) {
	r := synthReplay(b, 3*60*60)
	p, err := NewPlayback(r, testGames)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		// Alternate between the end and the middle: every other seek goes
		// back and re-simulates half the match.
		target := r.Ticks
		if i%2 == 0 {
			target = r.Ticks / 2
		}
		if err := p.Seek(target); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode3Min(b *testing.B) {
	r := synthReplay(b, 3*60*60)
	b.ReportAllocs()
	var n int
	for range b.N {
		out, err := Encode(r)
		if err != nil {
			b.Fatal(err)
		}
		n = len(out)
	}
	b.ReportMetric(float64(n), "bytes")
}

func BenchmarkDecode3Min(b *testing.B) {
	enc, err := Encode(synthReplay(b, 3*60*60))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for range b.N {
		if _, err := Decode(enc); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMatchLogStartsSmall: a room's replay log for a match just started
// takes a few kilobytes and grows with what is played (it was 36 KB from
// the first tick: two minutes' worth of inputs and hashes, per room).
func TestMatchLogStartsSmall(t *testing.T) {
	rec, err := NewRecorder(pongRecorder(pong.DefaultConfig(pong.OneVOne)))
	if err != nil {
		t.Fatal(err)
	}
	g := rec.Factory()(1)
	for s := range 2 {
		_ = g.Join(s)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rec.MatchStarted("r1", 1, nil)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<10 {
		t.Fatalf("starting a match's replay log allocated %d bytes, want ≤4 KB", got)
	}
}
