package game

import (
	"fmt"
	"testing"
	"time"
)

// TestWarmUpJoinAndReadyAtEveryTickOffset: a lone ready player warms up
// (RoomConfig.WarmUp); a second player sits and presses r at every offset
// into the warm-up, from its first countdown through its first ticks of
// play, on and between tick boundaries, with one and two ticks per wake,
// and with the ready in the same turn as the join, a tick later, or a
// second later. Each time the warm-up ends at the join and the match of
// two starts from a countdown on the ready: both seats in the game and
// in the MatchStarted hook, nothing of the warm-up carried over. The
// ready is sent as the room screen's r sends it, the opposite of what
// the newest frame says of the seat.
//
// This is the race suspected of the hang of web's
// TestTVFollowsTheLiveMatch; the room has none: join and ready are
// control calls the room's one goroutine handles between ticks.
func TestWarmUpJoinAndReadyAtEveryTickOffset(t *testing.T) {
	const countdown = 100 * time.Millisecond // 6 ticks at 60 Hz
	period := time.Second / 60
	step := period / 3 // on a tick, a third and two thirds past it
	for _, perWake := range []int{1, 2} {
		for _, gap := range []time.Duration{0, period, time.Second} {
			for off := time.Duration(0); off <= countdown+12*period; off += step {
				t.Run(fmt.Sprintf("wake%d/gap%v/at%v", perWake, gap, off), func(t *testing.T) {
					warmUpThenJoin(t, RoomConfig{WarmUp: true, AllowLateJoin: true, Countdown: countdown, TicksPerWake: perWake}, off, gap)
				})
			}
		}
	}
}

func warmUpThenJoin(t *testing.T, cfg RoomConfig, off, gap time.Duration) {
	started := make(chan []Seat, 4)
	h := newHarnessHooks(t, cfg, fakeFactory(2, 0), 1, Hooks{
		MatchStarted: func(_ string, _ uint64, seats []Seat) { started <- seats },
	})
	h.join("alice", -1)
	h.ready("alice", true)
	if f := h.wantPhase(Countdown); !f.WarmUp {
		t.Fatal("alone and ready: no warm-up")
	}
	h.clk.Advance(off)
	if f := h.frame(); !f.WarmUp || (f.Phase != Countdown && f.Phase != Playing) {
		t.Fatalf("%v into the warm-up: %v, warm-up %v", off, f.Phase, f.WarmUp)
	}
	bob := h.join("bob", -1)
	if f := h.wantPhase(Waiting); f.WarmUp || !f.Seats[0].Ready || f.Seats[bob].Ready {
		t.Fatalf("bob sat: warm-up %v, seats %+v; want alice ready, bob not", f.WarmUp, f.Seats)
	}
	h.clk.Advance(gap)
	f := h.frame()
	h.ready("bob", !f.Seats[bob].Ready)
	f = h.wantPhase(Countdown)
	if f.WarmUp || !f.Seats[0].Ready || !f.Seats[bob].Ready {
		t.Fatalf("bob readied: warm-up %v, seats %+v", f.WarmUp, f.Seats)
	}
	if st := f.State.(*fakeState); st.Tick != 0 || !st.Seated[0] || !st.Seated[bob] {
		t.Fatalf("the match of two starts on %+v; want a fresh game with both seated", st)
	}
	select {
	case s := <-started:
		t.Fatalf("MatchStarted before the countdown ended: %+v", s)
	default:
	}
	h.clk.Advance(cfg.Countdown + time.Second/60)
	f = h.wantPhase(Playing)
	if f.WarmUp || f.Tick == 0 || len(f.Roster) != 2 || f.Roster[0].ID != "alice" || f.Roster[bob].ID != "bob" {
		t.Fatalf("playing: warm-up %v, tick %d, roster %+v", f.WarmUp, f.Tick, f.Roster)
	}
	select {
	case s := <-started:
		if !s[0].Taken || !s[bob].Taken {
			t.Fatalf("MatchStarted with %+v; want both seats", s)
		}
	default:
		t.Fatal("the match of two never fired MatchStarted")
	}
}
