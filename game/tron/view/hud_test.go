package view

import (
	"testing"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game/tron"
)

// The HUD follows a round: riding, crashes, the freeze with the round's
// winner, then the next round's hold.
func TestHUDFollowsARound(t *testing.T) {
	m := newMatch(t, 9)
	v := New(base, colorprofile.ANSI256)
	h := v.HUD(m.steps(3))
	if h.Phase != Play || h.Round != 1 || h.Riding != 8 || h.Slots != 8 {
		t.Fatalf("at the start: %+v", h)
	}
	if h.Seats[2].Letter != 'C' || h.Seats[2].Style != base+stName0+2 || h.Seats[2].Status != Riding {
		t.Errorf("seat 2: %+v", h.Seats[2])
	}
	var s *tron.Snapshot
	for s = m.snap(); s.PauseIn == 0; s = m.steps(1) {
		if s.Tick > 20000 {
			t.Fatal("no round ended")
		}
	}
	h = v.HUD(s)
	if h.Phase != RoundOver || h.Text() != "round over" || h.Seconds != 2 {
		t.Errorf("after the round: phase %d %q, %d s", h.Phase, h.Text(), h.Seconds)
	}
	winners, crashed := 0, 0
	for i := range 8 {
		seat := h.Seats[i]
		if seat.RoundWinner {
			winners++
			if seat.Wins != 1 {
				t.Errorf("round winner %d has %d wins", i, seat.Wins)
			}
		}
		if seat.Status == Crashed {
			crashed++
		}
	}
	if winners == 0 || crashed < 6 {
		t.Errorf("after the round: %d winners, %d crashed", winners, crashed)
	}
	for s.PauseIn > 0 {
		s = m.steps(1)
	}
	if h = v.HUD(s); h.Phase != Ready || h.Round != 2 || h.Text() != "get ready" || h.Riding != 8 {
		t.Errorf("next round: %+v", h)
	}
}
