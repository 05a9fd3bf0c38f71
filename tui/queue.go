package tui

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/termarena/termarena/lobby"
)

// queuePage is the ranked queue (p, a mode in P, `ssh -t host play`):
// how long the player has waited, the ratings they accept, how many wait;
// esc or q leaves the queue. It holds the player's ticket: the router lets
// it go (leave) when the session ends with the page on screen.
type queuePage struct {
	desk   queueDesk
	hand   matchSeater
	ticket *lobby.Ticket
	cancel context.CancelFunc // stops the wait for the ticket's room
	// bots, when the server runs bots for the mode's game, offers a
	// player left alone in the queue a practice match; nil: no offer.
	bots *botOffer
}

// DefaultBotOfferAfter is how long a player waits alone in a ranked queue
// before its screen offers a bot. Half the minute after which the queue
// takes anyone (lobby's widening): long enough that someone who just
// queued is not talked out of the wait for a match that may be seconds
// away, short enough that nobody sits a minute at an empty server. A
// constant rather than a flag: it is how the screen talks, not an
// operator's trade-off (operators turn bots off with --bots=false).
const DefaultBotOfferAfter = 30 * time.Second

// botOffer is the queue screen's offer of a practice match: after
// waiting alone this long, b leaves the queue for a practice room of the
// mode with bots of level (near the player's rating, lobby.BotLevelFor);
// start opens it. Ignoring the offer keeps the player queued.
type botOffer struct {
	after time.Duration
	level int
	start func(level int) tea.Cmd
}

// queueDesk is the matchmaker as the queue screen uses it.
type queueDesk interface {
	Status(t *lobby.Ticket) (waited time.Duration, lo, hi float64, queued int, ok bool)
	TableSize(mode lobby.RankedMode) int
	Leave(id string)
	// Scope says, in a cluster, which node the player waits on and how
	// many wait on the others (shared false on a single node).
	Scope(mode lobby.RankedMode) (node string, elsewhere int, shared bool)
}

// matchSeater is the router's hand-off to the room a match was made in
// (nil: the match could not start).
type matchSeater interface {
	seatMatch(r *lobby.Room) tea.Cmd
}

type matchedMsg struct{ room *lobby.Room }

// newQueuePage waits on ticket t for its room until ctx ends; the command
// is that wait. The screen's clock is the lobby's (clocked).
func newQueuePage(ctx context.Context, desk queueDesk, hand matchSeater, t *lobby.Ticket) (*queuePage, tea.Cmd) {
	ctx, cancel := context.WithCancel(ctx)
	p := &queuePage{desk: desk, hand: hand, ticket: t, cancel: cancel}
	return p, func() tea.Msg {
		select {
		case r := <-t.Room():
			return matchedMsg{r}
		case <-ctx.Done():
			return nil
		}
	}
}

// clocked: the wait is counted in seconds on screen, and the count of who
// waits is read as it is drawn.
func (p *queuePage) clocked() bool { return true }

func (p *queuePage) update(msg tea.Msg) (page, tea.Cmd) {
	switch msg := msg.(type) {
	case matchedMsg:
		p.cancel()
		return nil, p.hand.seatMatch(msg.room)
	case tea.KeyPressMsg:
		if s := msg.String(); s == "esc" || s == "q" {
			p.leave()
			return nil, nil
		}
		if msg.String() == "b" && p.offering() {
			p.leave()
			return nil, p.bots.start(p.bots.level)
		}
	}
	return p, nil
}

// offering reports whether the screen offers a bot now: the player has
// waited alone (nobody else in the queue) at least bots.after.
func (p *queuePage) offering() bool {
	if p.bots == nil {
		return false
	}
	waited, _, _, queued, ok := p.desk.Status(p.ticket)
	return ok && p.everywhere(queued) <= 1 && waited >= p.bots.after
}

// everywhere is how many wait in the player's queue on every node, given
// queued here: in a cluster one matchmaker pairs them all, so a player
// alone on this node with another waiting on n3 is not alone.
func (p *queuePage) everywhere(queued int) int {
	if _, elsewhere, shared := p.desk.Scope(p.ticket.Mode); shared {
		return queued + elsewhere
	}
	return queued
}

// leave takes the player out of the queue.
func (p *queuePage) leave() {
	p.cancel()
	p.desk.Leave(p.ticket.ID)
}

// where is the page in `admin sessions`' words.
func (p *queuePage) where() string { return "queue " + string(p.ticket.Mode) }

func (p *queuePage) view() string {
	waited, lo, hi, queued, ok := p.desk.Status(p.ticket)
	if !ok {
		return style(colText).Render("Match found — joining…")
	}
	s := queueText(p.ticket.Mode, waited, lo, hi, queued, p.everywhere(queued), p.desk.TableSize(p.ticket.Mode))
	if node, elsewhere, shared := p.desk.Scope(p.ticket.Mode); shared {
		s += clusterQueueText(node, elsewhere)
	}
	if p.offering() {
		s += "\n" + lipgloss.NewStyle().Bold(true).Foreground(colText).Render(
			fmt.Sprintf("  Nobody else is queueing. b plays a level-%d bot now", p.bots.level)) + "\n" +
			style(colDim).Render("  (practice: unrated) · or keep waiting here for a person") + "\n"
	}
	return s
}

// clusterQueueText tells a player in a cluster's queue that it is one
// queue: the cluster's one matchmaker pairs players on every node (the
// match is played on the node of the one who queued first, from any
// node), and how many wait on other nodes besides the count shown.
func clusterQueueText(node string, elsewhere int) string {
	// Two short lines: the queue box is narrower than the terminal.
	s := style(colDim).Render(fmt.Sprintf("  matched with players on every node (this is %s)", node)) + "\n"
	switch {
	case elsewhere == 1:
		s += style(colDim).Render("  1 more waits on other nodes") + "\n"
	case elsewhere > 1:
		s += style(colDim).Render(fmt.Sprintf("  %d more wait on other nodes", elsewhere)) + "\n"
	}
	return s
}

// queueText is the queue screen: how long the player has waited, the
// ratings they accept, how many wait here (queued; everywhere counts
// every node's) and how many a match needs (a
// four-rider table can take a while to fill), and — until it accepts
// anyone — that the range widens.
func queueText(mode lobby.RankedMode, waited time.Duration, lo, hi float64, queued, everywhere, need int) string {
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
	// Enough wait for a match, yet none formed (a wave pairs the moment
	// a table fits): the others are outside the range, and "a match
	// needs 2 players" beside 2 waiting would read as a fault.
	outside := need > 0 && everywhere >= need && !anyone
	switch {
	case outside:
		inQueue += " · the others wait outside your rating range"
	case need > 0:
		inQueue += fmt.Sprintf(" · a match needs %d players", need)
	}
	b.WriteString(style(colText).Render(inQueue) + "\n\n")
	hint := "  the range widens the longer you wait · esc leave the queue"
	switch {
	case anyone:
		hint = "  you are matched with anyone who queues · esc leave the queue"
	case outside:
		left := max(lobby.AnyoneAfter-waited, 0).Round(time.Second)
		hint = fmt.Sprintf("  the range widens by %.0f every %d s, to anyone in %d s\n  esc leave the queue",
			lobby.ToleranceStep, int(lobby.ToleranceEvery.Seconds()), int(left.Seconds()))
	}
	b.WriteString(style(colDim).Render(hint) + "\n")
	return b.String()
}
