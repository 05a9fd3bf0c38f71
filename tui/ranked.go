package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/service"
)

// Guests are told what they cannot do and how to get it, in a line that
// fits the lobby box at 80 columns.
const (
	guestRanked  = "Guests can't play ranked: connect with an SSH key."
	guestProfile = "Guests have no profile: connect with an SSH key."
)

// queueFor puts the player in mode's queue.
func (m *Lobby) queueFor(mode lobby.RankedMode) tea.Cmd {
	if m.d.Matchmaker == nil || m.d.Store == nil {
		return nil
	}
	if m.d.Player.Guest {
		m.notice = guestRanked
		return nil
	}
	// A seat still held in a running match (its grace counting down after
	// another terminal dropped, say) comes first: queueing anew would leave
	// that match to forfeit behind the player's back.
	if m.d.Rooms != nil {
		if held, ok := m.d.Rooms.Holding(m.d.Player.ID); ok {
			return m.join(joinMsg{room: held, side: -1})
		}
	}
	// The match will not wait for a terminal that cannot show its board.
	if k, md, ok := m.games().Ranked(string(mode)); ok {
		if why := m.d.Views.TooSmall(string(mode), k.Name(), md.Name, m.w, m.h); why != "" {
			m.notice = why + "."
			return nil
		}
	}
	r, _, err := m.d.Store.Rating(m.d.Ctx, string(mode), string(m.d.Player.ID))
	if err != nil {
		m.notice = "Could not read your rating; please try again."
		return nil
	}
	t, err := m.d.Matchmaker.Join(mode, string(m.d.Player.ID), m.d.Player.Name, r.Rating)
	var in *lobby.InMatchError
	switch {
	case errors.As(err, &in):
		m.notice = fmt.Sprintf("You are already playing a ranked %s match, in %s (another terminal of yours): "+
			"one ranked match at a time. b goes back to it.", in.Room.Ranked, in.Room.ID())
		if m.state == stMenu {
			m.show(nil) // the rooms list, where b works
		}
		return nil
	case err != nil:
		m.notice = strings.TrimPrefix(err.Error(), "lobby: ")
		return nil
	}
	q, wait := newQueuePage(m.d.Ctx, m.d.Matchmaker, m, t)
	if k, md, ok := m.games().Ranked(string(mode)); ok && m.d.Rooms != nil && m.d.Rooms.PracticeOn(k.Name()) {
		after := m.d.BotOfferAfter
		if after <= 0 {
			after = DefaultBotOfferAfter
		}
		q.bots = &botOffer{after: after, level: lobby.BotLevelFor(r.Rating), start: func(level int) tea.Cmd {
			pr, err := m.d.Rooms.CreatePractice(k.Name(), md.Name, level)
			if err != nil {
				m.notice = sentence(strings.TrimPrefix(err.Error(), "lobby: "))
				return nil
			}
			return m.join(joinMsg{room: pr, side: -1})
		}}
	}
	m.show(q)
	m.notice, m.help = "", false
	return wait
}

// seatMatch takes the player from the queue to the room their match was
// made in.
func (m *Lobby) seatMatch(r *lobby.Room) tea.Cmd {
	if r == nil {
		m.notice = "Your ranked match could not start because of a server error. Queue again with p."
		return nil
	}
	side := -1
	if s, ok := r.Seats[m.d.Player.ID]; ok {
		side = s
	}
	return m.join(joinMsg{room: r, side: side})
}

// rankedSeat is the ranked room where the player holds a seat (another
// terminal of theirs plays it, or it waits for them), or nil.
func (m *Lobby) rankedSeat() *lobby.Room {
	if m.d.Matchmaker == nil || m.d.Player.Guest {
		return nil
	}
	return m.d.Matchmaker.InMatch(string(m.d.Player.ID))
}

// backToMatch takes the player to the ranked seat they hold, as a second
// terminal on the same seat (the room keeps it connected while either is).
func (m *Lobby) backToMatch() tea.Cmd {
	r := m.rankedSeat()
	if r == nil {
		return nil
	}
	side := -1
	if s, ok := r.Seats[m.d.Player.ID]; ok {
		side = s
	}
	return m.join(joinMsg{room: r, side: side})
}

// Queries are what the leaderboard and profile screens read: the service
// layer's queries, the same the `leaderboard` and `profile` commands ask.
type Queries interface {
	Leaderboard(ctx context.Context, mode string, limit int) (service.Leaderboard, error)
	Profile(ctx context.Context, fp string) (service.Profile, error)
	ProfileNamed(ctx context.Context, name string) (service.Profile, error)
}
