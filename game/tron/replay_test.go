package tron_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/tron"
)

// recording is what a replay keeps of a match: the seed, and per tick the
// inputs as the room applied them (with the Lag it set) and the hash after
// the tick; plus the tick after which a seat left.
type recording struct {
	mu     sync.Mutex
	seed   uint64
	ticks  [][]game.Input
	hashes []uint64
	leave  map[uint64]int
}

// TestReplayWithLagsIsExact plays a four-rider match through a real room
// with compensation at 150 ms, each rider's screen a different age (0, 50,
// 150 and 300 ms) and turning at the last moment it shows and now and then
// at random, one rider leaving midway; then re-simulates the recorded
// inputs, lags included, on a fresh Game and compares the hash after every
// tick.
func TestReplayWithLagsIsExact(t *testing.T) {
	cfg := tron.DefaultConfig(tron.Casual)
	cfg.Players = 4
	cfg.RoundsToWin = 4
	rec := &recording{leave: map[uint64]int{}}
	clk := game.NewFakeClock()
	room := game.NewRoom("tron-replay", game.RoomConfig{Clock: clk, Countdown: -1, IdleTimeout: -1, Grace: -1,
		TickRate: cfg.TickRate, LagCompensation: 150 * time.Millisecond},
		func(seed uint64) game.Game { return tron.New(cfg, seed) }, 23)
	room.SetHooks(game.Hooks{
		MatchStarted: func(_ string, seed uint64, _ []game.Seat) { rec.seed = seed },
		Ticked: func(tick uint64, applied []game.Input, g game.Game) {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if tick != uint64(len(rec.ticks)+1) {
				t.Errorf("tick %d recorded after %d", tick, len(rec.ticks))
			}
			rec.ticks = append(rec.ticks, append([]game.Input(nil), applied...))
			rec.hashes = append(rec.hashes, g.Hash())
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = room.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-room.Done()
	})
	ids := make([]game.PlayerID, cfg.Players)
	for i := range ids {
		ids[i] = game.PlayerID(fmt.Sprintf("SHA256:rider-%d", i))
		if _, err := room.Join(ctx, game.Player{ID: ids[i], Name: fmt.Sprint("rider", i)}, i); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids {
		if err := room.SetReady(ctx, id, true); err != nil {
			t.Fatal(err)
		}
	}

	delays := []int{0, 3, 9, 18}
	rng := rand.New(rand.NewPCG(5, 6))
	var frames []*game.Frame
	var seq uint32
	left := -1
	lagged := 0
	period := time.Second / time.Duration(cfg.TickRate)
	for {
		now, _ := room.Latest()
		if now.Phase == game.Finished {
			break
		}
		if now.Tick == 1500 && left < 0 {
			left = 2
			rec.mu.Lock()
			rec.leave[now.Tick] = left
			rec.mu.Unlock()
			if err := room.Leave(ctx, ids[left]); err != nil {
				t.Fatal(err)
			}
		}
		for i, d := range delays {
			if i == left {
				continue
			}
			seen := now
			if k := len(frames) - 1 - d; k >= 0 {
				seen = frames[k]
			}
			s := tronState(seen)
			turn, ok := escape(s, i)
			if !ok && s.Cycles[i].Alive && rng.IntN(30) == 0 {
				turn, ok = int8(1+rng.IntN(4)), true
			}
			if ok {
				seq++
				room.Submit(ids[i], game.Input{Slot: i, Seq: seq, Action: turn, Seen: seen.Tick})
			}
		}
		clk.Advance(period + 1)
		fr, _ := room.Latest()
		frames = append(frames, fr)
		if fr.Tick > 200_000 {
			t.Fatal("the match does not end")
		}
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	g := tron.New(cfg, rec.seed)
	for i := range cfg.Players {
		if err := g.Join(i); err != nil {
			t.Fatal(err)
		}
	}
	for k, ins := range rec.ticks {
		for _, in := range ins {
			if in.Lag > 0 {
				lagged++
			}
		}
		g.Step(ins)
		if h := g.Hash(); h != rec.hashes[k] {
			t.Fatalf("replay differs at tick %d: %016x, room %016x", k+1, h, rec.hashes[k])
		}
		if slot, ok := rec.leave[uint64(k+1)]; ok {
			g.Leave(slot)
		}
	}
	res, over := g.Result()
	final, _ := room.Latest()
	if !over || final.Result == nil || fmt.Sprint(res) != fmt.Sprint(*final.Result) {
		t.Fatalf("replay result %+v (over %v), room %+v", res, over, final.Result)
	}
	if lagged < 50 {
		t.Errorf("only %d inputs carried a lag", lagged)
	}
	t.Logf("%d ticks replayed exactly, %d inputs with a lag, result %+v", len(rec.ticks), lagged, res)
}
