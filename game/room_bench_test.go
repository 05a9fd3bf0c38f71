package game

import (
	"fmt"
	"testing"
	"time"
)

// benchGame costs about what a real game's step does not: the benchmark
// measures the room's own per-tick work (drain, validate, step call,
// snapshot publish).
type benchGame struct {
	slots int
	pos   [4]int32
	tick  uint64
}

type benchState struct {
	Tick uint64
	Pos  [4]int32
}

func (g *benchGame) Slots() int             { return g.slots }
func (g *benchGame) Join(int) error         { return nil }
func (g *benchGame) Leave(int)              {}
func (g *benchGame) Result() (Result, bool) { return Result{}, false }
func (g *benchGame) Hash() uint64           { return g.tick }
func (g *benchGame) Snapshot() any          { return &benchState{Tick: g.tick, Pos: g.pos} }
func (g *benchGame) Step(in []Input) {
	for _, i := range in {
		g.pos[i.Slot] += int32(i.Action)
	}
	g.tick++
}

// BenchmarkRoomTick drives the room's tick directly on the benchmark
// goroutine (no Run, so no scheduler hand-off is measured): one op is one
// tick with two inputs.
func BenchmarkRoomTick(b *testing.B) {
	for _, seats := range []int{2, 4} {
		b.Run(fmt.Sprintf("seats=%d", seats), func(b *testing.B) {
			clk := NewFakeClock()
			r := NewRoom("bench", RoomConfig{Clock: clk, Countdown: -1, IdleTimeout: -1},
				func(uint64) Game { return &benchGame{slots: seats} }, 1)
			l := &r.loop
			ids := make([]PlayerID, seats)
			for i := range ids {
				ids[i] = PlayerID(fmt.Sprintf("SHA256:player-%d-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", i))
				l.handle(ctlReq{kind: ctlJoin, player: Player{ID: ids[i]}, slot: -1})
			}
			for _, id := range ids {
				l.handle(ctlReq{kind: ctlReady, player: Player{ID: id}, ready: true})
			}
			period := time.Second / 60
			now := period
			l.tick(now, now, true)
			if l.phase != Playing {
				b.Fatalf("phase %v", l.phase)
			}
			seq := uint32(0)
			b.ReportAllocs()
			for b.Loop() {
				seq++
				r.Submit(ids[0], Input{Slot: 0, Seq: seq, Action: 1})
				r.Submit(ids[seats-1], Input{Slot: seats - 1, Seq: seq, Action: -1})
				now += period
				l.tick(now, now, true)
			}
			if f, _ := r.Latest(); f.Acks[0] != seq {
				b.Fatalf("acks %v, want %d", f.Acks, seq)
			}
		})
	}
}
