package bot

import (
	"flag"
	"syscall"
	"testing"
	"time"

	drive "github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

var full = flag.Bool("ladder.full", false, "play the full ladder (200 matches a rung) and print its table for BENCHMARKS.md")

// maxTicks bounds a headless match: at 60 Hz, far beyond any real one.
const maxTicks = 60 * 60 * 30

// Each level beats the one below it in most matches, measured headless on
// fixed seeds (the full 200 a rung with -ladder.full).
func TestLadder(t *testing.T) {
	n := 20
	if *full {
		n = 200
	}
	if testing.Short() && !*full {
		n = 8
	}
	ps, err := drive.Ladder(pong.Kind{}, "1v1", New, n, 1000, maxTicks)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", drive.Table("Pong 1v1", ps))
	for _, p := range ps {
		if p.Rate() < 0.65 {
			t.Errorf("level %d beat level %d in %.0f %% of %d matches; want at least 65 %%", p.Hi, p.Lo, 100*p.Rate(), p.Matches)
		}
	}
}

// newcomer is how a person new to the game plays: they follow the ball
// up and down wherever it is, a quarter of a second late, pressing keys
// up to six times a second, with no idea of where it will bounce.
type newcomer struct{ dir int8 }

func (n *newcomer) Act(v drive.View) []int8 {
	seen, now := v.Seen.(*pong.Snapshot), v.Now.(*pong.Snapshot)
	d := seen.Ball.Y - now.Paddles[v.Slot].Pos
	var dir int8
	switch {
	case !seen.Ball.Live:
	case d > 2*pong.Sub:
		dir = 1
	case d < -2*pong.Sub:
		dir = -1
	}
	if dir == n.dir {
		return nil
	}
	n.dir = dir
	return []int8{dir}
}

// Level 1 is beatable by a new player: the newcomer above wins most
// matches against it (and level 2 already beats the newcomer, so the
// levels above are a ladder to climb).
func TestNewcomerBeatsLevel1(t *testing.T) {
	wins := map[int]int{}
	const n = 10
	for level := 1; level <= 2; level++ {
		for i := range n {
			seed := uint64(500 + i)
			b, r, err := New("1v1", level, 1, seed)
			if err != nil {
				t.Fatal(err)
			}
			cs := []drive.Contender{{Brain: &newcomer{}, Reflex: drive.Reflex{Delay: 15, Gap: 10}}, {Brain: b, Reflex: r}}
			res, _, err := drive.Play(pong.Kind{}, "1v1", cs, seed, maxTicks)
			if err != nil {
				t.Fatal(err)
			}
			if res.Places[0] < res.Places[1] {
				wins[level]++
			}
		}
	}
	t.Logf("the newcomer won %d/%d against level 1, %d/%d against level 2", wins[1], n, wins[2], n)
	if wins[1] < n*7/10 {
		t.Errorf("the newcomer won %d of %d against level 1; a beginner should beat it", wins[1], n)
	}
}

// A four-sided match of bots plays to its end through the room: every
// mode's sides are played, not just 1v1's.
func TestFourSidesPlayOut(t *testing.T) {
	for _, mode := range []string{"2v2", "ffa"} {
		var cs []drive.Contender
		for slot := range 4 {
			b, r, err := New(mode, 3, slot, uint64(slot))
			if err != nil {
				t.Fatal(err)
			}
			cs = append(cs, drive.Contender{Brain: b, Reflex: r})
		}
		res, ticks, err := drive.Play(pong.Kind{}, mode, cs, 7, maxTicks)
		t.Logf("%s: %d ticks, %+v", mode, ticks, res)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if res.Forfeit || len(res.Placements) != 4 {
			t.Errorf("%s: result %+v", mode, res)
		}
	}
}

// BenchmarkAct is the CPU one bot costs per tick, at each level: what
// the driver calls once a frame.
func BenchmarkAct(b *testing.B) {
	for level := 1; level <= drive.Levels; level++ {
		b.Run("L"+string(rune('0'+level)), func(b *testing.B) {
			g := pong.New(pong.DefaultConfig(pong.OneVOne), 3)
			_ = g.Join(0)
			_ = g.Join(1)
			var frames []*game.Frame
			for range 600 {
				g.Step(nil)
				frames = append(frames, &game.Frame{Phase: game.Playing, Tick: g.Snapshot().(*pong.Snapshot).Tick, State: g.Snapshot()})
			}
			brain, r, _ := New("1v1", level, 0, 1)
			seat := drive.NewSeat(0, brain, r)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := range b.N {
				f := frames[i%len(frames)]
				seat.Observe(f)
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
