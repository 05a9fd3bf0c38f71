package tron

import (
	"math/bits"
	"testing"

	"github.com/termarena/termarena/game"
)

// FuzzStep drives two games with the same random joins, leaves and inputs
// (any action byte, any claimed slot, lags that roll back) and checks after
// every call that nothing panicked, both games agree (determinism), and
// the state keeps its invariants.
func FuzzStep(f *testing.F) {
	f.Add([]byte{4, 7, 0, 1, 2, 3, 0x40, 0x41, 0x80, 0x91, 0xa2, 0xff, 0x60, 0xc0})
	f.Add([]byte{8, 1, 0, 1, 2, 3, 4, 5, 6, 7, 0xff, 0xff, 0xff, 0x23, 0xff, 0xff})
	f.Add([]byte{2, 3, 0, 1, 0xff, 0x21, 0xff})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) < 2 {
			return
		}
		cfg := testConfig(1 + int(ops[0])%MaxPlayers)
		cfg.MoveEvery = 1 + int(ops[0]>>4)%3
		cfg.PauseTicks, cfg.ReadyTicks = int(ops[1]%4), int(ops[1]>>2%3)
		cfg.RoundsToWin = 2
		a, b := New(cfg, uint64(ops[1])), New(cfg, uint64(ops[1]))
		var buf []game.Input
		for _, op := range ops[2:] {
			slot := int(op & 7)
			switch op >> 5 {
			case 0:
				ea, eb := a.Join(slot), b.Join(slot)
				if ea != eb {
					t.Fatalf("Join(%d): %v vs %v", slot, ea, eb)
				}
			case 1:
				a.Leave(slot)
				b.Leave(slot)
			case 7:
				// A run of empty ticks lets rounds play out.
				for range int(op&31) * 4 {
					a.Step(nil)
					b.Step(nil)
				}
			default:
				// The lag, derived from the op, runs from 0 to past a 150 ms cap
				// and now and then beyond the history, so turns roll back.
				lag := uint16(op*37) % 13
				if op%29 == 0 {
					lag = 1000
				}
				buf = append(buf[:0], game.Input{Slot: slot, Action: int8(op>>3&3) + int8(op>>5) - 2, Lag: lag})
				a.Step(buf)
				b.Step(buf)
			}
			if a.Hash() != b.Hash() {
				t.Fatalf("games diverged after op %#x", op)
			}
			checkInvariants(t, a)
		}
	})
}

func checkInvariants(t *testing.T, g *Game) {
	t.Helper()
	cfg := &g.cfg
	for i, v := range g.grid {
		if v == 0 {
			continue
		}
		if int(v) > cfg.Players || g.riders&(1<<(v-1)) == 0 {
			t.Fatalf("cell %d owned by %d, riders %#b", i, v, g.riders)
		}
	}
	if g.resimEnds != 0 {
		t.Fatalf("a rollback's re-simulation ended a round %d times", g.resimEnds)
	}
	alive := 0
	for i := range cfg.Players {
		c := &g.cycles[i]
		if c.wins > int32(cfg.RoundsToWin) {
			t.Fatalf("slot %d has %d wins, the match ends at %d", i, c.wins, cfg.RoundsToWin)
		}
		if !c.alive {
			continue
		}
		alive++
		if !c.seated || c.pending || g.riders&(1<<i) == 0 {
			t.Fatalf("slot %d alive but seated %v pending %v riders %#b", i, c.seated, c.pending, g.riders)
		}
		if int(c.x) < 0 || int(c.x) >= cfg.Width || int(c.y) < 0 || int(c.y) >= cfg.Height {
			t.Fatalf("slot %d at (%d,%d) outside the arena", i, c.x, c.y)
		}
		if g.grid[int(c.y)*cfg.Width+int(c.x)] != byte(i+1) {
			t.Fatalf("slot %d's head cell is not its own", i)
		}
		if !validDir(c.heading) {
			t.Fatalf("slot %d heading %d", i, c.heading)
		}
	}
	if n := bits.OnesCount8(g.riders); !g.over && g.pauseIn == 0 && g.endIn == 0 && n >= 2 && alive < 2 {
		t.Fatalf("%d riders, %d alive, and the round goes on", n, alive)
	}
	res, over := g.Result()
	if over != g.over {
		t.Fatalf("Result ok %v, over %v", over, g.over)
	}
	if over {
		maxPlace := 0
		for _, p := range res.Places {
			maxPlace = max(maxPlace, p)
		}
		used := make([]bool, maxPlace+1)
		for i, p := range res.Places {
			used[p] = true
			if (p == 1) != (g.winners&(1<<i) != 0) {
				t.Fatalf("places %v, winners %#b", res.Places, g.winners)
			}
		}
		for p := 1; p <= maxPlace; p++ {
			if !used[p] {
				t.Fatalf("places %v skip %d: not dense", res.Places, p)
			}
		}
		for k := 1; k < len(res.Placements); k++ {
			if res.Places[res.Placements[k-1]] > res.Places[res.Placements[k]] {
				t.Fatalf("placements %v out of order for places %v", res.Placements, res.Places)
			}
		}
	}
	data, err := snap(g).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeSnapshot(data); err != nil {
		t.Fatalf("snapshot does not decode: %v", err)
	}
}
