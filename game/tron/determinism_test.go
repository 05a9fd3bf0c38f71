package tron

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

const scriptTicks = 6000

var modes = []Mode{Casual, FFA}

// runScript plays scriptTicks ticks with bot inputs and returns the hash
// after every tick. All but one seat join before the first tick, the last
// joins mid-match and one rider leaves later, and a finished match is
// followed by the next from seed+1, so layouts, crashes, rounds, joins,
// leaves and endings are all on the hashed path.
func runScript(mode Mode, seed uint64) (hashes []uint64, matches, rounds int) {
	cfg := DefaultConfig(mode)
	cfg.RoundsToWin = 2
	b := newBot(42)
	last := cfg.Players - 1
	newMatch := func() *Game {
		g := New(cfg, seed+uint64(matches))
		matches++
		for s := range last {
			_ = g.Join(s)
		}
		return g
	}
	g := newMatch()
	hashes = make([]uint64, scriptTicks)
	for tick := range scriptTicks {
		switch {
		case g.over:
			rounds += int(g.round)
			g = newMatch()
		case g.tick == 200:
			_ = g.Join(last)
		case g.tick == 1500:
			g.Leave(1)
		}
		g.Step(b.inputs(g))
		hashes[tick] = g.Hash()
	}
	return hashes, matches, rounds + int(g.round)
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
			a, matches, rounds := runScript(mode, 1)
			b, _, _ := runScript(mode, 1)
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("hash differs at tick %d: %016x vs %016x", i+1, a[i], b[i])
				}
			}
			if matches < 2 || rounds < 4 {
				t.Errorf("script played %d matches, %d rounds: too few to cover endings and resets", matches, rounds)
			}
			t.Logf("%d ticks, %d matches, %d rounds, digest %016x", len(a), matches, rounds, digest(a))
		})
	}
}

const childEnv = "TERMARENA_TRON_DETERMINISM_CHILD"

// TestDeterminismFreshProcess re-runs this test binary so a child with its
// own heap, addresses and start-up state computes the same script; any
// dependence on pointers, map order or process state would show up here.
func TestDeterminismFreshProcess(t *testing.T) {
	if os.Getenv(childEnv) == "1" {
		for _, mode := range modes {
			h, _, _ := runScript(mode, 1)
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
		h, _, _ := runScript(mode, 1)
		want := fmt.Sprintf("%016x", digest(h))
		if got[mode.String()] != want {
			t.Errorf("%s: child digest %q, parent %s\nchild output:\n%s", mode, got[mode.String()], want, out)
		}
	}
}

func TestDifferentSeedsDiffer(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			a, _, _ := runScript(mode, 1)
			b, _, _ := runScript(mode, 2)
			same := 0
			for i := range a {
				if a[i] == b[i] {
					same++
				}
			}
			if same != 0 {
				t.Errorf("%d of %d tick hashes equal across seeds (the RNG state is hashed, so none should be)", same, len(a))
			}
		})
	}
}

// TestSeedDecidesStarts checks that the seed, not the slot number, decides
// who starts where: over many seeds every slot gets every start.
func TestSeedDecidesStarts(t *testing.T) {
	cfg := DefaultConfig(Casual)
	for _, n := range []int{2, 5, 8} {
		seen := map[[2]int]map[[2]int16]bool{}
		for seed := range uint64(200) {
			g := New(cfg, seed)
			for s := range n {
				_ = g.Join(s)
			}
			before := snap(g)
			g.Step(nil)
			after := snap(g)
			for s := range n {
				b, a := before.Cycles[s], after.Cycles[s]
				if b.X != a.X || b.Y != a.Y || b.Heading != a.Heading {
					t.Fatalf("n=%d seed %d: slot %d previewed at (%d,%d) but starts at (%d,%d)", n, seed, s, b.X, b.Y, a.X, a.Y)
				}
				k := [2]int{n, s}
				if seen[k] == nil {
					seen[k] = map[[2]int16]bool{}
				}
				seen[k][[2]int16{a.X, a.Y}] = true
			}
		}
		for s := range n {
			if got := len(seen[[2]int{n, s}]); got != n {
				t.Errorf("%d riders: slot %d started at %d distinct cells over 200 seeds, want all %d", n, s, got, n)
			}
		}
	}
}
