package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/termarena/termarena/lobby"
)

// challengePage is the challenge dialog (C): a player from who is online,
// a mode (←/→), casual or ranked (r), enter sends it. It is drawn on the
// rooms page.
type challengePage struct {
	m      *Lobby
	sel    int // the player
	mode   int // into modes
	ranked bool
}

// challengeMode is a mode a challenge can be for: one with a casual room,
// or a ranked queue of two.
type challengeMode struct {
	game, mode     string
	casual, ranked bool
}

func (*challengePage) modal()     {} // its keys are its own
func (*challengePage) overRooms() {}

// openChallengeDialog is the dialog to show, or nil with the notice
// saying why there is none.
func (m *Lobby) openChallengeDialog() (page, tea.Cmd) {
	switch {
	case m.d.Challenges == nil:
		return nil, nil
	case m.challenges == nil:
		m.notice = "Guests can't challenge: connect with an SSH key."
		return nil, nil
	}
	p := &challengePage{m: m}
	if ms := p.modes(); len(ms) > 0 {
		p.ranked = !ms[0].casual
	}
	m.notice = ""
	return p, nil
}

// challengeLabel is the challenge key in the rooms page's key line: not
// for guests, who cannot challenge.
func (m *Lobby) challengeLabel() string {
	if m.d.Challenges == nil || m.d.Player.Guest {
		return ""
	}
	return "C challenge someone online"
}

// players are the online players one may challenge: everyone listed but
// the player.
func (p *challengePage) players() []string {
	var out []string
	for _, o := range p.m.people.who.Players {
		if o.Name != p.m.d.Player.Name {
			out = append(out, o.Name+" ("+o.Activity()+")")
		}
	}
	return out
}

func (p *challengePage) modes() []challengeMode {
	var out []challengeMode
	for _, k := range p.m.games() {
		for _, md := range k.Modes() {
			cm := challengeMode{game: k.Name(), mode: md.Name, casual: md.Casual, ranked: md.Ranked != "" && md.Table == 2}
			if cm.casual || cm.ranked {
				out = append(out, cm)
			}
		}
	}
	return out
}

func (p *challengePage) update(msg tea.Msg) (page, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return p, nil
	}
	players, modes := p.players(), p.modes()
	switch k.String() {
	case "esc", "q":
		return nil, nil
	case "up", "k":
		p.sel = max(p.sel-1, 0)
	case "down", "j":
		p.sel = min(p.sel+1, max(len(players)-1, 0))
	case "left", "h", "right", "l", "tab":
		if len(modes) == 0 {
			break
		}
		d := 1
		if s := k.String(); s == "left" || s == "h" {
			d = len(modes) - 1
		}
		p.mode = (p.mode + d) % len(modes)
		cm := modes[p.mode]
		p.ranked = (p.ranked && cm.ranked) || !cm.casual
	case "r":
		if len(modes) > 0 {
			cm := modes[p.mode]
			p.ranked = (!p.ranked && cm.ranked) || !cm.casual
		}
	case "enter":
		if len(players) == 0 || len(modes) == 0 {
			break
		}
		name, _, _ := strings.Cut(players[min(p.sel, len(players)-1)], " (")
		cm := modes[p.mode]
		p.m.issueChallenge(name, lobby.ChallengeSpec{Game: cm.game, Mode: cm.mode, Ranked: p.ranked})
		return nil, nil
	}
	return p, nil
}

func (p *challengePage) view() string {
	var b strings.Builder
	b.WriteString("\n" + lipgloss.NewStyle().Bold(true).Foreground(colText).Render("Challenge someone") + "\n")
	players := p.players()
	if len(players) == 0 {
		b.WriteString(style(colDim).Render("  nobody else with a key is online") + "\n")
	}
	start, end, hint := listWindow(len(players), p.sel, 4)
	for i := start; i < end; i++ {
		line, st := "  "+players[i], style(colText)
		if i == p.sel {
			line, st = "▸ "+players[i], lipgloss.NewStyle().Bold(true).Foreground(colGood)
		}
		b.WriteString(st.Render(p.m.listLine(line)) + "\n")
	}
	if hint != "" {
		b.WriteString(style(colDim).Render(hint) + "\n")
	}
	if modes := p.modes(); len(modes) > 0 {
		cm := modes[min(p.mode, len(modes)-1)]
		kind := "casual"
		if p.ranked {
			kind = "ranked (rated)"
		}
		b.WriteString(style(colText).Render(fmt.Sprintf("  mode  ◂ %s-%s ▸   %s", cm.game, cm.mode, kind)) + "\n")
	}
	b.WriteString(style(colDim).Render(p.m.listLine("  ↑/↓ player · ←/→ mode · r casual/ranked · enter challenge · esc cancel")) + "\n")
	return b.String()
}
