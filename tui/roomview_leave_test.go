package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// drawOnce paints fr for the player in slot and returns the screen.
func drawOnce(t *testing.T, fr *game.Frame, me game.PlayerID, slot, w, h int, ranked bool) string {
	t.Helper()
	out := newVT(w, h)
	clock := time.Unix(1000, 0)
	v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(fr), Me: me, Slot: slot, Title: "r1 · 1v1 · casual", Out: out,
		Profile: colorprofile.ANSI256, Width: w, Height: h, Now: func() time.Time { return clock }, Ranked: ranked})
	v.in.frAt = clock
	v.setFrame(fr, clock)
	v.draw()
	return out.screen()
}

// finished1v1 is a 1v1 that bob won 11–5 (alice left, bob right).
func finished1v1(t *testing.T) *game.Frame {
	g, fr := match1v1(t, 10)
	snap := *g.Snapshot().(*pong.Snapshot)
	snap.Scores = [4]int32{5, 11}
	snap.Over, snap.Winners = true, 1<<1
	fr.State = &snap
	fr.Phase = game.Finished
	fr.Roster = []game.Player{fr.Seats[0].Player, fr.Seats[1].Player}
	fr.Result = &game.Result{Placements: []int{1, 0}, Places: []int{2, 1}, Scores: []int{5, 11}}
	return fr
}

// Carol takes bob's seat after the match: the result stays bob's, and
// carol starts at 0.
func TestJoinerIntoFinishedRoomInheritsNothing(t *testing.T) {
	fr := finished1v1(t)
	fr.Seats[1] = game.Seat{Player: game.Player{ID: "c", Name: "carol"}, Taken: true, Connected: true}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		scr := drawOnce(t, fr, "c", 1, size[0], size[1], false)
		for _, want := range []string{"1. bob (11)", "2. alice (5)", "bob left", "▸carol 0", "r rematch (0 ready)"} {
			if !strings.Contains(scr, want) {
				t.Fatalf("%v: screen lacks %q:\n%s", size, want, scr)
			}
		}
		if strings.Contains(scr, "carol (11)") || strings.Contains(scr, "carol 11") {
			t.Fatalf("%v: carol is credited with bob's game:\n%s", size, scr)
		}
	}
}

// Bob walked out mid-game: alice sees who left, the result marks it, and
// she is not left counting ready players for a rematch nobody can join.
func TestOpponentLeftIsShownAndNobodyWaitsForever(t *testing.T) {
	fr := finished1v1(t)
	fr.Result = &game.Result{Placements: []int{0, 1}, Places: []int{1, 2}, Scores: []int{1, 1}, Forfeit: true}
	fr.Seats[1] = game.Seat{}
	fr.Forfeited = []bool{false, true}
	scr := drawOnce(t, fr, "a", 0, 80, 24, false)
	for _, want := range []string{"1. alice (1)", "2. bob (1) (left)", "bob left", "waiting for players · q leave"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("screen lacks %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "rematch") {
		t.Fatalf("a rematch is offered with nobody to play:\n%s", scr)
	}
	scr = drawOnce(t, fr, "a", 0, 80, 24, true)
	if !strings.Contains(scr, "n back to queue · q leave") || strings.Contains(scr, "rematch") {
		t.Fatalf("ranked, opponent gone:\n%s", scr)
	}
}

// A drop during the opening countdown shows the grace notice, not a "1"
// that never moves.
func TestCountdownPausedShowsTheGraceNotice(t *testing.T) {
	_, fr := match1v1(t, 0)
	fr.Phase, fr.Paused = game.Countdown, true
	fr.Roster = []game.Player{fr.Seats[0].Player, fr.Seats[1].Player}
	fr.Seats[1].Connected, fr.Seats[1].GraceLeft = false, 29*time.Second
	scr := drawOnce(t, fr, "a", 0, 80, 24, true)
	if !strings.Contains(scr, "bob disconnected — 29 s") {
		t.Fatalf("no grace notice in a paused countdown:\n%s", scr)
	}
}

// A ranked free-for-all whose player walked out: the three who stayed are
// not offered a rematch that cannot start (a ranked rematch needs every
// player the queue seated), only the way back to the queue.
func TestRankedResultsWithALeaverOfferNoRematch(t *testing.T) {
	g := pong.New(pong.DefaultConfig(pong.FFA4), 3)
	var seats []game.Seat
	for slot, name := range []string{"ann", "ben", "cy", "dee"} {
		if err := g.Join(slot); err != nil {
			t.Fatal(err)
		}
		seats = append(seats, game.Seat{Player: game.Player{ID: game.PlayerID(name), Name: name}, Taken: true, Connected: true})
	}
	g.Step(nil)
	snap := *g.Snapshot().(*pong.Snapshot)
	snap.Over = true
	fr := &game.Frame{Room: "r1", TickRate: 60, Phase: game.Finished, Seats: seats, Acks: make([]uint32, 4), State: &snap,
		Roster:    []game.Player{seats[0].Player, seats[1].Player, seats[2].Player, seats[3].Player},
		Forfeited: []bool{false, false, false, true},
		Result:    &game.Result{Placements: []int{0, 1, 2, 3}, Places: []int{1, 2, 3, 4}, Scores: []int{5, 3, 1, 0}, Forfeit: true}}
	fr.Seats[3] = game.Seat{}
	scr := drawOnce(t, fr, "ann", 0, 80, 24, true)
	if strings.Contains(scr, "rematch") || !strings.Contains(scr, "n back to queue · q leave") || !strings.Contains(scr, "n queue · q leave") {
		t.Fatalf("ranked results with a leaver:\n%s", scr)
	}
	// Casual: the three who stayed may play again.
	if scr := drawOnce(t, fr, "ann", 0, 80, 24, false); !strings.Contains(scr, "r rematch") {
		t.Fatalf("casual results with a leaver:\n%s", scr)
	}
}
