package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

// createPage is the create dialog (c): the game (g switches when the
// server runs several), its casual modes by key, public or private. It is
// drawn on the rooms page. The router keeps it, so public/private and the
// bots' level stay as the player last left them.
type createPage struct {
	sh      shell
	hand    joinHandOff
	rooms   roomMaker
	games   func() game.Catalog
	kind    game.Kind // nil: no game to play
	mode    game.Mode
	private bool
	// bots is the practice level: 0 for a room of people, 1 to
	// bot.Levels for one whose other seats are bots.
	bots int
}

// roomMaker is the room directory as the create dialog uses it.
type roomMaker interface {
	Create(game, mode string, private bool) (*lobby.Room, error)
	CreatePractice(game, mode string, level int) (*lobby.Room, error)
}

func (*createPage) modal()     {} // its keys and its modes' are all its own (CheckModeKeys)
func (*createPage) overRooms() {}

// open shows the dialog on the catalogue's first game.
func (c *createPage) open() {
	c.kind, c.mode = nil, game.Mode{}
	c.pickGame(0)
}

func (c *createPage) update(msg tea.Msg) (page, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return c, nil
	}
	switch s := k.String(); s {
	case "esc":
		return nil, nil
	case "p":
		c.private = !c.private
	case "b":
		c.bots = (c.bots + 1) % (bot.Levels + 1)
	case "enter":
		if c.kind == nil {
			return c, nil
		}
		var r *lobby.Room
		var err error
		if c.bots > 0 {
			r, err = c.rooms.CreatePractice(c.kind.Name(), c.mode.Name, c.bots)
		} else {
			r, err = c.rooms.Create(c.kind.Name(), c.mode.Name, c.private)
		}
		if err != nil {
			c.sh.notify(err.Error())
			return nil, nil
		}
		return c, c.hand.join(joinMsg{room: r, side: -1})
	default:
		c.pick(s)
	}
	return c, nil
}

// pickGame sets the dialog on game i of the catalogue (wrapping) and its
// first casual mode.
func (c *createPage) pickGame(i int) {
	gs := c.games()
	if len(gs) == 0 {
		return
	}
	for range gs {
		k := gs[(i%len(gs)+len(gs))%len(gs)]
		for _, md := range k.Modes() {
			if md.Casual {
				c.kind, c.mode = k, md
				return
			}
		}
		i++
	}
}

// pick takes a key: g switches to the next game, a mode's key picks that
// mode of the game shown.
func (c *createPage) pick(s string) {
	if c.kind == nil {
		return
	}
	if s == "g" {
		for i, k := range c.games() {
			if k.Name() == c.kind.Name() {
				c.pickGame(i + 1)
				return
			}
		}
		return
	}
	for _, md := range c.kind.Modes() {
		if md.Casual && md.Key == s {
			c.mode = md
		}
	}
}

func (c *createPage) view() string {
	var b strings.Builder
	b.WriteString("\n" + lipgloss.NewStyle().Bold(true).Foreground(colText).Render("New room") + "\n")
	if c.kind == nil {
		b.WriteString(style(colDim).Render("  no game to play · esc cancel") + "\n")
		return b.String()
	}
	priv := "public"
	if c.private {
		priv = "private (join code)"
	}
	if c.bots > 0 {
		priv = fmt.Sprintf("practice: bots of level %d in the other seats, unrated", c.bots)
	}
	if gs := c.games(); len(gs) > 1 {
		var others []string
		for _, k := range gs {
			if k.Name() != c.kind.Name() {
				others = append(others, k.Title())
			}
		}
		b.WriteString(style(colText).Render(fmt.Sprintf("  game: %s", c.kind.Title())) +
			style(colDim).Render(fmt.Sprintf("   ·   g for %s", strings.Join(others, ", "))) + "\n")
	}
	b.WriteString(style(colText).Render(fmt.Sprintf("  mode: %s   ·   %s", c.mode.Name, priv)) + "\n")
	var keys []string
	for _, md := range c.kind.Modes() {
		if md.Casual {
			keys = append(keys, md.Key+" "+md.Title)
		}
	}
	b.WriteString(style(colDim).Render("  "+strings.Join(append(keys, "p public/private", fmt.Sprintf("b bots (off, 1-%d)", bot.Levels)), " · ")) + "\n")
	b.WriteString(style(colDim).Render("  enter create · esc cancel") + "\n")
	return b.String()
}
