package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/tron"
	tronview "github.com/termarena/termarena/game/tron/view"
)

// A light-cycle frame: riders in slots 0-2, stepped into play.
func tronFrame(t *testing.T, ticks int) (*tron.Game, *game.Frame) {
	t.Helper()
	g := tron.New(tron.DefaultConfig(tron.Casual), 7)
	for slot := range 3 {
		if err := g.Join(slot); err != nil {
			t.Fatal(err)
		}
	}
	for range ticks {
		g.Step(nil)
	}
	seats := make([]game.Seat, 8)
	for slot, name := range []string{"ann", "ben", "cy"} {
		seats[slot] = game.Seat{Player: game.Player{ID: game.PlayerID(name), Name: name}, Taken: true, Connected: true}
	}
	return g, &game.Frame{Room: "r1", TickRate: 60, Tick: uint64(ticks), Phase: game.Playing, Seats: seats, Acks: make([]uint32, 8), State: g.Snapshot()}
}

func tronRoomView(fr *game.Frame, slot, w, h int, p colorprofile.Profile, clock *time.Time) (*RoomView, *vtWriter, *fakeRoom) {
	out, room := newVT(w, h), newFakeRoom(fr)
	v := newTestRoomView(RoomViewConfig{Room: room, Me: "ann", Slot: slot, Title: "r1 · tron · casual", Out: out,
		Profile: p, Width: w, Height: h, Now: func() time.Time { return *clock },
		Game: tronview.NewScreen(viewBase, p)})
	v.in.frAt = *clock
	v.setFrame(fr, *clock)
	return v, out, room
}

// The room screen hosts the light-cycle view: the header names every
// rider with their score and the round, the footer the riding keys; at
// 200×50 the arena shows whole, at 80×24 the camera follows; without
// colour each rider's letter stands before their name.
func TestRoomScreenHostsALightCycleView(t *testing.T) {
	_, fr := tronFrame(t, 30)
	clock := time.Unix(1000, 0)
	for _, c := range []struct {
		w, h  int
		p     colorprofile.Profile
		want  []string
		whole bool
	}{
		{80, 24, colorprofile.ANSI256, []string{"▸ann 0", "ben 0", "cy 0", "arrows/WASD turn · q leave"}, false},
		{200, 50, colorprofile.TrueColor, []string{"▸ann 0", "round 1 · first to 3 · 3 riding", "arrows/WASD turn · q leave"}, true},
		{80, 24, colorprofile.Ascii, []string{"▸A:ann 0", "B:ben 0", "C:cy 0"}, false},
	} {
		v, out, _ := tronRoomView(fr, 0, c.w, c.h, c.p, &clock)
		v.draw()
		scr := out.screen()
		for _, w := range c.want {
			if !strings.Contains(scr, w) {
				t.Fatalf("%dx%d %v: screen lacks %q:\n%s", c.w, c.h, c.p, w, scr)
			}
		}
		if whole := strings.Contains(scr, "┌") && strings.Contains(scr, "┘"); whole != c.whole {
			t.Fatalf("%dx%d: whole arena shown = %v, want %v:\n%s", c.w, c.h, whole, c.whole, scr)
		}
	}
}

// A turn is submitted with its sequence number and drawn in the frame made
// for the key, before the room confirms it; the confirmation clears it.
func TestLightCycleTurnIsDrawnBeforeTheRoomTakesIt(t *testing.T) {
	g, fr := tronFrame(t, 1)
	clock := time.Unix(1000, 0)
	v, out, room := tronRoomView(fr, 0, 200, 50, colorprofile.TrueColor, &clock)
	v.draw()
	v.draw() // the header's frame rate has settled
	before := out.screen()
	s := g.Snapshot().(*tron.Snapshot)
	turn := tron.Left
	if h := s.Cycles[0].Heading; h == tron.Left || h == tron.Right {
		turn = tron.Up
	}
	v.in.sendAction(keyEvent{act: turn, acted: true, at: clock})
	v.draw()
	if len(room.inputs) != 1 || room.inputs[0].Action != turn || room.inputs[0].Seq != 1 || room.inputs[0].Slot != 0 {
		t.Fatalf("submitted %+v", room.inputs)
	}
	if out.screen() == before {
		t.Fatal("the turn was not drawn before the room took it")
	}
	if len(v.in.pending) != 1 {
		t.Fatalf("pending %v", v.in.pending)
	}
	next := *fr
	next.Acks = append([]uint32(nil), fr.Acks...)
	next.Acks[0] = 1
	v.setFrame(&next, clock)
	if len(v.in.pending) != 0 {
		t.Fatalf("acknowledged turn still pending: %v", v.in.pending)
	}
}

// A terminal too small for even a following camera says so, and the
// board comes back when it is enlarged.
func TestLightCycleTooSmallAndBack(t *testing.T) {
	_, fr := tronFrame(t, 30)
	clock := time.Unix(1000, 0)
	v, out, _ := tronRoomView(fr, 0, 30, 10, colorprofile.ANSI256, &clock)
	v.draw()
	if scr := out.screen(); !strings.Contains(scr, "Terminal too small") || !strings.Contains(scr, "need 40×12") {
		t.Fatalf("30×10:\n%s", scr)
	}
	out.vt.Resize(80, 24)
	v.Resize(80, 24)
	v.applyChanges()
	v.draw()
	if scr := out.screen(); strings.Contains(scr, "too small") || !strings.Contains(scr, "▸ann 0") {
		t.Fatalf("back at 80×24:\n%s", scr)
	}
}

// Eight riders' names fill the header at 80 columns: the match line moves
// to the footer, next to the keys, rather than going unseen.
func TestMatchLineMovesToTheFooterWhenTheHeaderIsFull(t *testing.T) {
	g := tron.New(tron.DefaultConfig(tron.Casual), 7)
	seats := make([]game.Seat, 8)
	for slot := range 8 {
		if err := g.Join(slot); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("rider-%d-long", slot)
		seats[slot] = game.Seat{Player: game.Player{ID: game.PlayerID(name), Name: name}, Taken: true, Connected: true}
	}
	g.Step(nil)
	fr := &game.Frame{Room: "r1", TickRate: 60, Tick: 1, Phase: game.Playing, Seats: seats, Acks: make([]uint32, 8), State: g.Snapshot()}
	clock := time.Unix(1000, 0)
	v, out, _ := tronRoomView(fr, 0, 80, 24, colorprofile.ANSI256, &clock)
	v.draw()
	scr := out.screen()
	lines := strings.Split(scr, "\n")
	if !strings.Contains(lines[len(lines)-1], "round 1 · first to 3") && !strings.Contains(lines[len(lines)-2], "round 1 · first to 3") {
		t.Fatalf("the match line is not in the footer:\n%s", scr)
	}
	if !strings.Contains(scr, "q leave") {
		t.Fatalf("the footer lost its keys:\n%s", scr)
	}
}

// notifyingVT is a terminal whose writer tells the view when the
// terminal is handed to it.
type notifyingVT struct {
	*vtWriter
	mu  sync.Mutex
	fns []*func()
}

func (n *notifyingVT) OnGiven(f func()) func() {
	n.mu.Lock()
	defer n.mu.Unlock()
	p := &f
	n.fns = append(n.fns, p)
	return func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		n.fns = slices.DeleteFunc(n.fns, func(q *func()) bool { return q == p })
	}
}

func (n *notifyingVT) registered() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.fns)
}

// The room view asks to be woken by a hand-over of the terminal while it
// runs, and only then.
func TestRoomViewListensForHandOverWhileItRuns(t *testing.T) {
	_, fr := tronFrame(t, 1)
	out := &notifyingVT{vtWriter: newVT(80, 24)}
	v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(fr), Me: "ann", Slot: 0, Out: out, Width: 80, Height: 24,
		Game: tronview.NewScreen(viewBase, colorprofile.ANSI256)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); v.Run(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for out.registered() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the running view never registered")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	if n := out.registered(); n != 0 {
		t.Fatalf("%d registrations left after the view ended", n)
	}
}

// A light-cycle frame allocates nothing either: the header and the match
// line are made only when what they show changes.
func TestLightCycleFramesAllocateNothing(t *testing.T) {
	g, fr := tronFrame(t, 200)
	var frames []*game.Frame
	for range 301 {
		g.Step(nil)
		f := *fr
		f.State = g.Snapshot()
		frames = append(frames, &f)
	}
	clock := time.Unix(1000, 0)
	v, _, _ := tronRoomView(fr, 0, 80, 24, colorprofile.ANSI256, &clock)
	v.cfg.Out = &countWriter{} // the emulator's own allocations are not the view's
	v.draw()
	if allocs := frameAllocs(v, frames, &clock); allocs > 0 {
		t.Errorf("%.0f allocations a frame", allocs)
	}
}

// No rider goes missing from the header: with every seat taken at 80
// columns the figures give way first, then ratings, then names are
// shortened, and every rider keeps a place with their score.
func TestHeaderKeepsEveryRider(t *testing.T) {
	for _, riders := range []int{4, 8} {
		g := tron.New(tron.DefaultConfig(tron.Casual), 7)
		seats := make([]game.Seat, 8)
		for slot := range riders {
			if err := g.Join(slot); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%c-r%d", 'a'+slot, slot) // four short names and their ratings fit
			if riders == 8 {
				name = fmt.Sprintf("%c-rider-%d-longname", 'a'+slot, slot)
			}
			seats[slot] = game.Seat{Player: game.Player{ID: game.PlayerID(name), Name: name}, Taken: true, Connected: true}
		}
		g.Step(nil)
		fr := &game.Frame{Room: "r1", TickRate: 60, Tick: 1, Phase: game.Playing, Seats: seats, Acks: make([]uint32, 8), State: g.Snapshot()}
		clock := time.Unix(1000, 0)
		out, room := newVT(80, 24), newFakeRoom(fr)
		v := newTestRoomView(RoomViewConfig{Room: room, Me: seats[0].Player.ID, Slot: 0, Title: "r1 · tron-ffa · ranked", Out: out,
			Profile: colorprofile.ANSI256, Width: 80, Height: 24, Now: func() time.Time { return clock },
			Labels: func(int) string { return "1500?" }, Watchers: func() int { return 1 },
			Game: tronview.NewScreen(viewBase, colorprofile.ANSI256)})
		v.setFrame(fr, clock)
		v.draw()
		header := strings.Split(out.screen(), "\n")[0]
		for slot := range riders {
			if !strings.Contains(header, string(rune('a'+slot))+"-r") {
				t.Errorf("%d riders: rider %d is missing from the header %q", riders, slot, header)
			}
		}
		if riders == 4 && !strings.Contains(header, "1500?") {
			t.Errorf("4 riders: the ratings were dropped although the figures could give way: %q", header)
		}
	}
}

// Over the opening countdown the header has no match line: nobody is
// riding yet ("3 riding" was shown), and the overlay says who plays whom.
func TestNoMatchLineOverTheCountdown(t *testing.T) {
	_, fr := tronFrame(t, 0)
	fr.Phase, fr.Left = game.Countdown, 2*time.Second
	clock := time.Unix(1000, 0)
	v, out, _ := tronRoomView(fr, 0, 120, 40, colorprofile.ANSI256, &clock)
	v.draw()
	if scr := out.screen(); strings.Contains(scr, "riding") || !strings.Contains(scr, "ann vs ben vs cy") {
		t.Fatalf("the countdown screen:\n%s", scr)
	}
}

// A light-cycle replay keeps its clock and progress bar in the footer at
// 80 columns, where six riders leave the round line ("round 1 · first to
// 3 · 6 riding") no room in the header: the clock is what a replay's
// footer is for, so the round line gives way first.
func TestLightCycleReplayFooterKeepsTheClock(t *testing.T) {
	fr := sixRiders(t)
	clock := time.Unix(1000, 0)
	for _, w := range []int{80, 100, 200} {
		out, room := newVT(w, 24), newFakeRoom(fr)
		v := newTestRoomView(RoomViewConfig{Room: room, Slot: -1, Title: "replay 7", Out: out,
			Profile: colorprofile.ANSI256, Width: w, Height: 24, Now: func() time.Time { return clock },
			Footer: func() (string, string) {
				return "▶ 00:12 / 01:30 ██░░░░░░░░░░ 1×", "space pause · +/- speed · ←/→ 10s · q quit"
			},
			StatusFirst: true, // as the replay screen sets it
			Game:        tronview.NewScreen(viewBase, colorprofile.ANSI256)})
		v.in.frAt = clock
		v.setFrame(fr, clock)
		v.draw()
		if scr := out.screen(); !strings.Contains(scr, "00:12 / 01:30 ██░░") || !strings.Contains(scr, "q quit") {
			t.Fatalf("%d columns: the replay's footer lacks its clock or keys:\n%s", w, scr)
		}
	}
}

// sixRiders is a light-cycle frame of six riders with long names, 30
// ticks in.
func sixRiders(t *testing.T) *game.Frame {
	t.Helper()
	g := tron.New(tron.DefaultConfig(tron.Casual), 7)
	names := []string{"annabel", "benedict", "cyrano", "delphine", "evander", "fionnuala"}
	seats := make([]game.Seat, 8)
	for slot, name := range names {
		if err := g.Join(slot); err != nil {
			t.Fatal(err)
		}
		seats[slot] = game.Seat{Player: game.Player{ID: game.PlayerID(name), Name: name}, Taken: true, Connected: true}
	}
	for range 30 {
		g.Step(nil)
	}
	return &game.Frame{Room: "r1", TickRate: 60, Tick: 30, Phase: game.Playing, Seats: seats, Acks: make([]uint32, 8), State: g.Snapshot()}
}

// Results number tied riders as standard competition ranking: two riders
// sharing fourth are followed by sixth, not fifth (the game's places are
// dense: 1, 2, 3, 4, 4, 5).
func TestResultsRankTiesAsCompetitionRanking(t *testing.T) {
	fr := sixRiders(t)
	fr.Phase = game.Finished
	fr.Roster = make([]game.Player, 8)
	for i, s := range fr.Seats {
		fr.Roster[i] = s.Player
	}
	fr.Result = &game.Result{Placements: []int{0, 1, 2, 3, 4, 5}, Places: []int{1, 2, 3, 4, 4, 5, 0, 0}, Scores: []int{3, 2, 1, 0, 0, 0, 0, 0}}
	clock := time.Unix(1000, 0)
	v, out, _ := tronRoomView(fr, 0, 200, 50, colorprofile.ANSI256, &clock)
	v.draw()
	scr := out.screen()
	for _, want := range []string{"1. annabel", "4. delphine", "4. evander", "6. fionnuala"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("results lack %q:\n%s", want, scr)
		}
	}
}
