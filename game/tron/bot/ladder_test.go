package bot

import (
	"flag"
	"syscall"
	"testing"
	"time"

	drive "github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/tron"
)

var full = flag.Bool("ladder.full", false, "play the full ladder (200 matches a rung) and print its table for BENCHMARKS.md")

// maxTicks bounds a headless match: far beyond any real one.
const maxTicks = 60 * 60 * 30

// mode is the casual room, played by two riders on the full arena.
var mode = tron.Casual.String()

// Each level beats the one below it in most matches, measured headless on
// fixed seeds (the full 200 a rung with -ladder.full).
func TestLadder(t *testing.T) {
	if raceDetector && !*full {
		// The race detector slows the brains' flood-fill searches past
		// the test timeout (over ten minutes); .ci/run plays the ladder
		// without it as well, where it takes about 75 s.
		t.Skip("the light-cycle ladder runs without -race (see .ci/run)")
	}
	// Ten a rung: two riders filling the arena take a few hundred
	// milliseconds a match even headless.
	n := 10
	if *full {
		n = 200
	}
	if testing.Short() && !*full {
		n = 6
	}
	ps, err := drive.Ladder(tron.Kind{}, mode, New, n, 1000, maxTicks)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", drive.Table("Light cycles, 2 riders", ps))
	for _, p := range ps {
		if p.Rate() < 0.65 {
			t.Errorf("level %d beat level %d in %.0f %% of %d matches; want at least 65 %%", p.Hi, p.Lo, 100*p.Rate(), p.Matches)
		}
	}
}

// newcomer is how a person new to the game rides: they turn when the
// wall is right in front of them, toward whichever side has the longer
// road, a quarter of a second late.
type newcomer struct{ lastX, lastY int16 }

func (n *newcomer) Act(v drive.View) []int8 {
	seen, now := v.Seen.(*tron.Snapshot), v.Now.(*tron.Snapshot)
	me := now.Cycles[v.Slot]
	if !me.Alive || me.Queue[0] != tron.None || (me.X == n.lastX && me.Y == n.lastY) {
		return nil
	}
	n.lastX, n.lastY = me.X, me.Y
	// What they saw, and their own trail as it is now.
	free := func(x, y int) bool { return seen.Free(x, y) && now.At(x, y) != v.Slot }
	road := func(d int8) int {
		dx, dy := tron.Delta(d)
		k := 0
		for x, y := int(me.X)+dx, int(me.Y)+dy; free(x, y) && k < 8; x, y = x+dx, y+dy {
			k++
		}
		return k
	}
	if road(me.Heading) >= 3 {
		return nil
	}
	best, bestLen := me.Heading, road(me.Heading)
	for _, d := range []int8{tron.Up, tron.Down, tron.Left, tron.Right} {
		if d != tron.Reverse(me.Heading) && road(d) > bestLen {
			best, bestLen = d, road(d)
		}
	}
	if best == me.Heading {
		return nil
	}
	return []int8{best}
}

// Level 1 is beatable by a new player: the newcomer above, who only looks
// three cells ahead, wins most matches against it.
func TestNewcomerBeatsLevel1(t *testing.T) {
	const n = 10
	wins := 0
	for i := range n {
		seed := uint64(500 + i)
		b, r, err := New(mode, 1, 1, seed)
		if err != nil {
			t.Fatal(err)
		}
		cs := []drive.Contender{{Brain: &newcomer{lastX: -1}, Reflex: drive.Reflex{Delay: 15, Gap: 3}}, {Brain: b, Reflex: r}}
		res, _, err := drive.Play(tron.Kind{}, mode, cs, seed, maxTicks)
		if err != nil {
			t.Fatal(err)
		}
		if res.Places[0] < res.Places[1] {
			wins++
		}
	}
	t.Logf("the newcomer won %d/%d against level 1", wins, n)
	if wins < n*7/10 {
		t.Errorf("the newcomer won %d of %d against level 1; a beginner should beat it", wins, n)
	}
}

// A ranked free-for-all of four bots, one of each of levels 2 to 5, plays
// to its end through the room.
func TestFreeForAllPlaysOut(t *testing.T) {
	var cs []drive.Contender
	for slot := range 4 {
		b, r, err := New(tron.FFA.String(), slot+2, slot, uint64(slot))
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, drive.Contender{Brain: b, Reflex: r})
	}
	res, ticks, err := drive.Play(tron.Kind{}, tron.FFA.String(), cs, 9, maxTicks)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d ticks, %+v", ticks, res)
	if res.Forfeit || res.Places[0] == 0 {
		t.Errorf("result %+v", res)
	}
}

// BenchmarkAct is the CPU one bot costs per tick at each level: what the
// driver calls once a frame, over a round's frames (it thinks once a
// move, every third tick).
func BenchmarkAct(b *testing.B) {
	for level := 1; level <= drive.Levels; level++ {
		b.Run("L"+string(rune('0'+level)), func(b *testing.B) {
			g := tron.New(tron.DefaultConfig(tron.Casual), 3)
			for s := range 4 {
				_ = g.Join(s)
			}
			var frames []*game.Frame
			for range 900 {
				g.Step(nil)
				s := g.Snapshot().(*tron.Snapshot)
				frames = append(frames, &game.Frame{Phase: game.Playing, Tick: s.Tick, State: s})
			}
			brain, r, _ := New(mode, level, 0, 1)
			seat := drive.NewSeat(0, brain, r)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := range b.N {
				seat.Observe(frames[i%len(frames)])
			}
			// On a shared, loaded machine ns/op is mostly waiting for
			// a core; the process's CPU time is what a bot costs.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the CPU time the test process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
