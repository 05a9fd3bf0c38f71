package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/termarena/termarena/service"
)

// profileScreen is a player's profile: the player's own (m) or one picked
// on the leaderboard, which esc goes back to.
type profileScreen struct {
	sh   shell
	back page // what esc shows: the leaderboard, or nil for the rooms list
	p    *service.Profile
}

type profileMsg struct {
	service.Profile
	err error
}

// load reads the profile of the player named name, or the player's own
// (fingerprint me) for "": the same query as `profile`.
func (p *profileScreen) load(q Queries, ctx context.Context, me, name string) tea.Cmd {
	return func() tea.Msg {
		var pr service.Profile
		var err error
		if name == "" {
			pr, err = q.Profile(ctx, me)
		} else {
			pr, err = q.ProfileNamed(ctx, name)
		}
		return profileMsg{pr, err}
	}
}

func (p *profileScreen) update(msg tea.Msg) (page, tea.Cmd) {
	switch msg := msg.(type) {
	case profileMsg:
		if msg.err != nil {
			p.sh.notify("Could not read that profile.")
			return p.back, nil
		}
		p.p = &msg.Profile
	case tea.KeyPressMsg:
		if s := msg.String(); s == "esc" || s == "q" {
			return p.back, nil
		}
	}
	return p, nil
}

func (p *profileScreen) view() string {
	pr := p.p
	if pr == nil {
		return style(colDim).Render("loading…")
	}
	var b strings.Builder
	b.WriteString(lipgloss.NewStyle().Bold(true).Foreground(colGood).Render(pr.Name) +
		style(colDim).Render("  since "+pr.Player.FirstSeen.UTC().Format("2006-01-02")) + "\n\n")
	if len(pr.Ratings) == 0 {
		b.WriteString(style(colDim).Render("  no rated games yet") + "\n")
	} else {
		b.WriteString(style(colDim).Render(fmt.Sprintf("  %-10s %-12s %-8s %6s %4s %4s", "MODE", "RATING", "RANK", "GAMES", "W", "L")) + "\n")
		for _, r := range pr.Ratings {
			rank := "?"
			if r.Rank > 0 {
				rank = fmt.Sprintf("#%d", r.Rank)
			}
			b.WriteString(style(colText).Render(fmt.Sprintf("  %-10s %-12s %-8s %6d %4d %4d", r.Mode, r.WithDeviation, rank, r.Games, r.Wins, r.Losses)) + "\n")
		}
	}
	if len(pr.Matches) > 0 {
		b.WriteString("\n" + lipgloss.NewStyle().Bold(true).Foreground(colText).Render("Last matches") + "\n")
		rows := max(p.sh.listH()-18, 3)
		for i, mt := range pr.Matches {
			if i >= rows {
				break
			}
			b.WriteString(style(colText).Render("  "+matchLine(mt, pr.Player.Fingerprint)) + "\n")
		}
	}
	b.WriteString("\n" + style(colDim).Render("esc back"))
	return b.String()
}

// matchLine is one match from one player's side: "pong-1v1  won  11–7 vs bob  +14".
func matchLine(mt service.Match, fp string) string {
	var me *service.MatchPlayer
	for i := range mt.Players {
		if p := &mt.Players[i]; p.Fingerprint == fp && fp != "" {
			me = p
		}
	}
	if me == nil {
		return mt.Mode
	}
	// With teams, teammates are "with", not opponents (a 2v2 listed the
	// partner among those played against), and a team's shared score is
	// said once.
	teams := slices.ContainsFunc(mt.Players, func(p service.MatchPlayer) bool { return p.Team != 0 })
	var mates, others []string
	theirs := map[int]int{} // an opposing team's score
	for i := range mt.Players {
		p := &mt.Players[i]
		switch {
		case p == me:
		case teams && p.Team == me.Team:
			mates = append(mates, p.Name)
		case teams:
			others = append(others, p.Name)
			theirs[p.Team] = p.Score
		default:
			others = append(others, fmt.Sprintf("%s %d", p.Name, p.Score))
		}
	}
	vs := strings.Join(others, ", ")
	if teams {
		vs = strings.Join(others, " + ")
		for _, sc := range theirs {
			vs += fmt.Sprintf(" %d", sc)
		}
		if len(mates) > 0 {
			vs = "with " + strings.Join(mates, " + ") + " vs " + vs
		} else {
			vs = "vs " + vs
		}
	} else {
		vs = "vs " + vs
	}
	res := "won"
	switch {
	case mt.Aborted:
		res = "aborted"
	case mt.Abandoned:
		res = "abandoned"
	case me.Place != 1:
		res = fmt.Sprintf("%d%s", me.Rank, ordinalSuffix(me.Rank))
	}
	change := ""
	if mt.Ranked && !mt.Aborted {
		change = fmt.Sprintf("  %+d", me.RatingAfter-me.RatingBefore)
	}
	return fmt.Sprintf("%-10s %-7s %d %s%s", mt.Mode, res, me.Score, vs, change)
}

func ordinalSuffix(n int) string {
	switch n {
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}
