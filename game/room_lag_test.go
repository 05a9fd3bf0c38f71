package game

import (
	"testing"
	"time"
)

// The room turns the tick a view showed (Input.Seen) into the lag the game
// judges with (Input.Lag): the view's age when the input is applied, capped
// by LagCompensation, and 0 when compensation is off, the view unknown or
// from a tick this match has not reached. Whatever the sender put in Lag is
// overwritten.
func TestRoomSetsInputLag(t *testing.T) {
	for _, c := range []struct {
		name string
		comp time.Duration
		seen func(now uint64) uint64
		sent uint16
		want uint16
	}{
		{"off", 0, func(n uint64) uint64 { return n - 5 }, 0, 0},
		{"off ignores a lag sent", 0, func(n uint64) uint64 { return n - 5 }, 7, 0},
		{"within the cap", 150 * time.Millisecond, func(n uint64) uint64 { return n - 5 }, 0, 5},
		{"current view", 150 * time.Millisecond, func(n uint64) uint64 { return n }, 3, 0},
		{"capped: 150 ms is 9 ticks", 150 * time.Millisecond, func(n uint64) uint64 { return n - 30 }, 0, 9},
		{"capped, whatever was sent", 150 * time.Millisecond, func(n uint64) uint64 { return 1 }, 500, 9},
		{"unknown view", 150 * time.Millisecond, func(uint64) uint64 { return 0 }, 0, 0},
		{"view from the future", 150 * time.Millisecond, func(n uint64) uint64 { return n + 1 }, 0, 0},
		{"cap over a second is a second: 60 ticks", time.Hour, func(n uint64) uint64 { return 1 }, 0, 60},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []Input
			h := newHarnessHooks(t, RoomConfig{LagCompensation: c.comp}, fakeFactory(2, 0), 1, Hooks{
				Ticked: func(_ uint64, applied []Input, _ Game) { got = append(got, applied...) },
			})
			h.play("a", "b")
			for range 100 {
				h.oneTick()
			}
			got = nil
			now := h.frame().Tick
			if !h.r.Submit("a", Input{Slot: 0, Seq: 1, Action: 1, Seen: c.seen(now), Lag: c.sent}) {
				t.Fatal("Submit dropped")
			}
			h.oneTick()
			if len(got) != 1 || got[0].Lag != c.want {
				t.Fatalf("applied %+v, want one input with Lag %d", got, c.want)
			}
		})
	}
}
