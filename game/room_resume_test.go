package game

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A resumed room plays on the match it was given: it starts paused with
// every remaining player's seat held in grace (a player who had left the
// match stays gone), takes back the players who sit again, starts no
// new match (no MatchStarted), resumes through a countdown once nobody
// is in grace, and steps the game on from the tick it was given.
func TestResumeRoomHoldsSeatsAndPlaysOn(t *testing.T) {
	clk := NewFakeClock()
	g := fakeFactory(3, 0)(7)
	for slot := range 3 {
		if err := g.Join(slot); err != nil {
			t.Fatal(err)
		}
	}
	for range 40 {
		g.Step(nil)
	}
	g.Leave(2)
	roster := []Player{{ID: "a", Name: "a"}, {ID: "b", Name: "b"}, {ID: "c", Name: "c"}}
	started := 0
	r := ResumeRoom("r1@n1", RoomConfig{Clock: clk, TickRate: 10, Countdown: time.Second, Grace: 5 * time.Second, AutoStart: true,
		Expected: []PlayerID{"a", "b", "c"}}, fakeFactory(3, 0), Resumed{Game: g, Seed: 7, Tick: 40, Roster: roster, Forfeited: []bool{false, false, true}})
	r.SetHooks(Hooks{MatchStarted: func(string, uint64, []Seat) { started++ }})
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); <-r.Done() }()
	go func() { _ = r.Run(ctx) }()

	fr, _ := r.Latest()
	if fr.Room != "r1@n1" || fr.Phase != Countdown || !fr.Paused || fr.Tick != 40 || fr.Seed != 7 {
		t.Fatalf("first frame: room %s, %v, paused %v, tick %d, seed %d", fr.Room, fr.Phase, fr.Paused, fr.Tick, fr.Seed)
	}
	for i, want := range []bool{true, true, false} {
		s := fr.Seats[i]
		if s.Taken != want || s.Connected || (want && s.GraceLeft != 5*time.Second) {
			t.Fatalf("seat %d: %+v; want held in grace: %v", i, s, want)
		}
	}
	if !fr.Forfeited[2] {
		t.Fatal("the player who had left the match is not marked as having left it")
	}
	if _, err := r.Join(ctx, Player{ID: "c"}, -1); err == nil {
		t.Fatal("the player who had left the match sat again")
	}
	if _, err := r.Join(ctx, Player{ID: "x"}, -1); !errors.Is(err, ErrNotExpected) && !errors.Is(err, ErrStarted) {
		t.Fatalf("a stranger joined the resumed match: %v", err)
	}
	for i, id := range []PlayerID{"a", "b"} {
		if slot, err := r.Join(ctx, Player{ID: id, Name: string(id)}, -1); err != nil || slot != i {
			t.Fatalf("%s back: slot %d, %v", id, slot, err)
		}
	}
	fr, _ = r.Latest()
	if fr.Paused || fr.Phase != Countdown {
		t.Fatalf("with everyone back: %v, paused %v; want the countdown", fr.Phase, fr.Paused)
	}
	clk.Advance(2 * time.Second)
	fr, _ = r.Latest()
	if fr.Phase != Playing || fr.Tick <= 40 {
		t.Fatalf("after the countdown: %v at tick %d; want play on from tick 40", fr.Phase, fr.Tick)
	}
	if st := fr.State.(*fakeState); st.Tick != fr.Tick {
		t.Fatalf("the game stepped to %d, the room says %d", st.Tick, fr.Tick)
	}
	if started != 0 {
		t.Fatalf("MatchStarted fired %d times for a match already under way", started)
	}
}
