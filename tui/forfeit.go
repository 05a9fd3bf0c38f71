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
func (s *seatScreen) forfeitNotice(before *game.Frame) tea.Cmd {
	r, d := s.room, s.d
	if r.Ranked == "" || before == nil || (before.Phase != game.Countdown && before.Phase != game.Playing) {
		return nil
	}
	f := forfeit{ctx: d.Ctx, room: r, slot: s.slot, me: d.Player.ID, seed: before.Seed}
	if d.Matchmaker != nil {
		f.cooldown = d.Matchmaker.Cooldown
	}
	if !r.Remote() {
		after, _ := r.Latest()
		return f.notice(after)
	}
	// Another node's room: the frames here trail the owner's, so the
	// newest one may still show the seat this player has just left.
	// Wait for the one that shows the leave.
	return func() tea.Msg {
		if cmd := f.notice(f.leftFrame()); cmd != nil {
			return cmd()
		}
		return nil
	}
}

// remoteLeaveWait bounds the wait for another node's room to show a
// leave: a seat still the player's after it is another terminal's.
const remoteLeaveWait = 2 * time.Second

// forfeit is what the notice of a ranked walk-out needs, copied from the
// lobby so the command may run off its goroutine.
type forfeit struct {
	ctx      context.Context
	room     *lobby.Room
	slot     int
	me       game.PlayerID
	seed     uint64
	cooldown func(id string) (time.Time, bool)
}

// notice is the command telling the player what the walk-out cost, as
// the room's frame after the leave shows it; nil when nothing was
// forfeited.
func (f forfeit) notice(after *game.Frame) tea.Cmd {
	if after != nil && f.slot < len(after.Seats) {
		if s := after.Seats[f.slot]; s.Taken && s.Player.ID == f.me {
			return nil
		}
	}
	if after != nil && (after.Phase == game.Countdown || after.Phase == game.Playing) && f.cooldown != nil {
		// The others play on (a team, a free-for-all): the rating
		// change waits for their result, but the strike was counted as
		// the player left, so the cooldown is known now.
		until, _ := f.cooldown(string(f.me))
		text := "You left a ranked match: it counts as a loss when it ends." + cooldownLine(until, time.Now())
		return func() tea.Msg { return forfeitMsg{text} }
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(f.ctx, forfeitWait)
		defer cancel()
		return forfeitMsg{forfeitText(f.room.AwaitOutcome(ctx, f.seed), f.slot, time.Now())}
	}
}

// leftFrame is the first frame of another node's room that no longer
// seats the player in their slot (or the match is over), or the newest
// one after remoteLeaveWait.
func (f forfeit) leftFrame() *game.Frame {
	ctx, cancel := context.WithTimeout(f.ctx, remoteLeaveWait)
	defer cancel()
	for {
		fr, next := f.room.Latest()
		if fr == nil || f.slot >= len(fr.Seats) || (fr.Phase != game.Countdown && fr.Phase != game.Playing) {
			return fr
		}
		if s := fr.Seats[f.slot]; !s.Taken || s.Player.ID != f.me {
			return fr
		}
		select {
		case <-next:
		case <-ctx.Done():
			return fr
		}
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
