package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

// quickPage is the casual quick-match queue screen: "play anyone,
// unrated". It holds the player's ticket; leaving the page leaves the
// queue.
type quickPage struct {
	hand   quickHandOff
	qm     *lobby.QuickMatch
	me     string
	ticket *lobby.Ticket
	cancel context.CancelFunc
}

// quickHandOff is the router's hand-off to a room, and its notice line.
type quickHandOff interface {
	join(j joinMsg) tea.Cmd
	notify(text string)
}

// quickMatchedMsg delivers a quick match's room (nil: it could not be
// made) to the ticket's page.
type quickMatchedMsg struct {
	ticket *lobby.Ticket
	room   *lobby.Room
}

func (*quickPage) modal() {} // esc and q leave the queue; chat waits

// clocked: the wait is counted in seconds on screen.
func (*quickPage) clocked() bool { return true }

// leave takes the player out of the queue.
func (p *quickPage) leave() {
	p.cancel()
	p.qm.Leave(p.me)
}

func (p *quickPage) update(msg tea.Msg) (page, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if s := msg.String(); s == "esc" || s == "q" {
			p.leave()
			return nil, nil
		}
	case quickMatchedMsg:
		if msg.ticket != p.ticket {
			return p, nil
		}
		p.cancel()
		if msg.room == nil {
			p.hand.notify("Your quick match could not start: the server has as many rooms as it runs. Try again soon.")
			return nil, nil
		}
		side := -1
		if s, ok := msg.room.Seats[game.PlayerID(p.me)]; ok {
			side = s
		}
		return nil, p.hand.join(joinMsg{room: msg.room, side: side})
	}
	return p, nil
}

func (p *quickPage) view() string {
	waited, queued, need, ok := p.qm.Status(p.ticket)
	if !ok {
		return style(colText).Render("Match found — joining…")
	}
	return quickText(string(p.ticket.Mode), waited, queued, need)
}

// quickText is the quick-match queue screen, shaped like the ranked one
// without a rating range.
func quickText(mode string, waited time.Duration, queued, need int) string {
	var b strings.Builder
	b.WriteString(lipgloss.NewStyle().Bold(true).Foreground(colText).Render("Looking for a casual "+mode+" match") + "\n\n")
	b.WriteString(style(colText).Render("  anyone, unrated: no rating is at stake") + "\n")
	b.WriteString(style(colText).Render(fmt.Sprintf("  waited        %d:%02d", int(waited.Minutes()), int(waited.Seconds())%60)) + "\n")
	b.WriteString(style(colText).Render(fmt.Sprintf("  in the queue  %d · a match needs %d players", queued, need)) + "\n\n")
	b.WriteString(style(colDim).Render("  the room is public: others may join it · esc leave the queue") + "\n")
	return b.String()
}

// queueQuick puts the player in the quick-match queue key and shows its
// screen.
func (m *Lobby) queueQuick(key string) tea.Cmd {
	if m.d.Quick == nil || m.d.Rooms == nil {
		return nil
	}
	// A seat held in a running match comes first, as for ranked.
	if held, ok := m.d.Rooms.Holding(m.d.Player.ID); ok {
		return m.join(joinMsg{room: held, side: -1})
	}
	var mode lobby.QuickMode
	for _, q := range m.d.Quick.Modes() {
		if q.Key == key {
			mode = q
		}
	}
	if k, md, ok := m.games().Mode(mode.Game, mode.Mode); ok {
		if why := m.d.Views.TooSmall(key, k.Name(), md.Name, m.w, m.h); why != "" {
			m.notice = why + "."
			return nil
		}
	}
	m.leavePage() // a ranked or quick-match queue
	t, err := m.d.Quick.Join(key, string(m.d.Player.ID), m.d.Player.Name)
	if err != nil {
		m.notice = sentence(strings.TrimPrefix(err.Error(), "lobby: "))
		return nil
	}
	ctx, cancel := context.WithCancel(m.d.Ctx)
	m.show(&quickPage{hand: m, qm: m.d.Quick, me: string(m.d.Player.ID), ticket: t, cancel: cancel})
	m.notice, m.help = "", false
	return func() tea.Msg {
		select {
		case r := <-t.Room():
			return quickMatchedMsg{t, r}
		case <-ctx.Done():
			return nil
		}
	}
}

// where is the queue the player waits in, for Where.
func (p *quickPage) where() string { return "quick " + string(p.ticket.Mode) }

// quickPickerPage chooses a quick-match queue (a): each casual mode by
// number, with how many wait in it. It is drawn on the rooms page.
type quickPickerPage struct {
	m *Lobby
}

func (*quickPickerPage) modal()     {}
func (*quickPickerPage) overRooms() {}

func (p *quickPickerPage) update(msg tea.Msg) (page, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return p, nil
	}
	s := k.String()
	if s == "esc" || s == "q" {
		return nil, nil
	}
	for i, q := range p.m.d.Quick.Modes() {
		if s == fmt.Sprint(i+1) {
			cmd := p.m.queueQuick(q.Key)
			if qp, ok := p.m.scr.(*quickPage); ok {
				return qp, cmd // the queue screen queueQuick showed
			}
			return nil, cmd
		}
	}
	return p, nil
}

func (p *quickPickerPage) view() string {
	counts := map[string]lobby.QueueCount{}
	for _, c := range p.m.d.Quick.Queued() {
		counts[string(c.Mode)] = c
	}
	var keys []string
	for i, q := range p.m.d.Quick.Modes() {
		item := fmt.Sprintf("%d %s", i+1, q.Key)
		if c := counts[q.Key]; c.Waiting > 0 {
			item += fmt.Sprintf(" (%d/%d)", c.Waiting, c.Table)
		}
		keys = append(keys, item)
	}
	return "\n" + lipgloss.NewStyle().Bold(true).Foreground(colText).Render("Play anyone, unrated") + "\n" +
		style(colDim).Render(wrapWords(append(keys, "esc cancel"), " · ", max(p.m.w-12, 30), "  ")) + "\n"
}

// quickLabel is the quick match's key in the rooms page's key line, ""
// where the server has none.
func (m *Lobby) quickLabel() string {
	if m.d.Quick == nil || m.d.Rooms == nil {
		return ""
	}
	return "a play anyone, unrated"
}

// findHelp is the help's line for finding someone to play, "" where the
// server has neither quick matches nor challenges.
func (m *Lobby) findHelp() string {
	var keys []string
	if m.quickLabel() != "" {
		keys = append(keys, "a  play anyone, unrated")
	}
	if m.challengeLabel() != "" {
		keys = append(keys, "C  challenge someone · y/n  answer one")
	}
	return strings.Join(keys, " · ")
}
