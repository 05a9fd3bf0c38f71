package tui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/service"
)

// queued is a session waiting in a ranked queue.
type queued struct {
	ticket *lobby.Ticket
	cancel context.CancelFunc
	since  time.Time
}

type (
	queueTickMsg struct{}
	matchedMsg   struct{ room *lobby.Room }
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
	r, _, err := m.d.Store.Rating(string(mode), string(m.d.Player.ID))
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
	ctx, cancel := context.WithCancel(m.d.Ctx)
	m.queue = &queued{ticket: t, cancel: cancel, since: time.Now()}
	m.state, m.notice, m.help = stQueue, "", false
	return tea.Batch(queueTick(), func() tea.Msg {
		select {
		case r := <-t.Room():
			return matchedMsg{r}
		case <-ctx.Done():
			return nil
		}
	})
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

func queueTick() tea.Cmd {
	return tea.Tick(250*time.Millisecond, func(time.Time) tea.Msg { return queueTickMsg{} })
}

// leaveQueue takes the player out of the queue.
func (m *Lobby) leaveQueue() {
	if m.queue == nil {
		return
	}
	m.queue.cancel()
	m.d.Matchmaker.Leave(string(m.d.Player.ID))
	m.queue = nil
	if m.state == stQueue {
		m.state = stLobby
	}
}

func (m *Lobby) renderQueue() string {
	q := m.queue
	waited, lo, hi, queued, ok := m.d.Matchmaker.Status(q.ticket)
	if !ok {
		return style(colText).Render("Match found — joining…")
	}
	return queueText(q.ticket.Mode, waited, lo, hi, queued, m.d.Matchmaker.TableSize(q.ticket.Mode))
}

// queueText is the queue screen: how long the player has waited, the
// ratings they accept, how many wait and how many a match needs (a
// four-rider table can take a while to fill), and — until it accepts
// anyone — that the range widens.
func queueText(mode lobby.RankedMode, waited time.Duration, lo, hi float64, queued, need int) string {
	anyone := math.IsInf(lo, 0) || math.IsInf(hi, 0)
	rng := "any rating"
	if !anyone {
		rng = fmt.Sprintf("%.0f – %.0f", math.Max(lo, 0), hi)
	}
	var b strings.Builder
	b.WriteString(lipgloss.NewStyle().Bold(true).Foreground(colText).Render("Looking for a "+string(mode)+" match") + "\n\n")
	b.WriteString(style(colText).Render(fmt.Sprintf("  waited        %d:%02d", int(waited.Minutes()), int(waited.Seconds())%60)) + "\n")
	b.WriteString(style(colText).Render("  rating range  "+rng) + "\n")
	inQueue := fmt.Sprintf("  in the queue  %d", queued)
	if need > 0 {
		inQueue += fmt.Sprintf(" · a match needs %d players", need)
	}
	b.WriteString(style(colText).Render(inQueue) + "\n\n")
	hint := "  the range widens the longer you wait · esc leave the queue"
	if anyone {
		hint = "  you are matched with anyone who queues · esc leave the queue"
	}
	b.WriteString(style(colDim).Render(hint) + "\n")
	return b.String()
}

// Queries are what the leaderboard and profile screens read: the service
// layer's queries, the same the `leaderboard` and `profile` commands ask.
type Queries interface {
	Leaderboard(ctx context.Context, mode string, limit int) (service.Leaderboard, error)
	Profile(ctx context.Context, fp string) (service.Profile, error)
	ProfileNamed(ctx context.Context, name string) (service.Profile, error)
}
