package pong_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// BenchmarkRoomTickPong is one room tick of a real Pong match: drain and
// validate the inputs, step the game, publish the frame — driven through
// the room's public API on a fake clock, so one op also includes the
// hand-off to the room goroutine.
func BenchmarkRoomTickPong(b *testing.B) {
	for _, tc := range []struct {
		name string
		mode pong.Mode
	}{{"1v1", pong.OneVOne}, {"ffa4", pong.FFA4}} {
		b.Run(tc.name, func(b *testing.B) {
			clk := game.NewFakeClock()
			cfg := pong.DefaultConfig(tc.mode)
			// A match that cannot end within the benchmark: a finished
			// room stops ticking.
			cfg.PointsToWin, cfg.Lives = 1<<20, 1<<20
			r := game.NewRoom("bench", game.RoomConfig{Clock: clk, Countdown: -1, IdleTimeout: -1},
				func(seed uint64) game.Game { return pong.New(cfg, seed) }, 1)
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
				// Two players change direction every tick: far more than
				// people do, so this is an upper bound on input handling.
				seq++
				for s := range 2 {
					r.Submit(ids[s], game.Input{Slot: s, Seq: seq, Action: int8(i%3 - 1)})
				}
				clk.Advance(period)
			}
			b.StopTimer()
			if fr, _ := r.Latest(); fr.Phase != game.Playing || r.Stats().Ticks < uint64(b.N) {
				b.Fatalf("room stopped ticking: phase %v after %d ticks for %d ops", fr.Phase, r.Stats().Ticks, b.N)
			}
		})
	}
}
