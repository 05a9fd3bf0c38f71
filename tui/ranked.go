package tui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
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
	boardMsg     struct {
		mode lobby.RankedMode
		rows []service.LeaderboardLine
		err  error
	}
	profileMsg struct {
		service.Profile
		err error
	}
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
		if m.state == stChoose {
			m.state = stLobby // where b works
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

func (m *Lobby) loadBoard(mode lobby.RankedMode) tea.Cmd {
	q, ctx := m.queries, m.d.Ctx
	return func() tea.Msg {
		lb, err := q.Leaderboard(ctx, string(mode), 100)
		return boardMsg{mode, lb.Players, err}
	}
}

// loadProfile reads the profile of the player named name, or the
// player's own for "": the same query as `profile`.
func (m *Lobby) loadProfile(name string) tea.Cmd {
	q, ctx := m.queries, m.d.Ctx
	me := string(m.d.Player.ID)
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

func (m *Lobby) renderBoard() string {
	var b strings.Builder
	var tabs []string
	for _, md := range m.rankedModes() {
		t := " " + string(md) + " "
		if md == m.boardMode {
			tabs = append(tabs, lipgloss.NewStyle().Bold(true).Foreground(colGood).Render("["+t+"]"))
		} else {
			tabs = append(tabs, style(colDim).Render(" "+t+" "))
		}
	}
	b.WriteString(lipgloss.NewStyle().Bold(true).Foreground(colText).Render("Leaderboard") + "  " + strings.Join(tabs, "") + "\n\n")
	tail := "\n" + style(colDim).Render("←/→ mode · ↑/↓ choose · enter profile · esc back")
	if len(m.board) == 0 {
		b.WriteString(style(colDim).Render("  no established ratings in this mode yet (± under 110: about ten games)") + "\n")
		return b.String() + tail
	}
	b.WriteString(style(colDim).Render(fmt.Sprintf("  %4s  %-16s %7s %4s %6s %5s", "RANK", "NAME", "RATING", "±", "GAMES", "WIN%")) + "\n")
	start, end, hint := listWindow(len(m.board), m.boardSel, m.listRows(b.String()+tail))
	for i := start; i < end; i++ {
		r := m.board[i]
		line := fmt.Sprintf("%4d  %-16s %7s %4d %6d %4.0f%%", r.Rank, r.Name, r.Display, r.Deviation, r.Games, r.WinPct)
		st, cur := style(colText), "  "
		if i == m.boardSel {
			st, cur = lipgloss.NewStyle().Bold(true).Foreground(colGood), "▸ "
		}
		b.WriteString(st.Render(cur+line) + "\n")
	}
	if hint != "" {
		b.WriteString(style(colDim).Render(hint) + "\n")
	}
	return b.String() + tail
}

func (m *Lobby) renderProfile() string {
	p := m.profile
	if p == nil {
		return style(colDim).Render("loading…")
	}
	var b strings.Builder
	b.WriteString(lipgloss.NewStyle().Bold(true).Foreground(colGood).Render(p.Name) +
		style(colDim).Render("  since "+p.Player.FirstSeen.UTC().Format("2006-01-02")) + "\n\n")
	if len(p.Ratings) == 0 {
		b.WriteString(style(colDim).Render("  no rated games yet") + "\n")
	} else {
		b.WriteString(style(colDim).Render(fmt.Sprintf("  %-10s %-12s %-8s %6s %4s %4s", "MODE", "RATING", "RANK", "GAMES", "W", "L")) + "\n")
		for _, r := range p.Ratings {
			rank := "?"
			if r.Rank > 0 {
				rank = fmt.Sprintf("#%d", r.Rank)
			}
			b.WriteString(style(colText).Render(fmt.Sprintf("  %-10s %-12s %-8s %6d %4d %4d", r.Mode, r.WithDeviation, rank, r.Games, r.Wins, r.Losses)) + "\n")
		}
	}
	if len(p.Matches) > 0 {
		b.WriteString("\n" + lipgloss.NewStyle().Bold(true).Foreground(colText).Render("Last matches") + "\n")
		rows := max(m.listH()-18, 3)
		for i, mt := range p.Matches {
			if i >= rows {
				break
			}
			b.WriteString(style(colText).Render("  "+matchLine(mt, p.Player.Fingerprint)) + "\n")
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

// Queries are what the leaderboard and profile screens read: the service
// layer's queries, the same the `leaderboard` and `profile` commands ask.
type Queries interface {
	Leaderboard(ctx context.Context, mode string, limit int) (service.Leaderboard, error)
	Profile(ctx context.Context, fp string) (service.Profile, error)
	ProfileNamed(ctx context.Context, name string) (service.Profile, error)
}
