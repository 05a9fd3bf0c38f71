package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/lobby"
)

// chooserPage is "Watch a live room" (w): the live rooms with their
// players, score and watchers, following the list as rooms come and go.
// The router keeps it between visits, with its cursor.
type chooserPage struct {
	sh     shell
	hand   watchHandOff
	rooms  liveLister
	ctx    context.Context
	rr     ratingReader                          // nil: no ratings shown
	scores func(game string) gameview.Scoreboard // a game's scoreboard, or nil
	live   []*lobby.Room
	// remote are other nodes' watchable rooms in a cluster, listed after
	// this node's as their node last said: without them a ranked match
	// run on another node could be watched only by typing its id.
	remote []lobby.RoomInfo
	labels map[*lobby.Room]seatLabels // ranked rooms' ratings, read with the list
	sel    int
}

// liveLister is the room directory as the chooser reads it.
type liveLister interface {
	Live() ([]*lobby.Room, <-chan struct{})
	// Shown is closed when what the list shows of its rooms may have
	// changed (a phase, a score): the chooser re-sorts then.
	Shown() <-chan struct{}
	// Remote lists other nodes' rooms of a listing (none on a single node).
	Remote(which lobby.Listing) []lobby.RoomInfo
}

// watchHandOff is the router's hand-off to the watch screen.
type watchHandOff interface {
	spectate(r *lobby.Room) tea.Cmd
}

type liveMsg struct {
	rooms  []*lobby.Room
	labels map[*lobby.Room]seatLabels
	ch     <-chan struct{}
}

// liveMovedMsg: the listed rooms moved on (Shown), the set is the same.
type liveMovedMsg struct{ set <-chan struct{} }

// open reads the live rooms as they are now and follows their changes.
func (c *chooserPage) open() tea.Cmd {
	rooms, ch := c.rooms.Live()
	rooms = liveFirst(rooms)
	c.live, c.labels = rooms, readLabels(c.ctx, c.rr, rooms)
	c.remote = c.rooms.Remote(lobby.Watchable)
	c.sel = min(c.sel, max(c.count()-1, 0))
	return c.follow(ch)
}

// follow follows the live-room list. Ratings are read here, once per
// change of the list, never while drawing it: a ranked room's players are
// fixed when it is created, so its labels cannot go stale in the list.
//
// The rooms' phases move on without the set changing: Shown wakes the
// same wait, and the chooser only re-sorts then (a match that ended moves
// down), without reading the store.
func (c *chooserPage) follow(ch <-chan struct{}) tea.Cmd {
	rs, rr, ctx := c.rooms, c.rr, c.ctx
	moved := rs.Shown()
	return func() tea.Msg {
		select {
		case <-ch:
		case <-moved:
			select {
			case <-ch: // the set changed too: read it
			default:
				return liveMovedMsg{ch}
			}
		case <-ctx.Done():
			return nil
		}
		rooms, next := rs.Live()
		rooms = liveFirst(rooms)
		return liveMsg{rooms, readLabels(ctx, rr, rooms), next}
	}
}

func (c *chooserPage) update(msg tea.Msg) (page, tea.Cmd) {
	switch msg := msg.(type) {
	case liveMsg:
		c.live, c.labels = msg.rooms, msg.labels
		c.remote = c.rooms.Remote(lobby.Watchable)
		c.sel = min(c.sel, max(c.count()-1, 0))
		return c, c.follow(msg.ch)
	case liveMovedMsg:
		c.resort() // a match that ended moves down the chooser
		c.remote = c.rooms.Remote(lobby.Watchable)
		c.sel = min(c.sel, max(c.count()-1, 0))
		return c, c.follow(msg.set)
	case tea.KeyPressMsg:
		switch msg.String() {
		case "esc", "q":
			c.sh.notify("")
			return nil, nil
		case "up", "k":
			c.sel = max(c.sel-1, 0)
		case "down", "j":
			c.sel = min(c.sel+1, max(c.count()-1, 0))
		case "enter":
			if c.sel < len(c.live) {
				return c, c.hand.spectate(c.live[c.sel])
			}
			if i := c.sel - len(c.live); i < len(c.remote) {
				// Reached on its node through the cluster, as
				// `spectate r3@n2` is.
				ref := c.remote[i].ID
				return c, func() tea.Msg { return spectateMsg{ref: ref} }
			}
		}
	}
	return c, nil
}

// liveFirst orders the chooser's rooms by what there is to watch: matches
// in play (or counting down) first, then rooms waiting for players, then
// finished ones; oldest first within each (the order Rooms.Live gives).
// Rooms.Live alone put the oldest, often finished, rooms at the top of
// "Watch a live room".
func liveFirst(rooms []*lobby.Room) []*lobby.Room {
	rank := func(r *lobby.Room) int {
		fr, _ := r.Latest()
		switch {
		case fr == nil || fr.Phase == game.Waiting:
			return 1
		case fr.Phase == game.Finished:
			return 2
		}
		return 0
	}
	slices.SortStableFunc(rooms, func(a, b *lobby.Room) int { return rank(a) - rank(b) })
	return rooms
}

// resort re-orders the chooser's rooms as their phases change (the list
// itself is re-read only when rooms come and go), keeping the cursor on
// the room it was on.
func (c *chooserPage) resort() {
	var sel *lobby.Room
	if c.sel < len(c.live) {
		sel = c.live[c.sel]
	}
	c.live = liveFirst(c.live)
	if i := slices.Index(c.live, sel); i >= 0 {
		c.sel = i
	}
}

// count is how many rooms the chooser shows.
func (c *chooserPage) count() int { return len(c.live) + len(c.remote) }

// readLabels reads the ratings of every ranked room's players.
func readLabels(ctx context.Context, rr ratingReader, rooms []*lobby.Room) map[*lobby.Room]seatLabels {
	out := make(map[*lobby.Room]seatLabels, len(rooms))
	for _, r := range rooms {
		if r.Ranked != "" {
			out[r] = ratingLabels(ctx, rr, r)
		}
	}
	return out
}

// view lists live rooms with their players, score and watchers.
func (c *chooserPage) view() string {
	var b strings.Builder
	b.WriteString(lipgloss.NewStyle().Bold(true).Foreground(colText).Render("Watch a live room") + "\n\n")
	if n := c.sh.banner(); n != "" {
		b.WriteString(n + "\n\n")
	}
	head := b.String()
	tail := "\n" + style(colDim).Render("↑/↓ choose · enter watch · esc back")
	if c.count() == 0 {
		return head + style(colDim).Render("  nothing is being played right now") + "\n" + tail
	}
	b.Reset()
	start, end, hint := listWindow(c.count(), c.sel, c.sh.listRows(head+tail))
	for i := start; i < end; i++ {
		var line string
		st, cur := style(colText), "  "
		if i < len(c.live) {
			r := c.live[i]
			ri := r.Info()
			line = fmt.Sprintf("%-5s %-16s %s", ri.ID, ri.Label, roomSummary(ri, c.labels[r], c.scores(ri.Game)))
			if n := ri.Watchers; n > 0 {
				line += fmt.Sprintf("  · %d watching", n)
			}
		} else {
			// Another node's room, as that node last said: dim, with
			// its node, as the rooms list shows one.
			ri := c.remote[i-len(c.live)]
			line = fmt.Sprintf("%-5s [on %s] %-16s %s", ri.ID, ri.Node, ri.Label, roomSummary(ri, seatLabels{}, c.scores(ri.Game)))
			st = style(colDim)
		}
		if i == c.sel {
			st, cur = lipgloss.NewStyle().Bold(true).Foreground(colGood), "▸ "
		}
		b.WriteString(st.Render(c.sh.listLine(cur+line)) + "\n")
	}
	if hint != "" {
		b.WriteString(style(colDim).Render(hint) + "\n")
	}
	return head + b.String() + tail
}
