package tron_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/tron"
)

// BenchmarkRoomTickTron is one room tick of an 8-rider match through the
// room's public API on a fake clock, as BenchmarkRoomTickPong is for Pong:
// inputs, Step, Snapshot and the published frame, plus the hand-off to the
// room goroutine.
func BenchmarkRoomTickTron(b *testing.B) {
	clk := game.NewFakeClock()
	cfg := tron.DefaultConfig(tron.Casual)
	// A match that cannot end within the benchmark: a finished room stops
	// ticking. Rounds still end and reset.
	cfg.RoundsToWin = 1 << 20
	r := game.NewRoom("bench", game.RoomConfig{Clock: clk, Countdown: -1, IdleTimeout: -1},
		func(seed uint64) game.Game { return tron.New(cfg, seed) }, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go r.Run(ctx)
	ids := make([]game.PlayerID, cfg.Slots())
	for i := range ids {
		ids[i] = game.PlayerID(fmt.Sprintf("SHA256:bench-%d", i))
		if _, err := r.Join(ctx, game.Player{ID: ids[i], Name: fmt.Sprint("p", i)}, i); err != nil {
			b.Fatal(err)
		}
	}
	for _, id := range ids {
		if err := r.SetReady(ctx, id, true); err != nil {
			b.Fatal(err)
		}
	}
	period := time.Second / 60
	clk.Advance(period)
	if fr, _ := r.Latest(); fr.Phase != game.Playing {
		b.Fatalf("phase %v", fr.Phase)
	}
	seq := uint32(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		// Two riders turn every tick: far more than people do.
		seq++
		for s := range 2 {
			r.Submit(ids[s], game.Input{Slot: s, Seq: seq, Action: int8(1 + (i+s)%4)})
		}
		clk.Advance(period)
	}
	b.StopTimer()
	if fr, _ := r.Latest(); fr.Phase != game.Playing || r.Stats().Ticks < uint64(b.N) {
		b.Fatalf("room stopped ticking: phase %v after %d ticks for %d ops", fr.Phase, r.Stats().Ticks, b.N)
	}
}
