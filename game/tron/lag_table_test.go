package tron_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/tron"
)

// laggedRider is a two-rider match on a real room whose slot 0 sees the
// game `lag` late: their screen shows the frame the room published lag ago
// (their own cycle included: a light-cycle view predicts only the turns
// not yet confirmed, not the movement), and they turn at the last moment
// their screen allows: when it shows that the next move runs into a wall
// or a trail. Their keys reach the room at once, so lag is the age of
// their screen when a key arrives, which is what the room measures. Slot 1
// sees the live game and steers the same way. Everything runs on a fake
// clock: the same numbers every run.
type laggedRider struct {
	t      *testing.T
	clk    *game.FakeClock
	room   *game.Room
	period time.Duration
	delay  int
	frames []*game.Frame // published frames, by tick
	seq    [2]uint32

	// Per round: where slot 0 started, whether it made its opening turn,
	// and the dangers it turned away from, each to be judged.
	round   int32
	x0, y0  int16
	opening bool // make the opening turn at all
	opened  bool
	sent    map[[3]int32]bool
	pending []danger
	ids     [2]game.PlayerID
}

// danger is a last-moment turn slot 0 made: its screen showed tick seen,
// the cycle at (x, y), and the next move into a wall or trail.
type danger struct {
	seen  uint64
	round int32
	x, y  int16
}

func newLaggedRider(t *testing.T, lag, comp time.Duration, opening bool) *laggedRider {
	t.Helper()
	cfg := tron.DefaultConfig(tron.Casual)
	cfg.Players = 2
	cfg.RoundsToWin = 1 << 20
	p := &laggedRider{t: t, clk: game.NewFakeClock(), period: time.Second / time.Duration(cfg.TickRate),
		opening: opening, sent: map[[3]int32]bool{}, ids: [2]game.PlayerID{"SHA256:lagged", "SHA256:live"}}
	p.delay = int(lag / p.period)
	p.room = game.NewRoom("tron-lag", game.RoomConfig{Clock: p.clk, Countdown: -1, IdleTimeout: -1, Grace: -1,
		TickRate: cfg.TickRate, LagCompensation: comp},
		func(seed uint64) game.Game { return tron.New(cfg, seed) }, 11)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = p.room.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-p.room.Done()
	})
	for i, id := range p.ids {
		if _, err := p.room.Join(ctx, game.Player{ID: id, Name: fmt.Sprint("rider", i)}, i); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range p.ids {
		if err := p.room.SetReady(ctx, id, true); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func tronState(f *game.Frame) *tron.Snapshot { return f.State.(*tron.Snapshot) }

// escape is the turn away from a wall or trail ahead on s for slot: left of
// the heading if that cell is free, else right; ok is false when the cell
// ahead is free (no danger) or the cycle is not riding.
func escape(s *tron.Snapshot, slot int) (turn int8, ok bool) {
	x, y, h, riding := s.NextHead(slot, tron.None)
	if !riding || s.Free(x, y) {
		return tron.None, false
	}
	turn = map[int8]int8{tron.Up: tron.Left, tron.Left: tron.Down, tron.Down: tron.Right, tron.Right: tron.Up}[h]
	if nx, ny, _, _ := s.NextHead(slot, turn); !s.Free(nx, ny) {
		turn = tron.Reverse(turn)
	}
	return turn, true
}

func (p *laggedRider) submit(slot int, turn int8, seen uint64) {
	p.seq[slot]++
	if !p.room.Submit(p.ids[slot], game.Input{Slot: slot, Seq: p.seq[slot], Action: turn, Seen: seen}) {
		p.t.Fatal("turn refused")
	}
}

// step lets both riders act on what they see, then runs one tick.
func (p *laggedRider) step() *tron.Snapshot {
	now, _ := p.room.Latest()
	seen := now
	if i := len(p.frames) - 1 - p.delay; i >= 0 {
		seen = p.frames[i]
	} else if len(p.frames) > 0 {
		seen = p.frames[0]
	}
	p.actLagged(seen)
	// The live rider turns a move early, so it is never the one to crash.
	if s := tronState(now); s.Cycles[1].Alive && s.Cycles[1].Queue[0] == tron.None && s.PauseIn == 0 {
		x, y, h, _ := s.NextHead(1, tron.None)
		dx, dy := tron.Delta(h)
		if !s.Free(x, y) || !s.Free(x+dx, y+dy) {
			turn := map[int8]int8{tron.Up: tron.Left, tron.Left: tron.Down, tron.Down: tron.Right, tron.Right: tron.Up}[h]
			if nx, ny, _, _ := s.NextHead(1, turn); !s.Free(nx, ny) {
				turn = tron.Reverse(turn)
			}
			p.submit(1, turn, now.Tick)
		}
	}
	p.clk.Advance(p.period + 1)
	fr, _ := p.room.Latest()
	if fr.Phase != game.Playing {
		p.t.Fatalf("room %v", fr.Phase)
	}
	p.frames = append(p.frames, fr)
	return tronState(fr)
}

// actLagged is slot 0 acting on the screen it sees: an opening turn a few
// cells into each round (so the match has seen its lag before the first
// danger, see the package comment's known limit), then a turn at the last
// moment before every wall or trail.
func (p *laggedRider) actLagged(seen *game.Frame) {
	s := tronState(seen)
	c := s.Cycles[0]
	if s.Round != p.round {
		p.round, p.x0, p.y0, p.opened = s.Round, c.X, c.Y, false
	}
	if !c.Alive || s.PauseIn > 0 {
		return
	}
	if p.opening && !p.opened && abs16(c.X-p.x0)+abs16(c.Y-p.y0) >= 4 {
		p.opened = true
		turn := map[int8]int8{tron.Up: tron.Left, tron.Left: tron.Down, tron.Down: tron.Right, tron.Right: tron.Up}[c.Heading]
		p.submit(0, turn, seen.Tick)
		return
	}
	turn, ok := escape(s, 0)
	key := [3]int32{s.Round, int32(c.X), int32(c.Y)}
	if !ok || p.sent[key] {
		return
	}
	p.sent[key] = true
	if nx, ny, _, _ := s.NextHead(0, turn); !s.Free(nx, ny) {
		return // boxed in on their own screen: nothing to judge
	}
	p.submit(0, turn, seen.Tick)
	p.pending = append(p.pending, danger{seen: seen.Tick, round: s.Round, x: c.X, y: c.Y})
}

func abs16(v int16) int16 {
	if v < 0 {
		return -v
	}
	return v
}

// judge plays until n of slot 0's last-moment turns have been judged and
// returns how many saved it. A turn is judged once no rollback can change
// its move any more (a second after the screen it was pressed on): saved
// if the cycle rides on or crashed later, from another cell.
func (p *laggedRider) judge(n int) (saved int) {
	for judged := 0; judged < n; {
		s := p.step()
		for len(p.pending) > 0 && s.Tick >= p.pending[0].seen+60 {
			d := p.pending[0]
			p.pending = p.pending[1:]
			c := s.Cycles[0]
			if s.Round != d.round {
				p.t.Fatalf("judgement of tick %d came after its round ended", d.seen)
			}
			if c.Alive || c.X != d.x || c.Y != d.y {
				saved++
			}
			judged++
		}
		if s.Tick > 2_000_000 {
			p.t.Fatal("too few judgements")
		}
	}
	return saved
}

// TestLagCompensationTable is issue 12's catch/miss table for light cycles:
// a rider whose screen is 0, 50, 150 or 300 ms old turns at the last moment
// their screen allows before a wall or trail, 40 times, with compensation
// at the server's default cap (150 ms) and off. Run with -v to see it.
func TestLagCompensationTable(t *testing.T) {
	const n = 40
	lags := []time.Duration{0, 50 * time.Millisecond, 150 * time.Millisecond, 300 * time.Millisecond}
	comps := []time.Duration{150 * time.Millisecond, 0}
	got := map[[2]time.Duration]int{}
	var tbl strings.Builder
	fmt.Fprintf(&tbl, "%-10s %-22s %-22s\n", "screen lag", "compensation 150ms", "compensation off")
	for _, lag := range lags {
		fmt.Fprintf(&tbl, "%-10v", lag)
		for _, comp := range comps {
			c := newLaggedRider(t, lag, comp, true).judge(n)
			got[[2]time.Duration{lag, comp}] = c
			fmt.Fprintf(&tbl, " %-22s", fmt.Sprintf("%d saved, %d crashed", c, n-c))
		}
		tbl.WriteByte('\n')
	}
	t.Logf("last-moment turns of a rider, pressed on the screen they saw (a move every 3 ticks = 50 ms):\n%s", tbl.String())

	// Within the cap a lagging rider is saved as one with no lag is ...
	on := 150 * time.Millisecond
	base := got[[2]time.Duration{0, 0}]
	if base < n*9/10 {
		t.Errorf("no lag: %d of %d saved; the table needs a rider that survives its own turns", base, n)
	}
	for _, lag := range lags[1:3] {
		if c := got[[2]time.Duration{lag, on}]; c < base-n/20 {
			t.Errorf("%v behind with compensation: %d saved, want about as many as with no lag (%d)", lag, c, base)
		}
		// ... and crashes without it: a turn 3 or more ticks late misses
		// the move.
		if c := got[[2]time.Duration{lag, 0}]; c > n/10 {
			t.Errorf("%v behind without compensation: %d saved, want nearly none", lag, c)
		}
	}
	// Beyond the cap the others are protected: the turn counts 9 ticks
	// back at most, after the move.
	if c := got[[2]time.Duration{300 * time.Millisecond, on}]; c > n/10 {
		t.Errorf("300 ms behind with a 150 ms cap: %d saved, want nearly none", c)
	}

	// The known limit: a rider whose only turns are last-moment ones loses
	// the first (the match has seen no lag, so the deciding crash ends the
	// round at once); its turn, arriving in the pause, teaches the match
	// the lag, and every later one is saved.
	if c := newLaggedRider(t, 150*time.Millisecond, on, false).judge(n); c != n-1 {
		t.Errorf("no opening turn, 150 ms behind with compensation: %d saved, want all but the first (%d)", c, n-1)
	} else {
		t.Logf("no opening turn, 150 ms behind with compensation: %d saved, %d crashed (the first)", c, n-c)
	}
}
