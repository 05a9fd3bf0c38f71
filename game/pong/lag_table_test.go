package pong_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// laggedPlayer is a 1v1 on a real room whose left player sees the game
// `lag` late: their screen shows the frame the room published lag ago, and
// they move their paddle onto the ball as it shows it (their own paddle
// they see where it is: a view predicts it). Their keys reach the room at
// once, so lag is the age of their screen when a key arrives, which is
// what the room measures (a round trip; a latency on one direction of the
// connection amounts to the same). The right player sees the live game.
// Everything runs on a fake clock: the same numbers every run.
type laggedPlayer struct {
	t      *testing.T
	clk    *game.FakeClock
	room   *game.Room
	period time.Duration
	delay  int           // ticks
	frames []*game.Frame // by tick
	dir    [2]int8
	seq    uint32
}

func newLaggedPlayer(t *testing.T, lag, comp time.Duration, seed uint64) *laggedPlayer {
	t.Helper()
	cfg := pong.DefaultConfig(pong.OneVOne)
	cfg.PointsToWin = 1 << 20
	p := &laggedPlayer{t: t, clk: game.NewFakeClock(), period: time.Second / time.Duration(cfg.TickRate)}
	p.delay = int(lag / p.period)
	p.room = game.NewRoom("lag", game.RoomConfig{Clock: p.clk, Countdown: -1, IdleTimeout: -1, LagCompensation: comp},
		func(seed uint64) game.Game { return pong.New(cfg, seed) }, seed)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = p.room.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-p.room.Done()
	})
	for i, id := range []game.PlayerID{"left", "right"} {
		if _, err := p.room.Join(ctx, game.Player{ID: id, Name: string(id)}, i); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []game.PlayerID{"left", "right"} {
		if err := p.room.SetReady(ctx, id, true); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// step lets both players act on what they see, then runs one tick.
func (p *laggedPlayer) step() *pong.Snapshot {
	now, _ := p.room.Latest()
	seen := now
	if i := len(p.frames) - 1 - p.delay; i >= 0 {
		seen = p.frames[i]
	} else if len(p.frames) > 0 {
		seen = p.frames[0]
	}
	p.act(pong.Left, "left", seen, now, 0)
	// The right player is a good one: they take the ball off the end of
	// their paddle, so it comes back steep, alternating up and down.
	aim := own(now).Config.PaddleLen * pong.Sub * 3 / 8
	if own(now).Hits[pong.Right]%2 == 1 {
		aim = -aim
	}
	p.act(pong.Right, "right", now, now, aim)
	p.clk.Advance(p.period + 1)
	fr, _ := p.room.Latest()
	if fr.Phase != game.Playing {
		p.t.Fatalf("room %v", fr.Phase)
	}
	p.frames = append(p.frames, fr)
	return fr.State.(*pong.Snapshot)
}

// act steers side's paddle toward the ball as seen. Only changes of
// direction are sent, as a view sends them, each saying which tick the
// screen showed.
func (p *laggedPlayer) act(side int, id game.PlayerID, seen, now *game.Frame, aim int32) {
	ball := own(seen).Ball
	diff := ball.Y + aim - own(now).Paddles[side].Pos
	var dir int8
	if dead := own(now).Config.PaddleSpeed / 2; ball.Live && (diff > dead || diff < -dead) {
		dir = 1
		if diff < 0 {
			dir = -1
		}
	}
	if dir == p.dir[side] {
		return
	}
	p.dir[side] = dir
	p.seq++
	p.room.Submit(id, game.Input{Slot: side, Seq: p.seq, Action: dir, Seen: seen.Tick})
}

func own(f *game.Frame) *pong.Snapshot { return f.State.(*pong.Snapshot) }

// judge plays until the left player has been judged n times and returns
// how many of those were catches.
func (p *laggedPlayer) judge(n int) (catches int) {
	var hits int32
	var pointAt uint64
	for judged := 0; judged < n; {
		s := p.step()
		if s.Hits[pong.Left] != hits {
			hits = s.Hits[pong.Left]
			catches++
			judged++
		}
		if s.LastPointAgainst == pong.Left && s.LastPointTick != pointAt {
			pointAt = s.LastPointTick
			judged++
		}
		if s.Tick > 1_000_000 {
			p.t.Fatal("no end to the match")
		}
	}
	return catches
}

// TestLagCompensationTable is the catch/miss table of issue 12: a player
// whose screen is 0, 50, 150 or 300 ms old moves their paddle onto the ball
// as their screen shows it, 100 times, with lag compensation at its default
// (150 ms) and off. Run with -v to see the table.
func TestLagCompensationTable(t *testing.T) {
	const n = 100
	lags := []time.Duration{0, 50 * time.Millisecond, 150 * time.Millisecond, 300 * time.Millisecond}
	comps := []time.Duration{150 * time.Millisecond, 0}
	got := map[[2]time.Duration]int{}
	var tbl strings.Builder
	fmt.Fprintf(&tbl, "%-10s %-22s %-22s\n", "screen lag", "compensation 150ms", "compensation off")
	for _, lag := range lags {
		fmt.Fprintf(&tbl, "%-10v", lag)
		for _, comp := range comps {
			c := newLaggedPlayer(t, lag, comp, 7).judge(n)
			got[[2]time.Duration{lag, comp}] = c
			fmt.Fprintf(&tbl, " %-22s", fmt.Sprintf("%d caught, %d missed", c, n-c))
		}
		tbl.WriteByte('\n')
	}
	t.Logf("left player's catches of %d balls, moving onto the ball as their screen showed it:\n%s", n, tbl.String())

	// The game is deterministic, but each run is its own match: the
	// trajectories part at the first judgement that differs, so the counts
	// are compared as rates. A player lagging within the cap catches as
	// one with no lag does (the misses left are balls that outran the
	// paddle on their screen too) ...
	base := got[[2]time.Duration{0, 0}]
	for _, lag := range lags[1:3] {
		if c := got[[2]time.Duration{lag, 150 * time.Millisecond}]; c < base-n/20 {
			t.Errorf("%v behind with compensation: %d caught, want about as many as with no lag (%d)", lag, c, base)
		}
	}
	// ... and clearly fewer without compensation ...
	if off, on := got[[2]time.Duration{150 * time.Millisecond, 0}], got[[2]time.Duration{150 * time.Millisecond, 150 * time.Millisecond}]; off > on*3/4 {
		t.Errorf("150 ms behind: %d caught without compensation, %d with; want clearly fewer without", off, on)
	}
	// ... while beyond the cap the others are protected: the lag past it
	// costs catches again.
	if over, at := got[[2]time.Duration{300 * time.Millisecond, 150 * time.Millisecond}], got[[2]time.Duration{150 * time.Millisecond, 150 * time.Millisecond}]; over > at*3/4 {
		t.Errorf("300 ms behind with a 150 ms cap: %d caught, %d at 150 ms; want clearly fewer", over, at)
	}
}
