package lobby

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The matchmaking simulation: 1,000 players with ratings from N(1500, 300)
// arrive uniformly over ten simulated minutes; the clock steps 100 ms and
// Ticks the queue every step, so waves run on the 2 s schedule plus the
// early waves arrivals trigger. Everything is seeded and the clock is
// simulated, so the figures are the same on every run and machine.
const (
	simPlayers  = 1000
	simArrivals = 10 * time.Minute
	simStep     = 100 * time.Millisecond
	// simDrain lets the last arrivals expire and be seated.
	simDrain = 2 * time.Minute
	// simMaxWait is the promise: nobody waits longer, bar the few left
	// over at the very end when fewer than a table remain.
	simMaxWait = 65 * time.Second
)

type simResult struct {
	matched, leftover int
	leftWaits         []time.Duration // of the leftovers, at the end
	waits             []time.Duration // per matched player
	spreads           []float64       // per match: max − min rating (the gap in 1v1)
	starved           int             // matches with someone seated by the starvation rule
	teamDiffs         []float64       // 2v2: per match, |team average A − team average B|
}

func simulate(t *testing.T, mode RankedMode, seed uint64) simResult {
	t.Helper()
	q := newQueue(t, mode)
	rng := rand.New(rand.NewPCG(seed, 0x7e57a7e4a))
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type arrival struct {
		at     time.Duration
		rating float64
	}
	arrivals := make([]arrival, simPlayers)
	for i := range arrivals {
		arrivals[i] = arrival{
			at:     time.Duration(rng.Int64N(int64(simArrivals))),
			rating: 1500 + 300*rng.NormFloat64(),
		}
	}
	slices.SortFunc(arrivals, func(a, b arrival) int { return int(a.at - b.at) })

	var res simResult
	next := 0
	for d := time.Duration(0); d <= simArrivals+simDrain; d += simStep {
		now := start.Add(d)
		for ; next < len(arrivals) && arrivals[next].at <= d; next++ {
			a := arrivals[next]
			e := Entry{ID: fmt.Sprintf("p%04d", next), Rating: a.rating, Since: start.Add(a.at)}
			if err := q.Enqueue(e, now); err != nil {
				t.Fatal(err)
			}
		}
		for _, m := range q.Tick(now) {
			lo, hi := math.Inf(1), math.Inf(-1)
			starved := false
			for _, p := range m.Players {
				w := m.Formed.Sub(p.Since)
				res.waits = append(res.waits, w)
				lo, hi = min(lo, p.Rating), max(hi, p.Rating)
				starved = starved || w >= AnyoneAfter
			}
			if starved {
				res.starved++
			}
			res.matched += len(m.Players)
			res.spreads = append(res.spreads, hi-lo)
			if m.Teams != nil {
				p := m.Players
				res.teamDiffs = append(res.teamDiffs, math.Abs(p[0].Rating+p[1].Rating-p[2].Rating-p[3].Rating)/2)
			}
		}
	}
	end := start.Add(simArrivals + simDrain)
	for i := range simPlayers {
		if w, _, _, _, ok := q.Status(fmt.Sprintf("p%04d", i), end); ok {
			res.leftover++
			res.leftWaits = append(res.leftWaits, w)
		}
	}
	return res
}

// percentile is the nearest-rank percentile of sorted xs.
func percentile[T any](xs []T, p float64) T {
	i := int(math.Ceil(p/100*float64(len(xs)))) - 1
	return xs[max(i, 0)]
}

func TestQueueSim(t *testing.T) {
	for _, tm := range testModes {
		mode := tm.mode
		t.Run(string(mode), func(t *testing.T) {
			res := simulate(t, mode, 1)
			if res.matched+res.leftover != simPlayers {
				t.Fatalf("matched %d + left %d ≠ %d players", res.matched, res.leftover, simPlayers)
			}
			// Fewer than a table can be left once arrivals stop; any more
			// means someone was stranded.
			if res.leftover >= tm.size {
				t.Errorf("%d players never matched (waited %v)", res.leftover, res.leftWaits)
			}
			slices.Sort(res.waits)
			slices.Sort(res.spreads)
			slices.Sort(res.teamDiffs)
			maxWait := res.waits[len(res.waits)-1]
			if maxWait > simMaxWait {
				t.Errorf("longest wait %v > %v", maxWait, simMaxWait)
			}
			t.Logf("%s: %d players, %d matched in %d tables, %d left over at the end (excluded; waited %v)",
				mode, simPlayers, res.matched, len(res.spreads), res.leftover, res.leftWaits)
			t.Logf("%s: wait median %.1fs, p95 %.1fs, max %.1fs",
				mode, percentile(res.waits, 50).Seconds(), percentile(res.waits, 95).Seconds(), maxWait.Seconds())
			t.Logf("%s: rating spread per table median %.0f, p95 %.0f, max %.0f; %d tables seated someone past %v",
				mode, percentile(res.spreads, 50), percentile(res.spreads, 95), res.spreads[len(res.spreads)-1],
				res.starved, AnyoneAfter)
			if len(res.teamDiffs) > 0 {
				t.Logf("%s: team-average difference median %.1f, p95 %.1f, max %.1f",
					mode, percentile(res.teamDiffs, 50), percentile(res.teamDiffs, 95), res.teamDiffs[len(res.teamDiffs)-1])
			}
		})
	}
}
