package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/termarena/termarena/service"
)

// WhoSource says who is online and what each is doing, with a channel
// closed when that changes: *service.Service implements it. Who must not
// block: the lobby reads it in Update when it comes back from a game.
type WhoSource interface {
	Who(ctx context.Context) (service.Who, <-chan struct{}, error)
}

// people is the lobby's who-is-online line and queue counts: the last
// listing read, and whether a watcher for the next is armed (not while a
// game screen is up: see livePaused).
type people struct {
	who  service.Who
	read bool // who holds a listing
	live bool
}

// whoMsg is a listing read, with the channel closed when it changes.
type whoMsg struct {
	who  service.Who
	next <-chan struct{}
	err  error
}

// readWho reads who is online now; nil without a source.
func (m *Lobby) readWho() tea.Cmd {
	src, ctx := m.d.Who, m.d.Ctx
	if src == nil {
		return nil
	}
	m.people.live = true
	return func() tea.Msg {
		w, next, err := src.Who(ctx)
		return whoMsg{w, next, err}
	}
}

// onWho takes a listing and, unless a game screen is up, waits for the
// next change.
func (m *Lobby) onWho(msg whoMsg) (tea.Model, tea.Cmd) {
	if msg.err != nil {
		// The count line still shows; the names come back with the next
		// read (the session ending is the usual cause).
		m.people.live = false
		return m, nil
	}
	if m.livePaused() {
		// A game screen is up and shows no listing: hold none until the
		// lobby is back (resumeWho reads it then, before the lobby is
		// drawn). Kept, every player in a game pinned the listing of his
		// last read, one version of every player online each.
		m.people.live = false
		m.people.who, m.people.read = service.Who{}, false
		return m, nil
	}
	m.people.who, m.people.read = msg.who, true
	src, ctx := m.d.Who, m.d.Ctx
	// Every move of anyone wakes every lobby: a burst of moves is one
	// read a gap per lobby, not one per move each.
	return m, afterChange(ctx, msg.next, liveGapFor(m.online), func() tea.Msg {
		w, next, err := src.Who(ctx)
		return whoMsg{w, next, err}
	})
}

// resumeWho re-reads the listing after a game screen, when it was not
// followed meanwhile. It reads at once, not by a command, so the lobby's
// first picture after the game names the players as before it.
func (m *Lobby) resumeWho() tea.Cmd {
	if m.people.live || m.livePaused() || m.d.Who == nil {
		return nil
	}
	m.people.live = true
	w, next, err := m.d.Who.Who(m.d.Ctx)
	_, cmd := m.onWho(whoMsg{w, next, err})
	return cmd
}

// onlineLine is the lobby's "● 4 players online: alice (playing r3), bob
// (lobby), 1 guest" line (the player reading it is in the count, not named), cut to width with how many more there
// are. Without a listing it is the count alone.
func (m *Lobby) onlineLine(width int) string {
	players := "players"
	if m.online == 1 {
		players = "player"
	}
	head := fmt.Sprintf("● %d %s online", m.online, players)
	if !m.people.read {
		return style(colText).Render(head)
	}
	w := m.people.who
	var items []string
	for _, p := range w.Players {
		if p.Name == m.d.Player.Name {
			continue // the player knows where they are; the count has them
		}
		items = append(items, p.Name+" ("+doingShort(p)+")")
	}
	switch w.Guests {
	case 0:
	case 1:
		items = append(items, "1 guest")
	default:
		items = append(items, fmt.Sprintf("%d guests", w.Guests))
	}
	if len(items) == 0 {
		return style(colText).Render(head)
	}
	line := head + ": "
	for i, it := range items {
		sep := ""
		if i > 0 {
			sep = ", "
		}
		rest := len(items) - i - 1
		more := ""
		if rest > 0 {
			more = fmt.Sprintf(", +%d more", rest)
		}
		if lipgloss.Width(line+sep+it+more) > width {
			// What does not fit is counted, never cut mid-name.
			if i == 0 {
				return style(colText).Render(head) + style(colDim).Render(fmt.Sprintf(": %d more (ssh HOST who)", len(items)))
			}
			return style(colText).Render(line) + style(colDim).Render(fmt.Sprintf(", +%d more", len(items)-i))
		}
		line += sep + it
	}
	return style(colText).Render(line)
}

// queueLine is the ranked queues' counts ("in ranked queues: pong-1v1 1/2
// · tron-ffa 2/4", waiting/needed), or "" when nobody waits: the line
// appears when there is someone to be matched with.
func (m *Lobby) queueLine() string {
	if !m.people.read || m.d.Matchmaker == nil {
		return ""
	}
	var qs []string
	for _, q := range m.people.who.Queues {
		if q.Waiting > 0 {
			qs = append(qs, fmt.Sprintf("%s %d/%d", q.Mode, q.Waiting, q.Needs))
		}
	}
	if len(qs) == 0 {
		return ""
	}
	return style(colText).Render("● in ranked queues: " + strings.Join(qs, " · "))
}

// queueCount is how many wait in a ranked mode's queue, for the mode
// chooser: " (1 waiting)", or "" when none or unknown.
func (m *Lobby) queueCount(mode string) string {
	for _, q := range m.people.who.Queues {
		if q.Mode == mode && q.Waiting > 0 {
			return fmt.Sprintf(" (%d/%d)", q.Waiting, q.Needs)
		}
	}
	return ""
}

// doingShort is an activity in the lobby line's few words: "lobby",
// "queue pong-1v1", "playing r3", "watching r2", "replay 42".
func doingShort(p service.OnlinePlayer) string {
	switch {
	case p.Mode != "" && p.Casual:
		return p.Doing + " " + p.Mode + " casual"
	case p.Mode != "":
		return p.Doing + " " + p.Mode
	case p.Room != "":
		return p.Doing + " " + p.Room
	case p.Match != "":
		return p.Doing + " " + p.Match
	}
	return p.Doing
}
