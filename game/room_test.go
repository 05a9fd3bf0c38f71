package game

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// harness runs a room on a FakeClock. Control calls return after the room
// handled them and Advance/Jump return after it ran every due tick, so tests
// read Latest() directly: no sleeps, no polling.
type harness struct {
	t    *testing.T
	clk  *FakeClock
	r    *Room
	stop context.CancelFunc
	errc chan error
}

func newHarness(t *testing.T, cfg RoomConfig, f Factory, seed uint64) *harness {
	return newHarnessHooks(t, cfg, f, seed, Hooks{})
}

func newHarnessHooks(t *testing.T, cfg RoomConfig, f Factory, seed uint64, hooks Hooks) *harness {
	t.Helper()
	clk := NewFakeClock()
	if cfg.Clock == nil {
		cfg.Clock = clk
	} else {
		clk = cfg.Clock.(*FakeClock)
	}
	h := &harness{t: t, clk: clk, r: NewRoom("r1", cfg, f, seed), errc: make(chan error, 1)}
	h.r.SetHooks(hooks)
	ctx, cancel := context.WithCancel(context.Background())
	h.stop = cancel
	go func() { h.errc <- h.r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-h.r.Done()
	})
	return h
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func (h *harness) frame() *Frame {
	f, _ := h.r.Latest()
	return f
}

func (h *harness) state() *fakeState { return h.frame().State.(*fakeState) }

func (h *harness) join(id PlayerID, slot int) int {
	h.t.Helper()
	got, err := h.r.Join(ctxT(h.t), Player{ID: id, Name: string(id)}, slot)
	if err != nil {
		h.t.Fatalf("Join(%s, %d): %v", id, slot, err)
	}
	return got
}

func (h *harness) ready(id PlayerID, ready bool) {
	h.t.Helper()
	if err := h.r.SetReady(ctxT(h.t), id, ready); err != nil {
		h.t.Fatalf("SetReady(%s): %v", id, err)
	}
}

func (h *harness) wantPhase(want Phase) *Frame {
	h.t.Helper()
	f := h.frame()
	if f.Phase != want {
		h.t.Fatalf("phase = %v, want %v (frame %+v)", f.Phase, want, *f)
	}
	return f
}

// play seats ids in order, readies them and runs the countdown out.
func (h *harness) play(ids ...PlayerID) {
	h.t.Helper()
	for _, id := range ids {
		h.join(id, -1)
	}
	for _, id := range ids {
		h.ready(id, true)
	}
	h.wantPhase(Countdown)
	h.clk.Advance(h.countdown())
	h.wantPhase(Playing)
}

func (h *harness) countdown() time.Duration {
	switch c := h.r.cfg.Countdown; {
	case c > 0:
		return c
	default:
		return time.Second / time.Duration(h.r.cfg.TickRate) // the first tick
	}
}

func (h *harness) submit(id PlayerID, slot int, seq uint32, action int8) {
	h.t.Helper()
	if !h.r.Submit(id, Input{Slot: slot, Seq: seq, Action: action}) {
		h.t.Fatalf("Submit(%s, slot %d, seq %d) dropped", id, slot, seq)
	}
}

// oneTick advances exactly to the next tick's due time.
func (h *harness) oneTick() {
	before := h.r.Stats().Ticks
	period := time.Second / time.Duration(h.r.cfg.TickRate)
	h.clk.Advance(period + 1) // +1ns covers the rounding of 1s/rate
	if got := h.r.Stats().Ticks; got != before+1 {
		h.t.Fatalf("oneTick ran %d ticks", got-before)
	}
}

func waitDone(t *testing.T, r *Room) {
	t.Helper()
	select {
	case <-r.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("room did not close")
	}
}

func TestFixedTickCount(t *testing.T) {
	h := newHarness(t, RoomConfig{}, fakeFactory(2, 0), 1)
	h.play("a", "b")
	// The countdown is 3 s at 60 Hz: 180 ticks, the last of which already
	// steps the game.
	if s := h.r.Stats(); s.Ticks != 180 {
		t.Fatalf("ticks after countdown = %d, want 180", s.Ticks)
	}
	if f := h.frame(); f.Tick != 1 {
		t.Fatalf("game tick after countdown = %d, want 1", f.Tick)
	}
	h.clk.Advance(time.Second)
	s := h.r.Stats()
	if s.Ticks != 240 || s.Dropped != 0 {
		t.Fatalf("after 1 s: ticks %d dropped %d, want 240, 0", s.Ticks, s.Dropped)
	}
	if f := h.frame(); f.Tick != 61 || f.TickRate != 60 {
		t.Fatalf("game tick %d rate %d, want 61, 60", f.Tick, f.TickRate)
	}
	if s.Rate != 60 {
		t.Fatalf("Rate = %v, want 60", s.Rate)
	}
	if s.Lateness[0] != 240 {
		t.Fatalf("lateness = %v, want all 240 on time", s.Lateness)
	}
	if len(s.LatenessBounds) != LatenessBuckets-1 {
		t.Fatalf("bounds = %v", s.LatenessBounds)
	}
}

func TestTicksNeverEarly(t *testing.T) {
	h := newHarness(t, RoomConfig{TickRate: 50}, fakeFactory(2, 0), 1) // 20 ms, exact in ns
	h.play("a", "b")
	base := h.r.Stats().Ticks
	for i := range 5 {
		h.clk.Advance(20*time.Millisecond - time.Nanosecond)
		// Wake the room 1 ns before the tick is due: it must not run it.
		if err := h.r.SetReady(ctxT(t), "a", true); !errors.Is(err, ErrStarted) {
			t.Fatal(err)
		}
		if got := h.r.Stats().Ticks; got != base+uint64(i) {
			t.Fatalf("tick ran early: %d ticks, want %d", got, base+uint64(i))
		}
		h.clk.Advance(time.Nanosecond)
		if got := h.r.Stats().Ticks; got != base+uint64(i)+1 {
			t.Fatalf("tick did not run when due: %d ticks, want %d", got, base+uint64(i)+1)
		}
	}
}

func TestStallCatchUpThenReanchor(t *testing.T) {
	h := newHarness(t, RoomConfig{}, fakeFactory(2, 0), 1)
	h.play("a", "b")
	before := h.r.Stats()
	tick0 := h.frame().Tick

	// 5 ms off the tick grid, so re-anchoring is told apart from skipping
	// ahead to the old grid.
	h.clk.Jump(10*time.Second + 5*time.Millisecond)
	s := h.r.Stats()
	if got := s.Ticks - before.Ticks; got != DefaultMaxCatchUp {
		t.Fatalf("catch-up ran %d ticks, want %d", got, DefaultMaxCatchUp)
	}
	if s.Dropped != 600-DefaultMaxCatchUp {
		t.Fatalf("Dropped = %d, want %d", s.Dropped, 600-DefaultMaxCatchUp)
	}
	if got := h.frame().Tick - tick0; got != DefaultMaxCatchUp {
		t.Fatalf("game stepped %d, want %d", got, DefaultMaxCatchUp)
	}
	if late := s.Lateness[LatenessBuckets-1] - before.Lateness[LatenessBuckets-1]; late != DefaultMaxCatchUp {
		t.Fatalf("≥16ms bucket grew by %d, want %d", late, DefaultMaxCatchUp)
	}

	// Re-anchored at the end of the stall: the grid restarts from there,
	// with no burst of old ticks.
	h.clk.Advance(16 * time.Millisecond)
	if got := h.r.Stats().Ticks - s.Ticks; got != 0 {
		t.Fatalf("%d ticks ran before the first re-anchored tick was due", got)
	}
	h.clk.Advance(time.Second - 16*time.Millisecond)
	s2 := h.r.Stats()
	if got := s2.Ticks - s.Ticks; got != 60 {
		t.Fatalf("after re-anchor 1 s ran %d ticks, want 60", got)
	}
	if s2.Dropped != s.Dropped {
		t.Fatalf("Dropped grew without a stall: %d → %d", s.Dropped, s2.Dropped)
	}
}

func TestStuckReaderDoesNotBlock(t *testing.T) {
	const n = 10000
	h := newHarness(t, RoomConfig{TickRate: 100, Countdown: -1}, fakeFactory(2, 0), 1)
	h.join("a", -1)
	h.join("b", -1)
	h.ready("a", true)
	h.ready("b", true)
	h.wantPhase(Countdown)

	// A reader that takes the signal and never looks at it again.
	_, stuck := h.r.Latest()

	// A reader that keeps up, latest-wins: it may skip frames.
	seen := make(chan uint64, 1)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			f, ch := h.r.Latest()
			if f.Tick >= n {
				seen <- f.Seq
				return
			}
			select {
			case <-ch:
			case <-quit:
				return
			}
		}
	}()
	defer func() { close(quit); wg.Wait() }()

	startSeq := h.frame().Seq
	h.clk.Advance(n * 10 * time.Millisecond)
	if s := h.r.Stats(); s.Ticks != n {
		t.Fatalf("ticks = %d, want %d", s.Ticks, n)
	}
	last := h.frame()
	if last.Tick != n || last.Seq != startSeq+n {
		t.Fatalf("last frame tick %d seq %d, want %d, %d", last.Tick, last.Seq, n, startSeq+n)
	}
	select {
	case <-stuck:
	default:
		t.Fatal("the stuck reader's channel was never closed")
	}
	select {
	case seq := <-seen:
		if seq != last.Seq {
			t.Fatalf("reader saw seq %d, want latest %d", seq, last.Seq)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the live reader never saw the latest frame")
	}
}

func TestMailboxStuckReaders(t *testing.T) {
	var m mailbox
	m.publish(&published{})
	_, stuck := m.latest()
	var wg sync.WaitGroup
	got := make([]uint64, 3)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				f, ch := m.latest()
				if f.Seq == 10000 {
					got[i] = f.Seq
					return
				}
				<-ch
			}
		}()
	}
	for i := uint64(1); i <= 10000; i++ {
		p := &published{}
		p.frame.Seq = i
		m.publish(p)
	}
	wg.Wait()
	for i, s := range got {
		if s != 10000 {
			t.Fatalf("reader %d ended on %d", i, s)
		}
	}
	select {
	case <-stuck:
	default:
		t.Fatal("stuck reader's channel not closed")
	}
}

func TestSubmitNeverBlocks(t *testing.T) {
	h := newHarness(t, RoomConfig{InputBuffer: 8, MaxInputsPerTick: 100}, fakeFactory(2, 0), 1)
	if h.r.Submit("a", Input{}) {
		t.Fatal("Submit accepted an input with no game running")
	}
	h.play("a", "b")
	for i := range 8 {
		h.submit("a", 0, uint32(i+1), 1)
	}
	for i := range 5 {
		if h.r.Submit("a", Input{Slot: 0, Seq: uint32(100 + i), Action: 1}) {
			t.Fatal("Submit accepted into a full buffer")
		}
	}
	if s := h.r.Stats(); s.InputsDropped != 5 {
		t.Fatalf("InputsDropped = %d, want 5", s.InputsDropped)
	}
	h.oneTick()
	if st := h.state(); st.Pos[0] != 8 {
		t.Fatalf("pos = %v, want the 8 queued inputs applied", st.Pos)
	}
	h.submit("a", 0, 9, 1) // room for more once drained
}

func TestInputsForOtherSlotRejected(t *testing.T) {
	h := newHarness(t, RoomConfig{}, fakeFactory(2, 0), 1)
	h.play("a", "b")
	h.submit("a", 1, 7, 1)   // a claims b's paddle
	h.submit("a", 1, 8, 1)   // twice
	h.submit("zed", 0, 1, 1) // not seated at all
	h.submit("b", 1, 1, -1)  // legitimate
	h.oneTick()
	f := h.frame()
	st := f.State.(*fakeState)
	if st.Pos[1] != -1 || st.Pos[0] != 0 || st.Bad != 0 {
		t.Fatalf("pos %v bad %d: only b's own input should apply", st.Pos, st.Bad)
	}
	if f.Seats[0].Misbehaved != 2 || f.Seats[1].Misbehaved != 0 {
		t.Fatalf("misbehaved = %d, %d, want 2, 0", f.Seats[0].Misbehaved, f.Seats[1].Misbehaved)
	}
	if f.Acks[0] != 0 || f.Acks[1] != 1 {
		t.Fatalf("acks = %v: a rejected input must not be acked", f.Acks)
	}
	if s := h.r.Stats(); s.InputsRejected != 3 {
		t.Fatalf("InputsRejected = %d, want 3", s.InputsRejected)
	}
}

func TestMaxInputsPerTick(t *testing.T) {
	var applied [][]Input
	h := newHarnessHooks(t, RoomConfig{}, fakeFactory(2, 0), 1, Hooks{
		Ticked: func(_ uint64, in []Input, _ Game) { applied = append(applied, slices.Clone(in)) },
	})
	h.play("a", "b")
	for i := range 10 {
		h.submit("a", 0, uint32(i+1), 1)
	}
	h.submit("b", 1, 1, 1)
	h.submit("b", 1, 2, 1)
	h.oneTick()
	f := h.frame()
	st := f.State.(*fakeState)
	if st.Pos[0] != DefaultMaxInputsPerTick || st.Pos[1] != 2 {
		t.Fatalf("pos = %v, want [%d 2]", st.Pos, DefaultMaxInputsPerTick)
	}
	if s := h.r.Stats(); s.InputsDropped != 10-DefaultMaxInputsPerTick {
		t.Fatalf("InputsDropped = %d, want %d", s.InputsDropped, 10-DefaultMaxInputsPerTick)
	}
	// Dropped inputs are still consumed: State reflects them (as no-ops).
	if f.Acks[0] != 10 || f.Acks[1] != 2 {
		t.Fatalf("acks = %v, want [10 2]", f.Acks)
	}
	// The Ticked hook (what replays record) sees exactly what was applied.
	h.wantPhase(Playing)
	last := applied[len(applied)-1]
	if len(last) != DefaultMaxInputsPerTick+2 || last[DefaultMaxInputsPerTick-1].Seq != DefaultMaxInputsPerTick {
		t.Fatalf("applied = %+v", last)
	}
	// Next tick the budget is fresh.
	h.submit("a", 0, 11, 1)
	h.oneTick()
	if st := h.state(); st.Pos[0] != DefaultMaxInputsPerTick+1 {
		t.Fatalf("pos = %v after a fresh tick", st.Pos)
	}
}

func TestAcksCarryLastAppliedSeq(t *testing.T) {
	h := newHarness(t, RoomConfig{}, fakeFactory(2, 0), 1)
	h.play("a", "b")
	if f := h.frame(); f.Acks[0] != 0 || f.Acks[1] != 0 {
		t.Fatalf("initial acks = %v", f.Acks)
	}
	h.submit("a", 0, 5, 1)
	h.submit("a", 0, 6, 1)
	h.submit("a", 0, 7, -1)
	h.oneTick()
	if f := h.frame(); f.Acks[0] != 7 || f.Acks[1] != 0 {
		t.Fatalf("acks = %v, want [7 0]", f.Acks)
	}
	h.submit("b", 1, 3, 1)
	h.oneTick()
	if f := h.frame(); f.Acks[0] != 7 || f.Acks[1] != 3 {
		t.Fatalf("acks = %v, want [7 3]", f.Acks)
	}
	h.oneTick()
	if f := h.frame(); f.Acks[0] != 7 || f.Acks[1] != 3 {
		t.Fatalf("acks = %v, want them kept on idle ticks", f.Acks)
	}
	if st := h.state(); st.Pos[0] != 1 || st.Pos[1] != 1 {
		t.Fatalf("pos = %v", st.Pos)
	}
}

func TestJoinErrors(t *testing.T) {
	h := newHarness(t, RoomConfig{}, fakeFactory(4, 0), 1)
	ctx := ctxT(t)
	if got := h.join("a", 0); got != 0 {
		t.Fatalf("slot %d", got)
	}
	if got := h.join("b", 2); got != 2 {
		t.Fatalf("slot %d", got)
	}
	_, err := h.r.Join(ctx, Player{ID: "c"}, 2)
	var st *SlotTakenError
	if !errors.Is(err, ErrSlotTaken) || errors.Is(err, ErrRoomFull) || !errors.As(err, &st) {
		t.Fatalf("err = %v", err)
	}
	if st.Slot != 2 || !slices.Equal(st.Free, []int{1, 3}) || !strings.Contains(err.Error(), "1, 3") {
		t.Fatalf("SlotTakenError = %+v (%q)", st, err)
	}
	if got := h.join("c", -1); got != 1 {
		t.Fatalf("any-slot join got %d, want 1", got)
	}
	h.join("d", -1)
	if _, err := h.r.Join(ctx, Player{ID: "e"}, -1); !errors.Is(err, ErrRoomFull) {
		t.Fatalf("full room: %v", err)
	}
	if _, err := h.r.Join(ctx, Player{ID: "e"}, 3); !errors.Is(err, ErrRoomFull) || !errors.Is(err, ErrSlotTaken) {
		t.Fatalf("full room, given slot: %v", err)
	}
	if _, err := h.r.Join(ctx, Player{ID: "e"}, 4); !errors.Is(err, ErrInvalidSlot) {
		t.Fatalf("bad slot: %v", err)
	}
	if _, err := h.r.Join(ctx, Player{}, -1); !errors.Is(err, ErrEmptyID) {
		t.Fatalf("empty id: %v", err)
	}
	// Already seated: the same slot, whatever was asked.
	if got, err := h.r.Join(ctx, Player{ID: "b"}, 0); err != nil || got != 2 {
		t.Fatalf("re-join = %d, %v", got, err)
	}
	if err := h.r.Leave(ctx, "nobody"); !errors.Is(err, ErrNotSeated) {
		t.Fatalf("leave unseated: %v", err)
	}
	if err := h.r.SetReady(ctx, "nobody", true); !errors.Is(err, ErrNotSeated) {
		t.Fatalf("ready unseated: %v", err)
	}
	f := h.wantPhase(Waiting)
	if len(f.Seats) != 4 || f.Seats[2].Player.ID != "b" || !f.Seats[2].Connected {
		t.Fatalf("seats = %+v", f.Seats)
	}
}

func TestLifecycle(t *testing.T) {
	var started, ended []uint64
	var endRes Result
	h := newHarnessHooks(t, RoomConfig{}, fakeFactory(2, 120), 42, Hooks{
		MatchStarted: func(room string, seed uint64, seats []Seat) {
			if room != "r1" || len(seats) != 2 || seats[0].Player.ID != "a" || seats[1].Player.ID != "b" {
				t.Errorf("MatchStarted(%q, %+v)", room, seats)
			}
			started = append(started, seed)
		},
		MatchEnded: func(_ string, res Result, seats []Seat, ticks uint64) {
			ended = append(ended, ticks)
			endRes = res
		},
	})
	h.join("a", -1)
	h.join("b", -1)
	h.ready("a", true)
	f := h.wantPhase(Waiting)
	if !f.Seats[0].Ready || f.Seats[1].Ready {
		t.Fatalf("ready flags %+v", f.Seats)
	}
	h.ready("b", true)
	f = h.wantPhase(Countdown)
	if f.Left != 3*time.Second || f.Seed != 42 || f.Roster[1].ID != "b" {
		t.Fatalf("countdown frame %+v", *f)
	}
	if !h.r.Submit("a", Input{Slot: 0, Seq: 1, Action: 1}) {
		t.Fatal("inputs refused in countdown")
	}
	h.clk.Advance(time.Second)
	if f := h.wantPhase(Countdown); f.Left != 2*time.Second || f.Tick != 0 || f.Acks[0] != 1 {
		t.Fatalf("countdown after 1 s: left %v tick %d acks %v", f.Left, f.Tick, f.Acks)
	}
	if st := h.state(); st.Pos[0] != 0 {
		t.Fatal("an input was applied during the countdown")
	}
	h.clk.Advance(2*time.Second - time.Millisecond)
	h.wantPhase(Countdown)
	if len(started) != 0 {
		t.Fatal("MatchStarted before the countdown ended")
	}
	h.clk.Advance(time.Millisecond)
	h.wantPhase(Playing)
	if !slices.Equal(started, []uint64{42}) {
		t.Fatalf("MatchStarted seeds %v", started)
	}

	// The fake ends by play at game tick 120.
	h.clk.Advance(2 * time.Second)
	f = h.wantPhase(Finished)
	if f.Result == nil || f.Result.Forfeit || f.Tick != 120 || len(f.Result.Places) != 2 {
		t.Fatalf("finished frame %+v result %+v", *f, f.Result)
	}
	if !slices.Equal(ended, []uint64{120}) || len(endRes.Places) != 2 {
		t.Fatalf("MatchEnded %v %+v", ended, endRes)
	}
	ticks := h.r.Stats().Ticks
	h.clk.Advance(time.Second)
	if s := h.r.Stats(); s.Ticks != ticks || s.Rate != 0 {
		t.Fatalf("a finished room kept ticking: %d → %d, rate %v", ticks, s.Ticks, s.Rate)
	}
	if h.r.Submit("a", Input{Slot: 0, Seq: 2}) {
		t.Fatal("inputs accepted after the match")
	}

	// Rematch: everyone must be ready again.
	h.ready("a", true)
	h.wantPhase(Finished)
	h.ready("b", true)
	f = h.wantPhase(Countdown)
	want := NextSeed(42)
	if f.Seed != want || want == 42 || f.Tick != 0 || f.Result != nil || f.State.(*fakeState).Seed != want {
		t.Fatalf("rematch frame seed %d (want %d) tick %d result %v", f.Seed, want, f.Tick, f.Result)
	}
	h.clk.Advance(3 * time.Second)
	h.wantPhase(Playing)
	if !slices.Equal(started, []uint64{42, want}) {
		t.Fatalf("MatchStarted seeds %v", started)
	}
}

func TestSetReadyDuringPlay(t *testing.T) {
	h := newHarness(t, RoomConfig{}, fakeFactory(2, 0), 1)
	h.play("a", "b")
	if err := h.r.SetReady(ctxT(t), "a", false); !errors.Is(err, ErrStarted) {
		t.Fatalf("SetReady while playing: %v", err)
	}
	if _, err := h.r.Join(ctxT(t), Player{ID: "c"}, -1); !errors.Is(err, ErrStarted) {
		t.Fatalf("late join without AllowLateJoin: %v", err)
	}
}

func TestRematchNeedsEveryone(t *testing.T) {
	h := newHarness(t, RoomConfig{AllowLateJoin: false}, fakeFactory(4, 10), 7)
	h.play("a", "b", "c")
	h.clk.Advance(time.Second)
	h.wantPhase(Finished)
	h.ready("a", true)
	h.ready("b", true)
	h.wantPhase(Finished)
	// c leaves: the remaining two are all ready and enough.
	if err := h.r.Leave(ctxT(t), "c"); err != nil {
		t.Fatal(err)
	}
	f := h.wantPhase(Countdown)
	if f.Seed != NextSeed(7) || f.Seats[2].Taken {
		t.Fatalf("rematch frame %+v", *f)
	}
}

func TestAutoStart(t *testing.T) {
	h := newHarness(t, RoomConfig{AutoStart: true, Expected: []PlayerID{"a", "b"}}, fakeFactory(4, 0), 1)
	h.join("a", -1)
	h.wantPhase(Waiting)
	if _, err := h.r.Join(ctxT(t), Player{ID: "x"}, -1); !errors.Is(err, ErrNotExpected) {
		t.Fatalf("stranger joined a ranked room: %v", err)
	}
	h.join("b", -1)
	f := h.wantPhase(Countdown)
	if f.Seats[0].Ready || f.Seats[1].Ready {
		t.Fatal("AutoStart should not need ready")
	}
	h.clk.Advance(3 * time.Second)
	h.wantPhase(Playing)
}

func TestDisconnectGraceReconnect(t *testing.T) {
	h := newHarness(t, RoomConfig{}, fakeFactory(2, 0), 1)
	h.play("a", "b")
	h.clk.Advance(time.Second)
	tick := h.frame().Tick
	if err := h.r.Disconnect(ctxT(t), "b"); err != nil {
		t.Fatal(err)
	}
	f := h.wantPhase(Playing)
	if !f.Paused || f.Seats[1].Connected || !f.Seats[1].Taken || f.Seats[1].GraceLeft != DefaultGrace {
		t.Fatalf("after disconnect: %+v", *f)
	}
	h.submit("a", 0, 1, 1)
	h.clk.Advance(time.Second)
	f = h.frame()
	if f.Tick != tick || f.Seats[1].GraceLeft != DefaultGrace-time.Second || !f.Paused {
		t.Fatalf("paused frame: tick %d (was %d) grace %v paused %v", f.Tick, tick, f.Seats[1].GraceLeft, f.Paused)
	}
	if f.Acks[0] != 1 || f.State.(*fakeState).Pos[0] != 0 {
		t.Fatalf("an input moved a paddle during the pause (acks %v)", f.Acks)
	}
	if h.r.Stats().Ticks == 0 {
		t.Fatal("no ticks")
	}

	// Same ID, any slot requested: the same seat back.
	if got := h.join("b", 0); got != 1 {
		t.Fatalf("reconnect got slot %d, want 1", got)
	}
	f = h.wantPhase(Countdown)
	if f.Paused || !f.Seats[1].Connected || f.Seats[1].GraceLeft != 0 || f.Left != DefaultCountdown {
		t.Fatalf("after reconnect: %+v", *f)
	}
	h.clk.Advance(DefaultCountdown)
	h.wantPhase(Playing)
	h.clk.Advance(time.Second)
	if f := h.frame(); f.Tick <= tick {
		t.Fatalf("game did not resume: tick %d", f.Tick)
	}
}

func TestGraceExpiryForfeits(t *testing.T) {
	var endSeats []Seat
	h := newHarnessHooks(t, RoomConfig{Grace: 5 * time.Second}, fakeFactory(2, 0), 1, Hooks{
		MatchEnded: func(_ string, _ Result, seats []Seat, _ uint64) { endSeats = seats },
	})
	h.play("a", "b")
	if err := h.r.Disconnect(ctxT(t), "b"); err != nil {
		t.Fatal(err)
	}
	h.clk.Advance(5*time.Second - 20*time.Millisecond)
	f := h.wantPhase(Playing)
	if !f.Paused || len(f.State.(*fakeState).Left) != 0 {
		t.Fatalf("forfeited early: %+v", *f)
	}
	h.clk.Advance(20 * time.Millisecond)
	f = h.wantPhase(Finished)
	st := f.State.(*fakeState)
	if !slices.Equal(st.Left, []int{1}) || f.Result == nil || !f.Result.Forfeit || f.Result.Placements[0] != 0 {
		t.Fatalf("after grace: left %v result %+v", st.Left, f.Result)
	}
	if f.Seats[1].Taken || f.Paused || f.Roster[1].ID != "b" {
		t.Fatalf("seats %+v roster %+v", f.Seats, f.Roster)
	}
	if len(endSeats) != 2 || endSeats[1].Player.ID != "b" || endSeats[1].Connected || !endSeats[0].Connected {
		t.Fatalf("MatchEnded seats %+v", endSeats)
	}
}

func TestLeaveWhilePlayingForfeits(t *testing.T) {
	h := newHarness(t, RoomConfig{}, fakeFactory(2, 0), 1)
	h.play("a", "b")
	if err := h.r.Leave(ctxT(t), "a"); err != nil {
		t.Fatal(err)
	}
	f := h.wantPhase(Finished)
	if f.Result == nil || !f.Result.Forfeit || f.Result.Placements[0] != 1 {
		t.Fatalf("result %+v", f.Result)
	}
	if err := h.r.Leave(ctxT(t), "b"); err != nil {
		t.Fatal(err)
	}
	waitDone(t, h.r)
	if err := <-h.errc; err != nil {
		t.Fatalf("Run = %v, want nil on disposal", err)
	}
	if f := h.frame(); f.Phase != Closed || f.Result == nil {
		t.Fatalf("last frame %+v", *f)
	}
}

func TestLeaveDuringFirstCountdownCancels(t *testing.T) {
	h := newHarness(t, RoomConfig{}, fakeFactory(4, 0), 1)
	h.join("a", -1)
	h.join("b", -1)
	h.join("c", -1)
	h.ready("a", true)
	h.ready("b", true)
	h.ready("c", true)
	h.wantPhase(Countdown)
	h.clk.Advance(time.Second)
	if err := h.r.Leave(ctxT(t), "c"); err != nil {
		t.Fatal(err)
	}
	f := h.wantPhase(Waiting)
	st := f.State.(*fakeState)
	if slices.Contains(st.Seated, true) || f.Seats[0].Ready || f.Seats[2].Taken || h.r.Submit("a", Input{}) {
		t.Fatalf("after cancel: %+v state %+v", *f, st)
	}
	h.ready("a", true)
	h.ready("b", true)
	h.wantPhase(Countdown)
}

func TestDisconnectDuringCountdown(t *testing.T) {
	h := newHarness(t, RoomConfig{}, fakeFactory(2, 0), 1)
	h.join("a", -1)
	h.join("b", -1)
	h.ready("a", true)
	h.ready("b", true)
	h.clk.Advance(2 * time.Second)
	if err := h.r.Disconnect(ctxT(t), "a"); err != nil {
		t.Fatal(err)
	}
	f := h.wantPhase(Countdown)
	if !f.Paused || f.Left != 0 {
		t.Fatalf("paused countdown %+v", *f)
	}
	h.clk.Advance(10 * time.Second)
	h.wantPhase(Countdown)
	h.join("a", -1)
	if f := h.wantPhase(Countdown); f.Left != DefaultCountdown {
		t.Fatalf("countdown restarted at %v", f.Left)
	}
	h.clk.Advance(DefaultCountdown)
	h.wantPhase(Playing)
}

func TestDisconnectWhileWaitingIsLeave(t *testing.T) {
	h := newHarness(t, RoomConfig{}, fakeFactory(2, 0), 1)
	h.join("a", -1)
	h.join("b", -1)
	if err := h.r.Disconnect(ctxT(t), "b"); err != nil {
		t.Fatal(err)
	}
	if f := h.wantPhase(Waiting); f.Seats[1].Taken {
		t.Fatal("seat kept in Waiting")
	}
}

func TestLateJoin(t *testing.T) {
	h := newHarness(t, RoomConfig{AllowLateJoin: true}, fakeFactory(4, 0), 1)
	h.play("a", "b")
	if got := h.join("c", -1); got != 2 {
		t.Fatalf("late join slot %d", got)
	}
	f := h.wantPhase(Playing)
	if !f.State.(*fakeState).Seated[2] || f.Roster[2].ID != "c" || f.Roster[0].ID != "a" {
		t.Fatalf("late joiner not in the game: %+v", *f)
	}
	h.submit("c", 2, 1, 1)
	h.oneTick()
	if st := h.state(); st.Pos[2] != 1 {
		t.Fatalf("late joiner's input not applied: %v", st.Pos)
	}
}

func TestIdleRoomDisposed(t *testing.T) {
	h := newHarness(t, RoomConfig{IdleTimeout: 10 * time.Second}, fakeFactory(2, 0), 1)
	h.clk.Advance(10*time.Second - time.Nanosecond)
	select {
	case <-h.r.Done():
		t.Fatal("disposed early")
	default:
	}
	h.clk.Advance(time.Nanosecond)
	waitDone(t, h.r)
	if err := <-h.errc; err != nil {
		t.Fatalf("Run = %v", err)
	}
	if f := h.frame(); f.Phase != Closed {
		t.Fatalf("phase %v", f.Phase)
	}
	if _, err := h.r.Join(ctxT(t), Player{ID: "a"}, -1); !errors.Is(err, ErrClosed) {
		t.Fatalf("join closed room: %v", err)
	}
	if h.r.Submit("a", Input{}) {
		t.Fatal("Submit accepted on a closed room")
	}
}

func TestJoinedRoomNotIdleDisposed(t *testing.T) {
	h := newHarness(t, RoomConfig{IdleTimeout: 10 * time.Second}, fakeFactory(2, 0), 1)
	h.join("a", -1)
	h.clk.Advance(time.Minute)
	h.wantPhase(Waiting)
	if err := h.r.Leave(ctxT(t), "a"); err != nil {
		t.Fatal(err)
	}
	waitDone(t, h.r)
}

func TestRunStopsOnContext(t *testing.T) {
	h := newHarness(t, RoomConfig{}, fakeFactory(2, 0), 1)
	h.play("a", "b")
	h.stop()
	waitDone(t, h.r)
	if err := <-h.errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v", err)
	}
	if f := h.frame(); f.Phase != Closed {
		t.Fatalf("phase %v", f.Phase)
	}
	if err := h.r.Leave(ctxT(t), "a"); !errors.Is(err, ErrClosed) {
		t.Fatalf("leave closed room: %v", err)
	}
	if err := h.r.Run(context.Background()); err == nil {
		t.Fatal("second Run succeeded")
	}
}

func TestControlCallHonoursContext(t *testing.T) {
	r := NewRoom("idle", RoomConfig{Clock: NewFakeClock()}, fakeFactory(2, 0), 1) // never Run
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Join(ctx, Player{ID: "a"}, -1); !errors.Is(err, context.Canceled) {
		t.Fatalf("Join = %v", err)
	}
	if f, _ := r.Latest(); f.Phase != Waiting || len(f.Seats) != 2 || f.Seq != 1 {
		t.Fatalf("initial frame %+v", *f)
	}
}

// The room's output is enough to replay a match: the Ticked log re-simulated
// on a fresh game from the same seed gives the same hash every tick.
func TestTickedLogReplays(t *testing.T) {
	type rec struct {
		in   []Input
		hash uint64
	}
	var log []rec
	h := newHarnessHooks(t, RoomConfig{Countdown: -1}, fakeFactory(2, 0), 99, Hooks{
		Ticked: func(_ uint64, in []Input, g Game) { log = append(log, rec{slices.Clone(in), g.Hash()}) },
	})
	h.play("a", "b")
	for i := range 50 {
		h.submit("a", 0, uint32(i+1), int8(i%3-1))
		if i%2 == 0 {
			h.submit("b", 1, uint32(i+1), 1)
		}
		h.oneTick()
	}
	g := fakeFactory(2, 0)(99)
	_ = g.Join(0)
	_ = g.Join(1)
	for i, r := range log {
		g.Step(r.in)
		if g.Hash() != r.hash {
			t.Fatalf("tick %d: replay hash differs", i+1)
		}
	}
	if len(log) != 51 {
		t.Fatalf("logged %d ticks", len(log))
	}
}

func TestGoroutinesBackToBaseline(t *testing.T) {
	base := runtime.NumGoroutine()
	clk := NewFakeClock()
	var rooms []*Room
	for i := range 20 {
		r := NewRoom("r", RoomConfig{Clock: clk}, fakeFactory(2, 0), uint64(i))
		rooms = append(rooms, r)
		go r.Run(context.Background())
	}
	ctx := ctxT(t)
	for _, r := range rooms {
		for _, id := range []PlayerID{"a", "b"} {
			if _, err := r.Join(ctx, Player{ID: id}, -1); err != nil {
				t.Fatal(err)
			}
		}
		for _, id := range []PlayerID{"a", "b"} {
			if err := r.SetReady(ctx, id, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	clk.Advance(4 * time.Second)
	for _, r := range rooms {
		if f, _ := r.Latest(); f.Phase != Playing {
			t.Fatalf("phase %v", f.Phase)
		}
		_ = r.Leave(ctx, "a")
		_ = r.Leave(ctx, "b")
		waitDone(t, r)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines: %d, baseline %d", runtime.NumGoroutine(), base)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The real clock, end to end. Only progress is asserted, never timing.
func TestSystemClockSmoke(t *testing.T) {
	r := NewRoom("real", RoomConfig{TickRate: 200, Countdown: -1}, fakeFactory(2, 0), 1)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- r.Run(ctx) }()
	for _, id := range []PlayerID{"a", "b"} {
		if _, err := r.Join(ctxT(t), Player{ID: id}, -1); err != nil {
			t.Fatal(err)
		}
		if err := r.SetReady(ctxT(t), id, true); err != nil {
			t.Fatal(err)
		}
	}
	r.Submit("a", Input{Slot: 0, Seq: 1, Action: 1})
	timeout := time.After(10 * time.Second)
	for {
		f, ch := r.Latest()
		if f.Phase == Playing && f.Tick >= 5 {
			break
		}
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("no progress: %+v", *f)
		}
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v", err)
	}
	if s := r.Stats(); s.Ticks < 5 {
		t.Fatalf("stats %+v", s)
	}
}

func TestPhaseString(t *testing.T) {
	for p, want := range map[Phase]string{Waiting: "waiting", Countdown: "countdown", Playing: "playing", Finished: "finished", Closed: "closed", 9: "Phase(9)"} {
		if p.String() != want {
			t.Errorf("%d: %q", int(p), p.String())
		}
	}
}

func TestNextSeed(t *testing.T) {
	seen := map[uint64]bool{}
	s := uint64(0)
	for range 1000 {
		s = NextSeed(s)
		if seen[s] {
			t.Fatal("seed sequence repeats")
		}
		seen[s] = true
	}
	if NextSeed(42) != NextSeed(42) {
		t.Fatal("not deterministic")
	}
}

func TestSetHooksAfterRunPanics(t *testing.T) {
	h := newHarness(t, RoomConfig{}, fakeFactory(2, 0), 1)
	h.join("a", -1) // Run has started
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	h.r.SetHooks(Hooks{})
}

// TestTwoTicksPerWake: a room that runs its 60 Hz ticks in pairs wakes
// half as often, steps the game just as many times, publishes once per
// wake, counts no lateness for the tick that waited for its pair, and
// still applies every input.
func TestTwoTicksPerWake(t *testing.T) {
	h := newHarness(t, RoomConfig{TicksPerWake: 2}, fakeFactory(2, 0), 1)
	h.play("a", "b")
	before := h.r.Stats()
	f0 := h.frame()
	period := time.Second / 60
	h.submit("a", 0, 1, 1)
	for range 60 {
		h.clk.Advance(period + 1)
	}
	s := h.r.Stats()
	f := h.frame()
	if got := s.Ticks - before.Ticks; got < 59 || got > 61 {
		t.Fatalf("%d ticks in a second, want 60", got)
	}
	if got := f.Tick - f0.Tick; got != s.Ticks-before.Ticks {
		t.Fatalf("game stepped %d times for %d ticks", got, s.Ticks-before.Ticks)
	}
	if got := f.Seq - f0.Seq; got < 29 || got > 31 {
		t.Fatalf("%d frames published in a second, want 30 (one per wake)", got)
	}
	for b := 1; b < LatenessBuckets; b++ {
		if s.Lateness[b] != before.Lateness[b] {
			t.Fatalf("lateness bucket %d grew by %d on a clock that is never late", b, s.Lateness[b]-before.Lateness[b])
		}
	}
	if st := f.State.(*fakeState); st.Applied != 1 || f.Acks[0] != 1 {
		t.Fatalf("input: applied %d, ack %d; want 1, 1", st.Applied, f.Acks[0])
	}
}

// A match's first countdown is announced as it begins (a cluster logs the
// match from there) and, when someone leaves before it ends, called off;
// a lone player's warm-up is neither.
func TestCountdownStartedAndCancelled(t *testing.T) {
	var counted, cancelled []string
	h := newHarnessHooks(t, RoomConfig{WarmUp: true, AllowLateJoin: true}, fakeFactory(2, 0), 42, Hooks{
		CountdownStarted: func(room string, seed uint64, seats []Seat) {
			var who []string
			for _, s := range seats {
				if s.Taken {
					who = append(who, string(s.Player.ID))
				}
			}
			counted = append(counted, fmt.Sprintf("%s %d %s", room, seed, strings.Join(who, ",")))
		},
		CountdownCancelled: func(room string) { cancelled = append(cancelled, room) },
	})
	h.join("a", -1)
	h.ready("a", true)
	if f := h.wantPhase(Countdown); !f.WarmUp || len(counted) != 0 {
		t.Fatalf("a warm-up announced as a match's countdown: %v", counted)
	}
	h.join("b", -1) // ends the warm-up; the seed moves on
	h.ready("a", true)
	h.ready("b", true)
	seed := h.wantPhase(Countdown).Seed
	if want := []string{fmt.Sprintf("r1 %d a,b", seed)}; !slices.Equal(counted, want) || len(cancelled) != 0 {
		t.Fatalf("countdown started %v, cancelled %v; want %v and none", counted, cancelled, want)
	}
	if err := h.r.Leave(context.Background(), "b"); err != nil {
		t.Fatal(err)
	}
	h.wantPhase(Waiting)
	if !slices.Equal(cancelled, []string{"r1"}) {
		t.Fatalf("cancelled %v; want r1 once", cancelled)
	}
}
