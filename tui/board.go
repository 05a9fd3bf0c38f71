package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/service"
)

// boardScreen is the leaderboard (L): one rating queue's players by
// rating, ←/→ for the next queue, enter for a player's profile. The router
// keeps it between visits, so the board opens on the queue last shown.
type boardScreen struct {
	sh    shell
	q     Queries
	ctx   context.Context
	me    string // the player's fingerprint, for the profiles it opens
	modes []lobby.RankedMode
	mode  lobby.RankedMode
	rows  []service.LeaderboardLine
	sel   int
}

type boardMsg struct {
	mode lobby.RankedMode
	rows []service.LeaderboardLine
	err  error
}

func newBoard(sh shell, q Queries, ctx context.Context, me string, modes []lobby.RankedMode) *boardScreen {
	return &boardScreen{sh: sh, q: q, ctx: ctx, me: me, modes: modes}
}

// open shows the board again: on its queue (the first, the first time),
// read afresh.
func (b *boardScreen) open() tea.Cmd {
	if b.mode == "" && len(b.modes) > 0 {
		b.mode = b.modes[0]
	}
	return b.load()
}

func (b *boardScreen) load() tea.Cmd {
	q, ctx, mode := b.q, b.ctx, b.mode
	return func() tea.Msg {
		lb, err := q.Leaderboard(ctx, string(mode), 100)
		return boardMsg{mode, lb.Players, err}
	}
}

func (b *boardScreen) update(msg tea.Msg) (page, tea.Cmd) {
	switch msg := msg.(type) {
	case boardMsg:
		if msg.err != nil {
			b.sh.notify("Could not read the leaderboard.")
			return b, nil
		}
		if msg.mode == b.mode {
			b.rows = msg.rows
			b.sel = min(b.sel, max(len(b.rows)-1, 0))
		}
	case tea.KeyPressMsg:
		return b.key(msg.String())
	}
	return b, nil
}

func (b *boardScreen) key(s string) (page, tea.Cmd) {
	switch s {
	case "esc", "q":
		return nil, nil
	case "left", "right", "h", "l":
		if len(b.modes) == 0 {
			return b, nil
		}
		i := 0
		for k, md := range b.modes {
			if md == b.mode {
				i = k
			}
		}
		if s == "left" || s == "h" {
			i = (i + len(b.modes) - 1) % len(b.modes)
		} else {
			i = (i + 1) % len(b.modes)
		}
		b.mode, b.rows, b.sel = b.modes[i], nil, 0
		return b, b.load()
	case "up", "k":
		b.sel = max(b.sel-1, 0)
	case "down", "j":
		b.sel = min(b.sel+1, max(len(b.rows)-1, 0))
	case "enter":
		if b.sel < len(b.rows) {
			p := &profileScreen{sh: b.sh, back: b}
			return p, p.load(b.q, b.ctx, b.me, b.rows[b.sel].Name)
		}
	}
	return b, nil
}

func (b *boardScreen) view() string {
	var w strings.Builder
	var tabs []string
	for _, md := range b.modes {
		t := " " + string(md) + " "
		if md == b.mode {
			tabs = append(tabs, lipgloss.NewStyle().Bold(true).Foreground(colGood).Render("["+t+"]"))
		} else {
			tabs = append(tabs, style(colDim).Render(" "+t+" "))
		}
	}
	w.WriteString(lipgloss.NewStyle().Bold(true).Foreground(colText).Render("Leaderboard") + "  " + strings.Join(tabs, "") + "\n\n")
	tail := "\n" + style(colDim).Render("←/→ mode · ↑/↓ choose · enter profile · esc back")
	if len(b.rows) == 0 {
		w.WriteString(style(colDim).Render("  no established ratings in this mode yet (± under 110: about ten games)") + "\n")
		return w.String() + tail
	}
	w.WriteString(style(colDim).Render(fmt.Sprintf("  %4s  %-16s %7s %4s %6s %5s", "RANK", "NAME", "RATING", "±", "GAMES", "WIN%")) + "\n")
	start, end, hint := listWindow(len(b.rows), b.sel, b.sh.listRows(w.String()+tail))
	for i := start; i < end; i++ {
		r := b.rows[i]
		line := fmt.Sprintf("%4d  %-16s %7s %4d %6d %4.0f%%", r.Rank, r.Name, r.Display, r.Deviation, r.Games, r.WinPct)
		st, cur := style(colText), "  "
		if i == b.sel {
			st, cur = lipgloss.NewStyle().Bold(true).Foreground(colGood), "▸ "
		}
		w.WriteString(st.Render(cur+line) + "\n")
	}
	if hint != "" {
		w.WriteString(style(colDim).Render(hint) + "\n")
	}
	return w.String() + tail
}
