package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

// pickerPage is the ranked mode chooser (P): each rating queue by its
// mode's menu key, with how many wait in it. It is drawn on the rooms
// page.
type pickerPage struct {
	hand  queueHandOff
	modes func() []lobby.RankedMode
	games func() game.Catalog
	count func(mode string) string // " (1/2)" waiting in mode's queue, or ""
}

// queueHandOff is the router's hand-off to the ranked queue.
type queueHandOff interface {
	queueFor(mode lobby.RankedMode) tea.Cmd
}

func (*pickerPage) modal()     {} // a mode's key may be any letter (light cycles' is t)
func (*pickerPage) overRooms() {}

func (p *pickerPage) update(msg tea.Msg) (page, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return p, nil
	}
	switch s := k.String(); s {
	case "esc", "q":
		return nil, nil
	default:
		for _, q := range p.modes() {
			if _, md, _ := p.games().Ranked(string(q)); md.Key == s {
				return p, p.hand.queueFor(q)
			}
		}
	}
	return p, nil
}

func (p *pickerPage) view() string {
	var keys []string
	for _, q := range p.modes() {
		_, md, _ := p.games().Ranked(string(q))
		keys = append(keys, md.Key+" "+string(q)+p.count(string(q)))
	}
	return "\n" + lipgloss.NewStyle().Bold(true).Foreground(colText).Render("Ranked match") + "\n" +
		style(colDim).Render("  "+strings.Join(append(keys, "esc cancel"), " · ")) + "\n"
}
