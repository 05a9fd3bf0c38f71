package tron_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/tron"
)

// roomRig runs today's game.Room, unchanged, with light cycles in it, on a
// fake clock.
type roomRig struct {
	t      *testing.T
	clk    *game.FakeClock
	r      *game.Room
	ctx    context.Context
	ids    []game.PlayerID
	ended  []game.Result
	period time.Duration
}

func newRoomRig(t *testing.T, cfg tron.Config, players int) *roomRig {
	t.Helper()
	clk := game.NewFakeClock()
	rc := game.RoomConfig{Clock: clk, Countdown: time.Second, IdleTimeout: -1, Grace: -1,
		MinPlayers: cfg.MinPlayers, TickRate: cfg.TickRate}
	rig := &roomRig{t: t, clk: clk, period: time.Second / time.Duration(cfg.TickRate)}
	rig.r = game.NewRoom("tron-1", rc, func(seed uint64) game.Game { return tron.New(cfg, seed) }, 7)
	rig.r.SetHooks(game.Hooks{MatchEnded: func(_ string, res game.Result, _ []game.Seat, _ uint64) {
		rig.ended = append(rig.ended, res)
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	rig.ctx = ctx
	go func() { _ = rig.r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-rig.r.Done()
	})
	for i := range players {
		id := game.PlayerID(fmt.Sprintf("SHA256:rider-%d", i))
		if _, err := rig.r.Join(ctx, game.Player{ID: id, Name: fmt.Sprint("rider", i)}, i); err != nil {
			t.Fatal(err)
		}
		rig.ids = append(rig.ids, id)
	}
	for _, id := range rig.ids {
		if err := rig.r.SetReady(ctx, id, true); err != nil {
			t.Fatal(err)
		}
	}
	return rig
}

func (rig *roomRig) frame() (*game.Frame, *tron.Snapshot) {
	f, _ := rig.r.Latest()
	return f, f.State.(*tron.Snapshot)
}

// TestPlaysInARoom: three riders play a whole match through game.Room as a
// session would: each reads the latest frame, steers with NextHead and
// Free the way a view predicts, and submits turns; the room ends the match
// with the game's placements.
func TestPlaysInARoom(t *testing.T) {
	cfg := tron.DefaultConfig(tron.Casual)
	cfg.RoundsToWin = 2
	rig := newRoomRig(t, cfg, 3)
	f, s := rig.frame()
	if f.Phase != game.Countdown {
		t.Fatalf("phase %v, want the countdown", f.Phase)
	}
	for i := range 3 {
		if c := s.Cycles[i]; !c.Alive || s.At(int(c.X), int(c.Y)) != i {
			t.Fatalf("countdown shows slot %d as %+v, want it at its start", i, c)
		}
	}
	rig.clk.Advance(time.Second)
	var seq [3]uint32
	turns, acked := 0, 0 // acked: the highest Seq the room confirmed
	for tick := 0; tick < 200000; tick++ {
		f, s = rig.frame()
		if f.Phase != game.Playing {
			break
		}
		for i := range 3 {
			acked = max(acked, int(f.Acks[i]))
			x, y, h, ok := s.NextHead(i, tron.None)
			dx, dy := tron.Delta(h)
			if !ok || s.Free(x, y) && s.Free(x+dx, y+dy) || s.Cycles[i].Queue[0] != tron.None {
				continue
			}
			// Turn left of the heading if that cell is free, else right.
			turn := map[int8]int8{tron.Up: tron.Left, tron.Left: tron.Down, tron.Down: tron.Right, tron.Right: tron.Up}[h]
			if nx, ny, _, _ := s.NextHead(i, turn); !s.Free(nx, ny) {
				turn = tron.Reverse(turn)
			}
			seq[i]++
			if !rig.r.Submit(rig.ids[i], game.Input{Slot: i, Seq: seq[i], Action: turn}) {
				t.Fatalf("turn refused at tick %d", tick)
			}
			turns++
		}
		rig.clk.Advance(rig.period)
	}
	f, s = rig.frame()
	if f.Phase != game.Finished || f.Result == nil {
		t.Fatalf("phase %v after the match, want Finished with a result", f.Phase)
	}
	if turns < 10 || acked == 0 {
		t.Errorf("%d turns sent, highest ack %d: the riders barely played", turns, acked)
	}
	res := f.Result
	if res.Forfeit || len(res.Placements) != 3 || !s.Over {
		t.Fatalf("result %+v, snapshot over %v", res, s.Over)
	}
	top := 0
	for i := range 3 {
		top = max(top, res.Scores[i])
		if res.Places[i] != int(s.Cycles[i].Place) || res.Scores[i] != int(s.Cycles[i].Wins) {
			t.Errorf("slot %d: result place %d score %d, snapshot %+v", i, res.Places[i], res.Scores[i], s.Cycles[i])
		}
	}
	if top != cfg.RoundsToWin || res.Places[res.Placements[0]] != 1 {
		t.Errorf("result %+v: the winner should have %d round wins and first place", res, cfg.RoundsToWin)
	}
	if len(rig.ended) != 1 {
		t.Errorf("MatchEnded called %d times", len(rig.ended))
	}
	t.Logf("%d ticks, %d rounds, %d turns, result %+v", f.Tick, s.Round, turns, *res)
}

// TestLeaveInARoomForfeits: in a two-rider match, a leave during play ends
// it through the room as a forfeit with the stayer first.
func TestLeaveInARoomForfeits(t *testing.T) {
	rig := newRoomRig(t, tron.DefaultConfig(tron.Casual), 2)
	rig.clk.Advance(time.Second + 10*rig.period)
	if f, _ := rig.frame(); f.Phase != game.Playing {
		t.Fatalf("phase %v", f.Phase)
	}
	if err := rig.r.Leave(rig.ctx, rig.ids[0]); err != nil {
		t.Fatal(err)
	}
	f, s := rig.frame()
	if f.Phase != game.Finished || f.Result == nil || !f.Result.Forfeit {
		t.Fatalf("phase %v result %+v, want a finished forfeit", f.Phase, f.Result)
	}
	if want := []int{2, 1}; f.Result.Places[0] != want[0] || f.Result.Places[1] != want[1] {
		t.Errorf("places %v, want %v", f.Result.Places, want)
	}
	if !s.Cycles[0].Left || s.Cycles[0].Alive || !s.Won(1) {
		t.Errorf("snapshot after the leave: %+v / %+v", s.Cycles[0], s.Cycles[1])
	}
}
