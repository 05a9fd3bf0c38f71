package lobby

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func newQueue(t *testing.T, mode RankedMode) *Queue {
	t.Helper()
	q, err := NewQueue(mode, tableSize(mode), mode == RankedPong2v2)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// add enqueues players named by rating ("p1500") who joined at since.
func add(t *testing.T, q *Queue, now, since time.Time, ratings ...float64) {
	t.Helper()
	for _, r := range ratings {
		if err := q.Enqueue(Entry{ID: id(r), Name: id(r), Rating: r, Since: since}, now); err != nil {
			t.Fatal(err)
		}
	}
}

func id(r float64) string { return fmt.Sprintf("p%g", r) }

// tables renders matches as sorted rating lists, e.g. "[1500 1510]".
func tables(ms []Match) []string {
	var out []string
	for _, m := range ms {
		rs := make([]float64, len(m.Players))
		for i, p := range m.Players {
			rs[i] = p.Rating
		}
		slices.Sort(rs)
		out = append(out, fmt.Sprint(rs))
	}
	slices.Sort(out)
	return out
}

// firstMatch Ticks q every 100 ms from start for up to limit and returns
// the first wave's matches and when they formed, relative to start.
func firstMatch(q *Queue, start time.Time, limit time.Duration) (time.Duration, []Match) {
	for d := time.Duration(0); d <= limit; d += 100 * time.Millisecond {
		if ms := q.Tick(start.Add(d)); len(ms) > 0 {
			return d, ms
		}
	}
	return -1, nil
}

func TestQueueToleranceWindow(t *testing.T) {
	for _, tc := range []struct {
		waited time.Duration
		want   float64
	}{
		{0, 100},
		{sec(4.999), 100},
		{sec(5), 150},
		{sec(9.9), 150},
		{sec(10), 200},
		{sec(30), 400},
		{sec(59), 650},
		{sec(59.999), 650},
		{sec(60), math.Inf(1)},
		{sec(3600), math.Inf(1)},
		{-time.Second, 100}, // a clock that stepped back does not shrink the window
	} {
		if got := Tolerance(tc.waited); got != tc.want {
			t.Errorf("Tolerance(%v) = %v, want %v", tc.waited, got, tc.want)
		}
	}
}

func TestQueueClosestFirstNotArrival(t *testing.T) {
	// Everyone has waited 30 s (±400), so any pair fits; arriving in the
	// order 1500, 1800, 1510, 1810 must still pair by closeness.
	q := newQueue(t, RankedPong1v1)
	add(t, q, t0, t0.Add(-sec(30)), 1500, 1800, 1510, 1810)
	got := tables(q.Tick(t0))
	want := []string{"[1500 1510]", "[1800 1810]"}
	if !slices.Equal(got, want) {
		t.Fatalf("pairs = %v, want %v", got, want)
	}
	if q.Len() != 0 {
		t.Fatalf("%d left in the queue", q.Len())
	}
}

func TestQueueBothTolerances(t *testing.T) {
	// 1500 has waited 30 s (±400) and would take 1750; 1750 just arrived
	// (±100) and would not take 1500. Gap 250 needs 1750 to reach ±250,
	// which it does after 15 s.
	q := newQueue(t, RankedPong1v1)
	add(t, q, t0, t0.Add(-sec(30)), 1500)
	add(t, q, t0, t0, 1750)
	if ms := q.Tick(t0); len(ms) != 0 {
		t.Fatalf("paired outside the newcomer's tolerance: %v", tables(ms))
	}
	for s := 2.0; s < 15; s += 2 {
		if ms := q.Tick(t0.Add(sec(s))); len(ms) != 0 {
			t.Fatalf("at +%vs paired %v; 1750's tolerance is %v", s, tables(ms), Tolerance(sec(s)))
		}
	}
	ms := q.Tick(t0.Add(sec(16)))
	if got := tables(ms); !slices.Equal(got, []string{"[1500 1750]"}) {
		t.Fatalf("at +16s: %v, want [1500 1750]", got)
	}
	if w := ms[0].Formed.Sub(ms[0].Players[1].Since); ms[0].Players[1].Rating == 1750 && w != sec(16) {
		t.Errorf("1750 waited %v, want 16s", w)
	}
}

func TestQueueNoRematchWhenAlternative(t *testing.T) {
	q := newQueue(t, RankedPong1v1)
	since := t0.Add(-sec(20)) // ±300: everyone fits everyone
	for _, e := range []Entry{
		{ID: "a", Rating: 1500, Since: since, LastOpponents: []string{"b"}},
		{ID: "b", Rating: 1501, Since: since}, // only a remembers: either side counts
		{ID: "c", Rating: 1600, Since: since},
	} {
		if err := q.Enqueue(e, t0); err != nil {
			t.Fatal(err)
		}
	}
	ms := q.Tick(t0)
	if len(ms) != 1 {
		t.Fatalf("matches = %v", ms)
	}
	if got := []string{ms[0].Players[0].ID, ms[0].Players[1].ID}; slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("rematched a and b although c fits")
	}

	// With nobody else, the rematch goes ahead rather than nobody playing.
	q = newQueue(t, RankedPong1v1)
	for _, e := range []Entry{
		{ID: "a", Rating: 1500, Since: since, LastOpponents: []string{"b"}},
		{ID: "b", Rating: 1501, Since: since, LastOpponents: []string{"a"}},
	} {
		if err := q.Enqueue(e, t0); err != nil {
			t.Fatal(err)
		}
	}
	if ms := q.Tick(t0); len(ms) != 1 {
		t.Fatalf("no rematch when nobody else fits: %v", ms)
	}
}

func TestQueue2v2SplitMinimisesDifference(t *testing.T) {
	for _, tc := range []struct {
		ratings []float64
		teamA   []float64 // the team holding the lowest rating
	}{
		{[]float64{1400, 1450, 1500, 1700}, []float64{1400, 1700}}, // 3100 v 2950 is best (150)
		{[]float64{1500, 1510, 1520, 1530}, []float64{1500, 1530}}, // 3030 v 3030
		{[]float64{1000, 1100, 1150, 1250}, []float64{1000, 1250}}, // 2250 v 2250
		{[]float64{1000, 1010, 1600, 1700}, []float64{1000, 1700}}, // 2700 v 2610 (90) beats 2600 v 2710 (110)
	} {
		q := newQueue(t, RankedPong2v2)
		add(t, q, t0, t0.Add(-time.Minute), tc.ratings...) // expired: the table is these four whatever the spread
		ms := q.Tick(t0)
		if len(ms) != 1 {
			t.Fatalf("%v: %d matches", tc.ratings, len(ms))
		}
		m := ms[0]
		if !slices.EqualFunc(m.Teams, [][]int{{0, 1}, {2, 3}}, slices.Equal[[]int]) {
			t.Fatalf("Teams = %v", m.Teams)
		}
		a := []float64{m.Players[0].Rating, m.Players[1].Rating}
		b := []float64{m.Players[2].Rating, m.Players[3].Rating}
		if !slices.Contains(a, tc.ratings[0]) {
			a, b = b, a
		}
		slices.Sort(a)
		if !slices.Equal(a, tc.teamA) {
			t.Errorf("%v: teams %v v %v, want %v with the rest", tc.ratings, a, b, tc.teamA)
		}
		// Brute force: no split is closer.
		got := math.Abs(a[0] + a[1] - b[0] - b[1])
		r := tc.ratings
		for _, d := range []float64{r[0] + r[1] - r[2] - r[3], r[0] + r[2] - r[1] - r[3], r[0] + r[3] - r[1] - r[2]} {
			if math.Abs(d) < got {
				t.Errorf("%v: split difference %v, but %v is possible", tc.ratings, got, math.Abs(d))
			}
		}
	}
}

func TestQueueFFA4Spread(t *testing.T) {
	// Spread 200 needs every member at ±200, which fresh arrivals reach
	// after 10 s.
	q := newQueue(t, RankedPongFFA4)
	add(t, q, t0, t0, 1500, 1550, 1600, 1700)
	at, ms := firstMatch(q, t0, time.Minute)
	if at != sec(10) || !slices.Equal(tables(ms), []string{"[1500 1550 1600 1700]"}) {
		t.Fatalf("seated %v at +%v, want all four at +10s", tables(ms), at)
	}

	// Of five, the tightest four sit; the outlier waits.
	q = newQueue(t, RankedPongFFA4)
	add(t, q, t0, t0.Add(-sec(30)), 1200, 1500, 1520, 1540, 1560)
	if got := tables(q.Tick(t0)); !slices.Equal(got, []string{"[1500 1520 1540 1560]"}) {
		t.Fatalf("five players: %v", got)
	}
	if _, _, _, n, ok := q.Status(id(1200), t0); !ok || n != 1 {
		t.Fatalf("1200 should still wait alone: ok %v, queued %d", ok, n)
	}

	// One member's narrow tolerance blocks a table the others accept.
	q = newQueue(t, RankedPongFFA4)
	add(t, q, t0, t0.Add(-sec(30)), 1500, 1550, 1600)
	add(t, q, t0, t0, 1620) // ±100 < spread 120
	if ms := q.Tick(t0); len(ms) != 0 {
		t.Fatalf("seated a table wider than a member's tolerance: %v", tables(ms))
	}
}

func TestQueueImmediateMatchOnFullTable(t *testing.T) {
	q := newQueue(t, RankedPong1v1)
	add(t, q, t0, t0, 1500)
	if ms := q.Tick(t0); len(ms) != 0 { // the scheduled wave: alone
		t.Fatal(ms)
	}
	// Half a second later, well before the next wave, a fit arrives: the
	// next Tick pairs at once.
	now := t0.Add(sec(0.5))
	add(t, q, now, now, 1580)
	ms := q.Tick(now)
	if got := tables(ms); !slices.Equal(got, []string{"[1500 1580]"}) {
		t.Fatalf("immediate match: %v", got)
	}
	if !ms[0].Formed.Equal(now) {
		t.Errorf("Formed = %v, want %v", ms[0].Formed, now)
	}

	// An arrival that completes no table does not bring the wave forward:
	// 1500 and 1620 fit each other from 5 s (±150), yet wait for the 6 s
	// wave although 3000 arrives at 5.5 s and Ticks.
	q = newQueue(t, RankedPong1v1)
	add(t, q, t0, t0, 1500, 1620)
	for _, s := range []float64{0, 2, 4} {
		if ms := q.Tick(t0.Add(sec(s))); len(ms) != 0 {
			t.Fatalf("+%vs: %v", s, tables(ms))
		}
	}
	add(t, q, t0.Add(sec(5.5)), t0.Add(sec(5.5)), 3000)
	if ms := q.Tick(t0.Add(sec(5.5))); len(ms) != 0 {
		t.Fatalf("an arrival that fits nobody ran a wave: %v", tables(ms))
	}
	if got := tables(q.Tick(t0.Add(sec(6)))); !slices.Equal(got, []string{"[1500 1620]"}) {
		t.Fatalf("scheduled wave at 6 s: %v", got)
	}

	// In a crowded queue the newcomer's table is found among its nearest
	// neighbours, and the early wave is a full wave: of 1500, 1540 and 1620
	// it seats the closest pair.
	q = newQueue(t, RankedPong1v1)
	for k := 1; k <= 12; k++ {
		add(t, q, t0, t0, float64(300*k)) // 300 apart: nobody fits anybody
	}
	add(t, q, t0, t0, 1620) // nearest is 1500, 120 away
	if ms := q.Tick(t0); len(ms) != 0 {
		t.Fatal(tables(ms))
	}
	now = t0.Add(sec(0.7))
	add(t, q, now, now, 1540)
	if got := tables(q.Tick(now)); !slices.Equal(got, []string{"[1500 1540]"}) {
		t.Fatalf("crowded queue: %v, want [1500 1540]", got)
	}
	// FFA: the fourth fit arriving seats the table at once.
	f := newQueue(t, RankedPongFFA4)
	add(t, f, t0, t0, 1500, 1510, 1520)
	if ms := f.Tick(t0); len(ms) != 0 {
		t.Fatal(ms)
	}
	add(t, f, t0.Add(sec(1)), t0.Add(sec(1)), 1530)
	if got := tables(f.Tick(t0.Add(sec(1)))); !slices.Equal(got, []string{"[1500 1510 1520 1530]"}) {
		t.Fatalf("ffa immediate: %v", got)
	}
}

func TestQueueWavesEveryInterval(t *testing.T) {
	// Nobody fits on arrival; the periodic waves pick them up once their
	// windows widen, on the 2 s schedule.
	q := newQueue(t, RankedPong1v1)
	add(t, q, t0, t0, 1500, 1720) // gap 220: fits at ±250, 15 s
	if at, _ := firstMatch(q, t0, time.Minute); at != 16*time.Second {
		t.Fatalf("paired at +%v, want at the first wave after 15 s (+16s)", at)
	}
}

func TestQueueStarvingPlayerServedFirst(t *testing.T) {
	// 1000 has waited a minute; 1400 and 1420 are fresh and would pair
	// with each other (gap 20). The starving player comes first: they get
	// the closest available (1400), although 1400's own window (±100)
	// does not reach.
	q := newQueue(t, RankedPong1v1)
	add(t, q, t0, t0.Add(-time.Minute), 1000)
	add(t, q, t0, t0, 1400, 1420)
	ms := q.Tick(t0)
	if got := tables(ms); !slices.Equal(got, []string{"[1000 1400]"}) {
		t.Fatalf("got %v, want the starving 1000 seated with 1400", got)
	}
	// An alone player is not matched with nobody.
	q = newQueue(t, RankedPong1v1)
	add(t, q, t0, t0.Add(-time.Hour), 1000)
	if ms := q.Tick(t0); len(ms) != 0 {
		t.Fatal(ms)
	}
}

func TestQueueRemoveAndStatus(t *testing.T) {
	q := newQueue(t, RankedPong1v1)
	add(t, q, t0, t0, 1500)
	add(t, q, t0.Add(sec(3)), t0.Add(sec(3)), 1900)

	w, lo, hi, n, ok := q.Status(id(1500), t0.Add(sec(7)))
	if !ok || w != sec(7) || lo != 1350 || hi != 1650 || n != 2 {
		t.Fatalf("Status = %v %v %v %d %v", w, lo, hi, n, ok)
	}
	w, lo, hi, _, _ = q.Status(id(1500), t0.Add(time.Minute))
	if w != time.Minute || !math.IsInf(lo, -1) || !math.IsInf(hi, 1) {
		t.Fatalf("after a minute: %v %v %v, want anyone", w, lo, hi)
	}

	if w, ok := q.Remove(id(1500), t0.Add(sec(8))); !ok || w != sec(8) {
		t.Fatalf("Remove = %v %v", w, ok)
	}
	if _, ok := q.Remove(id(1500), t0.Add(sec(8))); ok {
		t.Fatal("removed twice")
	}
	if _, _, _, n, ok := q.Status(id(1500), t0.Add(sec(8))); ok || n != 1 {
		t.Fatalf("removed player's Status: ok %v, queued %d", ok, n)
	}
	// A removed player is never matched, and may queue again.
	add(t, q, t0.Add(sec(9)), t0.Add(sec(9)), 1950)
	if got := tables(q.Tick(t0.Add(sec(9)))); !slices.Equal(got, []string{"[1900 1950]"}) {
		t.Fatalf("after Remove: %v", got)
	}
	add(t, q, t0.Add(sec(10)), time.Time{}, 1500)
	if w, _, _, _, ok := q.Status(id(1500), t0.Add(sec(10))); !ok || w != 0 {
		t.Fatalf("re-queued with zero Since: waited %v ok %v", w, ok)
	}
}

func TestQueueEnqueueErrors(t *testing.T) {
	q := newQueue(t, RankedPong1v1)
	add(t, q, t0, t0, 1500)
	for _, tc := range []struct {
		e    Entry
		want error
	}{
		{Entry{ID: id(1500), Rating: 1500}, ErrAlreadyQueued},
		{Entry{ID: "", Rating: 1500}, ErrBadEntry},
		{Entry{ID: "x", Rating: math.NaN()}, ErrBadEntry},
		{Entry{ID: "y", Rating: math.Inf(1)}, ErrBadEntry},
	} {
		if err := q.Enqueue(tc.e, t0); !errors.Is(err, tc.want) {
			t.Errorf("Enqueue(%+v) = %v, want %v", tc.e, err, tc.want)
		}
	}
	if q.Len() != 1 {
		t.Fatalf("Len = %d after rejected entries", q.Len())
	}
}

func TestQueueKeepsItsOwnCopy(t *testing.T) {
	q := newQueue(t, RankedPong1v1)
	last := []string{"b"}
	since := t0.Add(-sec(20))
	if err := q.Enqueue(Entry{ID: "a", Rating: 1500, Since: since, LastOpponents: last}, t0); err != nil {
		t.Fatal(err)
	}
	last[0] = "zzz" // the caller reuses its slice
	for _, e := range []Entry{{ID: "b", Rating: 1500, Since: since}, {ID: "c", Rating: 1550, Since: since}} {
		if err := q.Enqueue(e, t0); err != nil {
			t.Fatal(err)
		}
	}
	ms := q.Tick(t0)
	if len(ms) != 1 || slices.ContainsFunc(ms[0].Players, func(e Entry) bool { return e.ID == "b" }) {
		t.Fatalf("queue followed the caller's mutated slice: %+v", ms)
	}
}

func TestQueueRunDelivers(t *testing.T) {
	q := newQueue(t, RankedPong1v1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	got := make(chan Match, 1)
	go func() {
		defer close(done)
		q.Run(ctx, func(m Match) { got <- m })
	}()
	now := time.Now()
	add(t, q, now, now, 1500, 1520)
	// Nobody Ticks here: Run's own polling must find the early wave. The
	// bound only stops a broken Run hanging the suite.
	select {
	case m := <-got:
		if len(m.Players) != 2 {
			t.Fatalf("Run delivered %+v", m)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run delivered nothing")
	}
	cancel()
	<-done
}

func TestCooldownGrowth(t *testing.T) {
	var c Cooldowns
	if _, blocked := c.Check("a", t0); blocked {
		t.Fatal("a stranger is blocked")
	}
	now := t0
	for i, want := range []time.Duration{0, 5 * time.Minute, 15 * time.Minute, time.Hour, time.Hour} {
		until := c.RecordLeave("a", now)
		if got := until.Sub(now); got != want {
			t.Fatalf("leave %d: cooldown %v, want %v", i+1, got, want)
		}
		u, blocked := c.Check("a", now)
		if blocked != (want > 0) || (blocked && !u.Equal(until)) {
			t.Fatalf("leave %d: Check = %v %v", i+1, u, blocked)
		}
		if _, blocked := c.Check("a", until); blocked {
			t.Fatalf("leave %d: still blocked when the cooldown ends", i+1)
		}
		if c.Strikes("a", now) != i+1 {
			t.Fatalf("leave %d: %d strikes", i+1, c.Strikes("a", now))
		}
		now = until.Add(time.Minute) // the next game, an hour later at most
	}
	if _, blocked := c.Check("b", now); blocked {
		t.Fatal("another player's leaves blocked b")
	}
}

func TestCooldownDecay(t *testing.T) {
	for _, tc := range []struct {
		clean time.Duration // since the 4th leave
		want  time.Duration // cooldown for the next leave
	}{
		{23 * time.Hour, time.Hour},        // 4 strikes held → 5th: an hour
		{24 * time.Hour, time.Hour},        // 3 held → 4th: an hour
		{48 * time.Hour, 15 * time.Minute}, // 2 held → 3rd
		{72 * time.Hour, 5 * time.Minute},  // 1 held → 2nd
		{96 * time.Hour, 0},                // clean slate → forgiven
		{30 * 24 * time.Hour, 0},           // and it does not go negative
		{71*time.Hour + 59*time.Minute, 15 * time.Minute},
	} {
		var c Cooldowns
		var last time.Time
		for i := range 4 {
			last = t0.Add(time.Duration(i) * 2 * time.Hour) // each after the previous cooldown
			c.RecordLeave("a", last)
		}
		at := last.Add(tc.clean)
		if got := c.RecordLeave("a", at).Sub(at); got != tc.want {
			t.Errorf("leave after %v clean: cooldown %v, want %v", tc.clean, got, tc.want)
		}
	}

	// A forgiven player is forgotten.
	var c Cooldowns
	c.RecordLeave("a", t0)
	c.RecordLeave("b", t0)
	if _, blocked := c.Check("a", t0.Add(StrikeDecay)); blocked || c.Strikes("a", t0.Add(StrikeDecay)) != 0 {
		t.Fatal("one leave not forgiven after a clean day")
	}
	c.RecordLeave("c", t0.Add(StrikeDecay))
	c.mu.Lock()
	n := len(c.m)
	c.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d records kept, want only c's", n)
	}
}
