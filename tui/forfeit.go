package tui

import (
	"context"
	"fmt"
	"math"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/rating"
)

// forfeitWait bounds how long the lobby waits for the results writer to
// say what walking out of a ranked match cost.
const forfeitWait = 10 * time.Second

// forfeitMsg carries what leaving a ranked match cost, for the lobby notice.
type forfeitMsg struct{ text string }

// forfeitNotice tells a player who walked out of a ranked match (before is
// the room's frame from just before they left) what it cost them, once the
// results writer has recorded it: otherwise they learn of the loss and the
// cooldown only when `p` refuses to queue. Nil when nothing was forfeited,
// e.g. another terminal of theirs still plays the seat.
func (m *Lobby) forfeitNotice(in *inRoom, before *game.Frame) tea.Cmd {
	r := in.room
	if r.Ranked == "" || before == nil || (before.Phase != game.Countdown && before.Phase != game.Playing) {
		return nil
	}
	if after, _ := r.Latest(); after != nil && in.slot < len(after.Seats) {
		if s := after.Seats[in.slot]; s.Taken && s.Player.ID == m.d.Player.ID {
			return nil
		}
	}
	if after, _ := r.Latest(); after != nil && (after.Phase == game.Countdown || after.Phase == game.Playing) && m.d.Matchmaker != nil {
		// The others play on (a team, a free-for-all): the rating
		// change waits for their result, but the strike was counted as
		// the player left, so the cooldown is known now.
		until, _ := m.d.Matchmaker.Cooldown(string(m.d.Player.ID))
		text := "You left a ranked match: it counts as a loss when it ends." + cooldownLine(until, time.Now())
		return func() tea.Msg { return forfeitMsg{text} }
	}
	ctx, slot, seed := m.d.Ctx, in.slot, before.Seed
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, forfeitWait)
		defer cancel()
		return forfeitMsg{forfeitText(r.AwaitOutcome(ctx, seed), slot, time.Now())}
	}
}

// forfeitText is the notice for the player in slot, from the outcome the
// results writer computed (nil: it did not come in time).
func forfeitText(o *lobby.Outcome, slot int, now time.Time) string {
	if o == nil || slot >= len(o.Changes) || !o.Changes[slot].Left {
		return "You left a ranked match: it counts as a loss."
	}
	c := o.Changes[slot]
	delta := int(math.Round(c.After)) - int(math.Round(c.Before))
	text := fmt.Sprintf("You left a ranked match: counted as a loss (%+d, now %s).", delta, rating.DisplayDeviation(c.After, c.DeviationAfter))
	return text + cooldownLine(c.Cooldown, now)
}

// cooldownLine says what queue cooldown a leave ending at until earned.
func cooldownLine(until, now time.Time) string {
	if wait := until.Sub(now); wait > 0 {
		return fmt.Sprintf("\nQueue cooldown: %d min.", int(math.Ceil(wait.Minutes())))
	}
	return "\nNo queue cooldown this time; leaving again soon earns one."
}
