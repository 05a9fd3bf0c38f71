package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// codePage is the join-code dialog (/ or J): a private room's code, typed
// and joined with enter. It is drawn on the rooms page.
type codePage struct {
	hand joinHandOff
	code string
}

// joinHandOff is the router's hand-off to a room.
type joinHandOff interface {
	join(j joinMsg) tea.Cmd
}

func (*codePage) modal()     {} // it takes every letter, t included
func (*codePage) overRooms() {}

func (c *codePage) update(msg tea.Msg) (page, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return c, nil
	}
	switch s := k.String(); {
	case s == "esc":
		return nil, nil
	case s == "enter":
		return nil, c.hand.join(joinMsg{ref: c.code, side: -1})
	case s == "backspace":
		if r := []rune(c.code); len(r) > 0 {
			c.code = string(r[:len(r)-1])
		}
	case len(k.Text) == 1 && isCodeChar(k.Text[0]) && len(c.code) < 72:
		c.code += strings.ToLower(k.Text)
	}
	return c, nil
}

func (c *codePage) view() string {
	return "\n" + style(colText).Render("Join code: ") + lipgloss.NewStyle().Bold(true).Foreground(colGood).Render(c.code+"▏") + "\n" +
		style(colDim).Render("  enter join · esc cancel") + "\n"
}

// isCodeChar: a join code's letters, and a room id's, which in a cluster
// carries a node's name ("r3@node-2.example").
func isCodeChar(b byte) bool {
	return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || strings.IndexByte("@.-_", b) >= 0
}
