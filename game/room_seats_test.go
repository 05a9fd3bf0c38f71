package game

import (
	"slices"
	"testing"
	"time"
)

// A player with the game open in two terminals: closing one must not pause
// the match, freeze the other's paddle or start a forfeit countdown.
func TestSecondSessionKeepsTheSeatConnected(t *testing.T) {
	h := newHarness(t, RoomConfig{}, fakeFactory(2, 0), 1)
	h.play("a", "b")
	if got := h.join("a", -1); got != 0 { // a's second terminal
		t.Fatalf("second session got slot %d", got)
	}
	if err := h.r.Disconnect(ctxT(t), "a"); err != nil { // the first one closes
		t.Fatal(err)
	}
	f := h.wantPhase(Playing)
	if f.Paused || !f.Seats[0].Connected || f.Seats[0].GraceLeft != 0 {
		t.Fatalf("one of two sessions closed and the seat is in grace: %+v", f.Seats[0])
	}
	h.submit("a", 0, 1, 1)
	h.oneTick()
	if st := h.state(); st.Pos[0] != 1 {
		t.Fatalf("the live session's key did nothing: pos %v", st.Pos)
	}
	h.clk.Advance(DefaultGrace + time.Second)
	if f := h.wantPhase(Playing); !f.Seats[0].Taken || f.Result != nil {
		t.Fatalf("the seat was forfeited: %+v", *f)
	}
	// The last session going is a drop like any other.
	if err := h.r.Disconnect(ctxT(t), "a"); err != nil {
		t.Fatal(err)
	}
	if f := h.frame(); !f.Paused || f.Seats[0].Connected {
		t.Fatalf("last session closed, seat still connected: %+v", f.Seats[0])
	}
}

// A new terminal takes the seat over while the old session lingers; the old
// one's late Disconnect must not pause the new one.
func TestReconnectWhileOldSessionLingers(t *testing.T) {
	h := newHarness(t, RoomConfig{}, fakeFactory(2, 0), 1)
	h.play("a", "b")
	h.submit("a", 0, 40, 1)
	h.oneTick()
	h.join("a", -1) // new terminal; the server has not noticed the old one died
	if f := h.frame(); f.Acks[0] != 0 {
		t.Fatalf("the new session inherits the old one's input sequence: ack %d", f.Acks[0])
	}
	if err := h.r.Disconnect(ctxT(t), "a"); err != nil { // the old one times out
		t.Fatal(err)
	}
	if f := h.wantPhase(Playing); f.Paused || !f.Seats[0].Connected {
		t.Fatalf("stale disconnect paused the new session: %+v", f.Seats[0])
	}
}

// Leaving from one of two terminals detaches that terminal only.
func TestLeaveFromOneOfTwoSessionsKeepsTheSeat(t *testing.T) {
	h := newHarness(t, RoomConfig{}, fakeFactory(2, 0), 1)
	h.play("a", "b")
	h.join("a", -1)
	if err := h.r.Leave(ctxT(t), "a"); err != nil {
		t.Fatal(err)
	}
	if f := h.wantPhase(Playing); !f.Seats[0].Taken || !f.Seats[0].Connected || f.Forfeited != nil {
		t.Fatalf("after one of two sessions left: %+v forfeited %v", f.Seats[0], f.Forfeited)
	}
	if err := h.r.Leave(ctxT(t), "a"); err != nil {
		t.Fatal(err)
	}
	if f := h.wantPhase(Finished); !f.Result.Forfeit || !slices.Equal(f.Forfeited, []bool{true, false}) {
		t.Fatalf("the last session's leave: result %+v forfeited %v", f.Result, f.Forfeited)
	}
}

func bindingHarness(t *testing.T, grace time.Duration) (*harness, *[]uint64, *[]Seat) {
	var started []uint64
	var ended []Seat
	h := newHarnessHooks(t, RoomConfig{AutoStart: true, Binding: true, Expected: []PlayerID{"a", "b"}, Grace: grace},
		fakeFactory(2, 0), 9, Hooks{
			MatchStarted: func(_ string, seed uint64, _ []Seat) { started = append(started, seed) },
			MatchEnded:   func(_ string, _ Result, seats []Seat, _ uint64) { ended = slices.Clone(seats) },
		})
	h.join("a", 0)
	h.join("b", 1)
	h.wantPhase(Countdown)
	h.clk.Advance(time.Second)
	return h, &started, &ended
}

// In a ranked (Binding) room the opening countdown is part of the match:
// walking out then is a forfeit, not a free way back to the queue.
func TestBindingCountdownLeaveForfeits(t *testing.T) {
	h, started, ended := bindingHarness(t, 0)
	if err := h.r.Leave(ctxT(t), "b"); err != nil {
		t.Fatal(err)
	}
	f := h.wantPhase(Finished)
	if f.Result == nil || !f.Result.Forfeit || f.Result.Places[0] != 1 || f.Result.Places[1] != 2 {
		t.Fatalf("result %+v", f.Result)
	}
	if !slices.Equal(*started, []uint64{9}) || len(*ended) != 2 || (*ended)[1].Connected || !(*ended)[0].Connected {
		t.Fatalf("hooks: started %v ended %+v", *started, *ended)
	}
	if f.Roster[1].ID != "b" || !slices.Equal(f.Forfeited, []bool{false, true}) {
		t.Fatalf("roster %+v forfeited %v", f.Roster, f.Forfeited)
	}
}

// A drop during a Binding countdown pauses it with the grace on every
// frame, and grace running out is a forfeit.
func TestBindingCountdownGraceExpiryForfeits(t *testing.T) {
	h, started, _ := bindingHarness(t, 5*time.Second)
	if err := h.r.Disconnect(ctxT(t), "b"); err != nil {
		t.Fatal(err)
	}
	f := h.wantPhase(Countdown)
	if !f.Paused || f.Seats[1].GraceLeft != 5*time.Second {
		t.Fatalf("dropped countdown: %+v", *f)
	}
	h.clk.Advance(5 * time.Second)
	f = h.wantPhase(Finished)
	if f.Result == nil || !f.Result.Forfeit || f.Result.Places[0] != 1 || len(*started) != 1 {
		t.Fatalf("after grace: result %+v, started %v", f.Result, *started)
	}
}

// A casual room's first countdown still gives way: nothing was played.
func TestCasualCountdownDropGoesBackToWaiting(t *testing.T) {
	h := newHarness(t, RoomConfig{Grace: 5 * time.Second}, fakeFactory(2, 0), 1)
	h.join("a", -1)
	h.join("b", -1)
	h.ready("a", true)
	h.ready("b", true)
	if err := h.r.Disconnect(ctxT(t), "b"); err != nil {
		t.Fatal(err)
	}
	h.clk.Advance(5 * time.Second)
	if f := h.wantPhase(Waiting); f.Result != nil || f.Seats[1].Taken {
		t.Fatalf("after grace in a casual countdown: %+v", *f)
	}
}

// In a 4-seat room a mid-match leaver is marked on the roster until someone
// else takes the seat.
func TestForfeitedMarksTheLeaverUntilTheSeatChangesHands(t *testing.T) {
	h := newHarness(t, RoomConfig{AllowLateJoin: true}, fakeFactory(4, 0), 1)
	h.play("a", "b", "c")
	if err := h.r.Leave(ctxT(t), "c"); err != nil {
		t.Fatal(err)
	}
	f := h.wantPhase(Playing)
	if !slices.Equal(f.Forfeited, []bool{false, false, true, false}) || f.Roster[2].ID != "c" {
		t.Fatalf("forfeited %v roster %+v", f.Forfeited, f.Roster)
	}
	h.join("d", 2)
	if f := h.frame(); f.Forfeited[2] || f.Roster[2].ID != "d" {
		t.Fatalf("the newcomer inherited the leaver's mark: %v %+v", f.Forfeited, f.Roster)
	}
}

// A ranked rematch needs every player the matchmaker seated: after one
// walked out, those left may be ready but the room stays finished (in a
// 2v2 whose other team left, a "rematch" would be teammates alone).
func TestRankedRematchNeedsEveryExpectedPlayer(t *testing.T) {
	h := newHarness(t, RoomConfig{AutoStart: true, Binding: true, Expected: []PlayerID{"a", "b", "c"}}, fakeFactory(3, 10), 5)
	for _, id := range []PlayerID{"a", "b", "c"} {
		h.join(id, -1)
	}
	h.wantPhase(Countdown)
	h.clk.Advance(h.countdown())
	h.wantPhase(Playing)
	if err := h.r.Leave(ctxT(t), "c"); err != nil {
		t.Fatal(err)
	}
	h.clk.Advance(time.Second)
	h.wantPhase(Finished)
	h.ready("a", true)
	h.ready("b", true)
	h.clk.Advance(time.Second)
	if f := h.wantPhase(Finished); f.Seed != 5 {
		t.Fatalf("a ranked rematch started without c: seed %d", f.Seed)
	}
	// c is back (a ranked room lets only its players in): now it starts.
	h.join("c", -1)
	h.ready("c", true)
	if f := h.wantPhase(Countdown); f.Seed != NextSeed(5) {
		t.Fatalf("rematch seed %d", f.Seed)
	}
}

// Evicting a player (a ban) takes the seat from every session at once, as
// a forfeit, with no grace; the Forfeited hook hears of it at once.
func TestEvictTakesTheSeatFromEverySessionWithoutGrace(t *testing.T) {
	var forfeited []PlayerID
	h := newHarnessHooks(t, RoomConfig{Grace: 30 * time.Second}, fakeFactory(2, 0), 1, Hooks{
		Forfeited: func(_ string, _ int, p Player) { forfeited = append(forfeited, p.ID) },
	})
	h.play("a", "b")
	h.join("a", -1) // a second terminal on the seat
	if err := h.r.Evict(ctxT(t), "a"); err != nil {
		t.Fatal(err)
	}
	f := h.wantPhase(Finished)
	if !f.Result.Forfeit || !slices.Equal(f.Forfeited, []bool{true, false}) || f.Seats[0].Taken {
		t.Fatalf("after evicting a: result %+v forfeited %v seat %+v", f.Result, f.Forfeited, f.Seats[0])
	}
	if !slices.Equal(forfeited, []PlayerID{"a"}) {
		t.Fatalf("Forfeited hook heard %v, want [a]", forfeited)
	}
}
