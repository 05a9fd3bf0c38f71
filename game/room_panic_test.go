package game

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// panicky is a fakeGame with a bug: the method named by on panics from game
// tick at onwards (Join and Leave: on their first call during play).
type panicky struct {
	*fakeGame
	on string
	at uint64
}

func panickyFactory(on string, at uint64) Factory {
	inner := fakeFactory(2, 0)
	return func(seed uint64) Game { return &panicky{fakeGame: inner(seed).(*fakeGame), on: on, at: at} }
}

func (g *panicky) bug(method string) {
	if g.on == method && g.tick >= g.at {
		panic(fmt.Sprintf("test bug in %s at tick %d", method, g.tick))
	}
}

func (g *panicky) Step(in []Input) { g.fakeGame.Step(in); g.bug("Step") }
func (g *panicky) Snapshot() any   { g.bug("Snapshot"); return g.fakeGame.Snapshot() }
func (g *panicky) Hash() uint64    { g.bug("Hash"); return g.fakeGame.Hash() }
func (g *panicky) Result() (Result, bool) {
	g.bug("Result")
	return g.fakeGame.Result()
}
func (g *panicky) Leave(slot int) {
	if g.tick > 0 {
		g.bug("Leave")
	}
	g.fakeGame.Leave(slot)
}

// hashEveryTick is what the replay recorder does with every tick.
var hashEveryTick = Hooks{Ticked: func(_ uint64, _ []Input, g Game) { _ = g.Hash() }}

// A bug in a game ends its room alone, whichever method it is in: Run
// returns a RoomPanic naming the room, phase and tick and carrying the
// stack and the match's players; the last frame is Closed and Failed, so
// every screen on the room stops and can say why; a control call made on
// the dead room fails instead of hanging; and a room beside it, on the same
// clock, plays on.
func TestPanickingGameEndsItsRoomAlone(t *testing.T) {
	for _, method := range []string{"Step", "Snapshot", "Hash", "Result"} {
		t.Run(method, func(t *testing.T) {
			const at = 30
			h := newHarnessHooks(t, RoomConfig{}, panickyFactory(method, at), 1, hashEveryTick)
			other := newHarnessHooks(t, RoomConfig{Clock: h.clk}, fakeFactory(2, 0), 2, hashEveryTick)
			other.play("c", "d")
			h.play("a", "b")
			for h.frame().Phase == Playing {
				h.oneTick()
			}

			waitDone(t, h.r)
			var rp *RoomPanic
			if err := <-h.errc; !errors.As(err, &rp) {
				t.Fatalf("Run returned %v, want a *RoomPanic", err)
			}
			want := uint64(at)
			if method == "Step" {
				want-- // the step to tick 30 never completed
			}
			if rp.Room != "r1" || rp.Phase != Playing || rp.Tick != want {
				t.Fatalf("panic reported in room %s, phase %v, tick %d; want r1, playing, tick %d", rp.Room, rp.Phase, rp.Tick, want)
			}
			if !strings.Contains(fmt.Sprint(rp.Value), "test bug in "+method) || !strings.Contains(string(rp.Stack), "panicky") {
				t.Fatalf("panic value %v, stack:\n%s", rp.Value, rp.Stack)
			}
			if len(rp.Seats) != 2 || rp.Seats[0].Player.ID != "a" || rp.Seats[1].Player.ID != "b" || !rp.Seats[0].Connected {
				t.Fatalf("match seats %+v", rp.Seats)
			}
			f := h.frame()
			if f.Phase != Closed || !f.Failed {
				t.Fatalf("last frame: phase %v failed %v", f.Phase, f.Failed)
			}
			if err := h.r.SetReady(ctxT(t), "a", true); !errors.Is(err, ErrClosed) {
				t.Fatalf("SetReady on the failed room: %v", err)
			}
			if h.r.Submit("a", Input{Slot: 0, Seq: 1}) {
				t.Fatal("the failed room still takes inputs")
			}

			before := other.state().Tick
			other.oneTick()
			if f := other.frame(); f.Phase != Playing || f.Failed || other.state().Tick != before+1 {
				t.Fatalf("the other room stopped: phase %v failed %v", f.Phase, f.Failed)
			}
		})
	}
}

// A panic while the room handles a control call (here a leave, which
// calls the game's Leave during play) answers the caller with ErrClosed
// instead of leaving it waiting forever for a reply that will never come.
func TestPanicDuringControlCallAnswersTheCaller(t *testing.T) {
	h := newHarness(t, RoomConfig{}, panickyFactory("Leave", 0), 1)
	h.play("a", "b")
	h.oneTick()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := h.r.Leave(ctx, "a"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Leave: %v, want ErrClosed", err)
	}
	var rp *RoomPanic
	if err := <-h.errc; !errors.As(err, &rp) || rp.Phase != Playing {
		t.Fatalf("Run returned %v", err)
	}
	if f := h.frame(); f.Phase != Closed || !f.Failed {
		t.Fatalf("last frame: phase %v failed %v", f.Phase, f.Failed)
	}
}

// A panic in a hook (the recorder's, the results writer's) is the room's
// too: the room ends, nothing else does.
func TestPanickingHookEndsItsRoom(t *testing.T) {
	h := newHarnessHooks(t, RoomConfig{}, fakeFactory(2, 0), 1, Hooks{
		MatchStarted: func(string, uint64, []Seat) { panic("test bug in MatchStarted") },
	})
	h.play2("a", "b")
	waitDone(t, h.r)
	var rp *RoomPanic
	if err := <-h.errc; !errors.As(err, &rp) || rp.Value != "test bug in MatchStarted" {
		t.Fatalf("Run returned %v", err)
	}
	if f := h.frame(); f.Phase != Closed || !f.Failed {
		t.Fatalf("last frame: phase %v failed %v", f.Phase, f.Failed)
	}
}

// play2 is play for a room that may die as the countdown ends.
func (h *harness) play2(ids ...PlayerID) {
	h.t.Helper()
	for _, id := range ids {
		h.join(id, -1)
	}
	for _, id := range ids {
		h.ready(id, true)
	}
	h.clk.Advance(h.countdown())
}
