package pong

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/termarena/termarena/game/sim"
)

const scriptTicks = 5000

// runScript plays scriptTicks ticks of mode with bot inputs and returns the
// hash after every tick. The script has a late joiner in the 4-player
// modes and a leaver in FFA, and when a match ends the next one starts from
// seed+1, so endings, joins, leaves and serves are all on the hashed path.
func runScript(mode Mode, seed uint64) (hashes []uint64, matches int) {
	cfg := DefaultConfig(mode)
	// Short matches, several per script.
	cfg.PointsToWin, cfg.Lives = 5, 3
	// The bot's seed is fixed: only the game seed varies between runs.
	b := newBot(42)
	newMatch := func() *Game {
		g := New(cfg, seed+uint64(matches))
		matches++
		for _, s := range allSeats(mode) {
			if mode == OneVOne || s != Bottom {
				_ = g.Join(s)
			}
		}
		return g
	}
	g := newMatch()
	hashes = make([]uint64, scriptTicks)
	for tick := range scriptTicks {
		switch {
		case g.over:
			g = newMatch()
		case mode != OneVOne && g.tick == 300:
			_ = g.Join(Bottom)
		case mode == FFA4 && g.tick == 2500:
			g.Leave(Top)
		}
		g.Step(b.inputs(g))
		hashes[tick] = g.Hash()
	}
	return hashes, matches
}

func digest(hashes []uint64) uint64 {
	f := sim.NewHash()
	for _, h := range hashes {
		f.U64(h)
	}
	return f.Sum()
}

func TestDeterminismSameProcess(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			a, matches := runScript(mode, 1)
			b, _ := runScript(mode, 1)
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("hash differs at tick %d: %016x vs %016x", i+1, a[i], b[i])
				}
			}
			t.Logf("%d ticks, %d match(es), digest %016x", len(a), matches, digest(a))
		})
	}
}

const childEnv = "TERMARENA_PONG_DETERMINISM_CHILD"

// TestDeterminismFreshProcess re-runs this test binary so a child with its
// own heap, addresses and start-up state computes the same script; any
// dependence on pointers, map order or process state would show up here.
func TestDeterminismFreshProcess(t *testing.T) {
	if os.Getenv(childEnv) == "1" {
		for _, mode := range modes {
			h, _ := runScript(mode, 1)
			fmt.Printf("digest %s %016x\n", mode, digest(h))
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDeterminismFreshProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	got := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "digest" {
			got[f[1]] = f[2]
		}
	}
	for _, mode := range modes {
		h, _ := runScript(mode, 1)
		want := fmt.Sprintf("%016x", digest(h))
		if got[mode.String()] != want {
			t.Errorf("%s: child digest %q, parent %s\nchild output:\n%s", mode, got[mode.String()], want, out)
		}
	}
}

func TestDifferentSeedsDiffer(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			a, _ := runScript(mode, 1)
			b, _ := runScript(mode, 2)
			same := 0
			for i := range a {
				if a[i] == b[i] {
					same++
				}
			}
			if same != 0 {
				t.Errorf("%d of %d tick hashes equal across seeds (the RNG state is hashed, so none should be)", same, len(a))
			}
			// And the serves themselves differ, not just the RNG state.
			dirs := map[[2]int32]bool{}
			for seed := range uint64(32) {
				dirs[firstServe(t, mode, seed)] = true
			}
			if len(dirs) < 16 {
				t.Errorf("32 seeds gave only %d distinct serves", len(dirs))
			}
		})
	}
}

func firstServe(t *testing.T, mode Mode, seed uint64) [2]int32 {
	t.Helper()
	g := New(DefaultConfig(mode), seed)
	for _, s := range allSeats(mode) {
		_ = g.Join(s)
	}
	for !g.ball.live {
		g.Step(nil)
	}
	return [2]int32{g.ball.vx, g.ball.vy}
}

func TestServe(t *testing.T) {
	for _, tt := range []struct {
		name  string
		mode  Mode
		seats []int
	}{
		{"1v1", OneVOne, []int{0, 1}},
		{"FFA all four", FFA4, []int{0, 1, 2, 3}},
		{"FFA right and bottom only", FFA4, []int{Right, Bottom}},
		{"2v2 top only", TwoVTwo, []int{Top}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig(tt.mode)
			targets := map[int]int{}
			for seed := range uint64(400) {
				g := New(cfg, seed)
				for _, s := range tt.seats {
					_ = g.Join(s)
				}
				for range cfg.ServeDelayTicks - 1 {
					g.Step(nil)
				}
				if g.ball.live {
					t.Fatal("served before the delay")
				}
				g.Step(nil)
				b := g.ball
				if !b.live || b.x != cfg.Width*Sub/2 || b.y != cfg.Height*Sub/2 {
					t.Fatalf("seed %d: ball %+v, want live at the centre", seed, b)
				}
				// Which side is it heading for, and how steeply?
				side := -1
				for _, s := range tt.seats {
					if n, _ := normalAlong(s, b.vx, b.vy); -n >= b.speed*sinTable[90-maxServeDeg]>>trigScaleShift {
						side = s
					}
				}
				if side < 0 {
					t.Fatalf("seed %d: serve (%d,%d) not aimed within %d° of a live side", seed, b.vx, b.vy, maxServeDeg)
				}
				if _, a := normalAlong(side, b.vx, b.vy); abs32(a) < b.speed*sinTable[minServeDeg]>>trigScaleShift {
					t.Fatalf("seed %d: serve (%d,%d) straighter than %d°", seed, b.vx, b.vy, minServeDeg)
				}
				targets[side]++
			}
			if len(targets) != len(tt.seats) {
				t.Errorf("serves went to %v, want every live side", targets)
			}
		})
	}
}
