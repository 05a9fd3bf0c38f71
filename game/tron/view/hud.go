package view

import (
	"github.com/termarena/termarena/game/tron"
	"github.com/termarena/termarena/screen"
)

// Status is where a seat stands in the match.
type Status uint8

const (
	Empty     Status = iota // nobody holds the seat
	Seated                  // seated, the match has not started
	Riding                  // riding the current round
	Crashed                 // crashed this round
	NextRound               // joined mid-round: rides from the next one
	Left                    // left the match after it started
)

func (s Status) String() string {
	switch s {
	case Seated:
		return "ready"
	case Riding:
		return "riding"
	case Crashed:
		return "crashed"
	case NextRound:
		return "next round"
	case Left:
		return "left"
	}
	return "empty"
}

// Phase is what the match as a whole is doing.
type Phase uint8

const (
	Ready     Phase = iota // cycles hold still at their starts
	Play                   // cycles are moving
	RoundOver              // frozen after a round ended, before the next
	MatchOver
)

// Seat is one seat's HUD line. Names are the caller's: the view knows
// slots only.
type Seat struct {
	Status Status
	Wins   int32
	// Place is 1-based once the match is over, 0 before.
	Place int8
	// RoundWinner is set while the round that just ended is shown, for
	// whoever won or shared it; Winner once the match is over.
	RoundWinner, Winner bool
	// Letter is the seat's letter on the board without colour; Style draws
	// its name in its colour (bold), an offset already added.
	Letter rune
	Style  screen.Style
}

// HUD is the match status a screen shows around the board.
type HUD struct {
	Round       int32
	RoundsToWin int
	Phase       Phase
	// Seconds is what is left of the hold (Ready) or of the freeze
	// (RoundOver), rounded up; 0 otherwise.
	Seconds int
	Riding  int // cycles still riding
	Slots   int
	Seats   [tron.MaxPlayers]Seat
}

// HUD returns the status parts for snap. It allocates nothing, so a screen
// can call it every frame.
func (v *View) HUD(snap *tron.Snapshot) HUD {
	h := HUD{Round: snap.Round, RoundsToWin: snap.Config.RoundsToWin, Slots: snap.Slots}
	rate := max(snap.Config.TickRate, 1)
	secs := func(ticks int32) int { return (int(ticks) + rate - 1) / rate }
	switch {
	case snap.Over:
		h.Phase = MatchOver
	case snap.PauseIn > 0:
		h.Phase, h.Seconds = RoundOver, secs(snap.PauseIn)
	case snap.HoldIn > 0:
		h.Phase, h.Seconds = Ready, secs(snap.HoldIn)
	default:
		h.Phase = Play
	}
	for i := range snap.Slots {
		c := &snap.Cycles[i]
		st := Empty
		switch {
		case c.Left:
			st = Left
		case !c.Seated:
		case c.Pending:
			st = NextRound
		case c.Rider && c.Alive:
			st = Riding
			h.Riding++
		case c.Rider:
			st = Crashed
		default:
			st = Seated
		}
		h.Seats[i] = Seat{
			Status: st, Wins: c.Wins, Place: c.Place,
			RoundWinner: snap.RoundWinners&(1<<i) != 0, Winner: snap.Won(i),
			Letter: Letter(i), Style: v.base + stName0 + screen.Style(i),
		}
	}
	return h
}

// Text is the phase as words for the HUD's status line ("" while
// riding); who won is the caller's to add, from the seats and its names.
func (h *HUD) Text() string {
	switch h.Phase {
	case Ready:
		return "get ready"
	case RoundOver:
		return "round over"
	case MatchOver:
		return "match over"
	}
	return ""
}
