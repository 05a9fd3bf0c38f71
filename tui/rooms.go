package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

// roomsPage is the lobby's home page, the rooms list: the greeting, who is
// online, the open rooms with a cursor, and the keys that open every other
// menu screen (Lobby.menu). Dialogs (overRooms) are drawn on it, under its
// notice and over its keys.
type roomsPage struct {
	sh     shell
	status lobbyStatus
	hand   roomsHandOff
	menu   []menuKey
	me     game.Player
	listed bool // the server has rooms: the list shows, empty or not
	rooms  []*lobby.Room
	// remote are other nodes' public rooms in a cluster, listed after
	// this node's: they are joined on their node, so enter on one says
	// which.
	remote []lobby.RoomInfo
	// games is the catalogue, for a remote room's mode (its teams).
	games game.Catalog
	sel   int
}

// menuKey is a key of the rooms list that opens a screen or hands the
// player on (to a room, the queue).
type menuKey struct {
	keys []string
	// label is the key in the rooms page's key line ("" none); row 0 is
	// the line of ranked play and people, row 1 the line of rooms, row 2
	// (above both) finding someone to play.
	label string
	row   int
	// open is what the key does, given the room under the cursor (nil
	// when there is none): the page to show (nil: stay on the rooms
	// list) and a command.
	open func(sel *lobby.Room) (page, tea.Cmd)
}

// lobbyStatus is what the rooms page shows of the lobby at large; the
// router follows it live.
type lobbyStatus interface {
	// onlineNow is the online line, cut to the box.
	onlineNow() string
	// queueLine is the ranked queues' counts, or "".
	queueLine() string
	// rankedSeat is the ranked room the player holds a seat in, or nil.
	rankedSeat() *lobby.Room
}

// roomsHandOff is what the rooms page's own keys ask of the router.
type roomsHandOff interface {
	joinHandOff // another node's room, joined through the cluster
	quit() tea.Cmd
	toggleHelp()
	closeHelp()
}

// list takes the rooms as they are now, this node's and other nodes',
// keeping the cursor in the list.
func (r *roomsPage) list(rooms []*lobby.Room, remote []lobby.RoomInfo) {
	r.rooms, r.remote = rooms, remote
	r.sel = min(r.sel, max(r.count()-1, 0))
}

// keep is the page's part of what the menus keep during a game: the room
// under the cursor. The lists go; backToMenus lists the rooms anew.
func (r *roomsPage) keep() menuState {
	k := menuState{pickAt: r.sel}
	switch {
	case r.sel < len(r.rooms):
		k.pick = r.rooms[r.sel].ID()
	case r.sel-len(r.rooms) < len(r.remote):
		k.pick = r.remote[r.sel-len(r.rooms)].ID
	}
	r.rooms, r.remote = nil, nil
	return k
}

// restore puts the cursor back on the room it was on (keep), or where it
// was when that room is gone.
func (r *roomsPage) restore(k menuState) {
	r.sel = min(k.pickAt, max(r.count()-1, 0))
	for i, room := range r.rooms {
		if room.ID() == k.pick {
			r.sel = i
			return
		}
	}
	for i, ri := range r.remote {
		if ri.ID == k.pick {
			r.sel = len(r.rooms) + i
			return
		}
	}
}

// count is how many rooms the list shows.
func (r *roomsPage) count() int { return len(r.rooms) + len(r.remote) }

// elsewhereNotice is what a player is told of a room on another node of
// the cluster: it is played and watched there.
func elsewhereNotice(e *lobby.ElsewhereError) string {
	return upperFirst(fmt.Sprintf("%s is on node %s: %s.", e.What(), e.Node, e.Reach("join it", "join", e.Ref())))
}

// upperFirst starts a sentence built from a phrase ("room r3", "the
// room with code …") with a capital.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (r *roomsPage) update(msg tea.Msg) (page, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return r, nil
	}
	switch s := k.String(); s {
	case "q":
		return r, r.hand.quit()
	case "?":
		r.hand.toggleHelp()
	case "esc":
		r.hand.closeHelp()
		r.sh.notify("")
	case "up", "k":
		r.sel = max(r.sel-1, 0)
	case "down", "j":
		r.sel = min(r.sel+1, max(r.count()-1, 0))
	default:
		var sel *lobby.Room
		if r.sel < len(r.rooms) {
			sel = r.rooms[r.sel]
		} else if i := r.sel - len(r.rooms); i < len(r.remote) && s == "enter" {
			return r, r.hand.join(joinMsg{ref: r.remote[i].ID, side: -1})
		}
		for _, mk := range r.menu {
			for _, key := range mk.keys {
				if key == s {
					return mk.open(sel)
				}
			}
		}
	}
	return r, nil
}

func (r *roomsPage) view() string { return r.viewOver("") }

// viewOver is the rooms page with dialog (a page's view, "" none) drawn
// under its notice.
func (r *roomsPage) viewOver(dialog string) string {
	title := lipgloss.NewStyle().Bold(true).Foreground(colAccent).Render("t e r m a r e n a")
	var b strings.Builder
	b.WriteString(title + "\n\n")
	b.WriteString(style(colText).Render("Welcome, ") + lipgloss.NewStyle().Bold(true).Foreground(colGood).Render(r.me.Name) + style(colText).Render("!") + "\n")
	if r.me.Guest {
		b.WriteString(style(colDim).Render("You are a guest: connect with an SSH key to keep your name.") + "\n")
	}
	b.WriteString("\n" + r.status.onlineNow() + "\n")
	if q := r.status.queueLine(); q != "" {
		b.WriteString(r.sh.listLine(q) + "\n")
	}
	if c, ok := r.status.(challengeStatus); ok {
		b.WriteString(c.challengeLines())
	}
	if s := r.status.rankedSeat(); s != nil && dialog == "" {
		b.WriteString(style(colWarn).Render(fmt.Sprintf("▶ Your ranked %s match is on in %s · b go back to it", s.Ranked, s.ID())) + "\n")
	}
	head := b.String()
	b.Reset()
	if n := r.sh.banner(); n != "" {
		b.WriteString("\n" + n + "\n")
	}
	b.WriteString(dialog)
	b.WriteString("\n" + style(colDim).Render(r.keyLine()))
	tail := b.String()
	if !r.listed {
		return head + tail
	}
	rows := r.sh.listRows(head + "\n" + r.renderRooms(0) + tail)
	return head + "\n" + r.renderRooms(rows) + tail
}

// keyLine is the menu's labels in their two rows, then help and quit.
func (r *roomsPage) keyLine() string {
	var rows [3][]string
	for _, mk := range r.menu {
		if mk.label != "" {
			rows[mk.row] = append(rows[mk.row], mk.label)
		}
	}
	keys := strings.Join(append(rows[1], "? help", "q quit"), " · ")
	if len(rows[0]) > 0 {
		keys = strings.Join(rows[0], " · ") + "\n" + keys
	}
	if len(rows[2]) > 0 {
		keys = strings.Join(rows[2], " · ") + "\n" + keys
	}
	return keys
}

// renderRooms lists public rooms with their live state, read from each
// room's latest frame (an atomic load, no call into the room), in at most
// rows lines (0: only the heading, to measure the rest of the screen).
func (r *roomsPage) renderRooms(rows int) string {
	var b strings.Builder
	b.WriteString(lipgloss.NewStyle().Bold(true).Foreground(colText).Render("Rooms") + "\n")
	if rows == 0 {
		return b.String()
	}
	if r.count() == 0 {
		b.WriteString(style(colDim).Render("  no open rooms: press c to create one") + "\n")
		return b.String()
	}
	start, end, hint := listWindow(r.count(), r.sel, rows)
	for i := start; i < end; i++ {
		var line string
		st := style(colText)
		if i < len(r.rooms) {
			rm := r.rooms[i]
			line = fmt.Sprintf("%-5s %-4s %s", rm.ID(), rm.Mode.Name, roomState(rm.Info(), rm.Mode.Teams))
		} else {
			// Another node's room, as that node said at its last
			// heartbeat: dim, with the node it is joined on.
			ri := r.remote[i-len(r.rooms)]
			var teams [][]int
			if _, m, ok := r.games.Mode(ri.Game, ri.Mode); ok {
				teams = m.Teams
			}
			line = fmt.Sprintf("%-5s %-4s [on %s] %s", ri.ID, ri.Mode, ri.Node, roomState(ri, teams))
			st = style(colDim)
		}
		cursor := "  "
		if i == r.sel {
			cursor = "▸ "
			st = lipgloss.NewStyle().Bold(true).Foreground(colGood)
		}
		b.WriteString(st.Render(r.sh.listLine(cursor+line)) + "\n")
	}
	if hint != "" {
		b.WriteString(style(colDim).Render(hint) + "\n")
	}
	return b.String()
}

// roomState is a room's line in the lobby's list: its phase (with the
// score while playing), seats taken and who sits. teams are the mode's.
func roomState(ri lobby.RoomInfo, teams [][]int) string {
	if !ri.Started {
		return "starting"
	}
	state := ri.Phase.String()
	if st := ri.Standing; st != nil && ri.Phase == game.Playing {
		// A score reads "a:b" between two sides: two seats, or two teams
		// (each team's first seat holds the team's score).
		a, b := 0, 1
		if len(teams) == 2 {
			a, b = teams[0][0], teams[1][0]
		}
		if (len(st) == 2 || len(teams) == 2) && max(a, b) < len(st) {
			state = fmt.Sprintf("playing %d:%d", st[a], st[b])
		}
	}
	return fmt.Sprintf("%-12s %d/%d  %s", state, len(ri.Players), ri.Seats, strings.Join(ri.Names(), ", "))
}
