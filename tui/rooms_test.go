package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

// roomsRouter is the router as the rooms page sees it: a shell with a
// notice, the lobby's status lines, and q, ? and esc's hand-offs, noted.
type roomsRouter struct {
	notice   string
	online   string
	queues   string
	seat     *lobby.Room
	quits    int
	help     bool
	listRowN int
	joined   []joinMsg
}

func (f *roomsRouter) notify(text string)       { f.notice = text }
func (f *roomsRouter) listRows(string) int      { return f.listRowN }
func (f *roomsRouter) listH() int               { return 24 }
func (f *roomsRouter) listLine(s string) string { return s }
func (f *roomsRouter) banner() string           { return f.notice }
func (f *roomsRouter) onlineNow() string        { return f.online }
func (f *roomsRouter) queueLine() string        { return f.queues }
func (f *roomsRouter) rankedSeat() *lobby.Room  { return f.seat }
func (f *roomsRouter) quit() tea.Cmd            { f.quits++; return tea.Quit }
func (f *roomsRouter) toggleHelp()              { f.help = !f.help }
func (f *roomsRouter) closeHelp()               { f.help = false }
func (f *roomsRouter) join(j joinMsg) tea.Cmd   { f.joined = append(f.joined, j); return nil }

func newRoomsPage(f *roomsRouter, menu []menuKey, rooms []*lobby.Room) *roomsPage {
	p := &roomsPage{sh: f, status: f, hand: f, menu: menu, me: game.Player{ID: "alice", Name: "alice"}, listed: true}
	p.list(rooms, nil)
	return p
}

func openRooms(t *testing.T, n int) []*lobby.Room {
	t.Helper()
	rs := testRooms(t)
	for range n {
		if _, err := rs.Create("pong", "1v1", false); err != nil {
			t.Fatal(err)
		}
	}
	list, _ := rs.List()
	return list
}

// The rooms page greets the player, shows the online line and the rooms
// with a cursor that up/down (k/j) move within the list, and keeps the
// cursor in the list when rooms close.
func TestRoomsPageListsRoomsAndMovesTheCursor(t *testing.T) {
	f := &roomsRouter{online: "● 3 online", listRowN: 10}
	rooms := openRooms(t, 3)
	p := newRoomsPage(f, nil, rooms)
	cursorOn := func() string {
		for _, l := range strings.Split(ansi.Strip(p.view()), "\n") {
			if strings.HasPrefix(l, "▸ ") {
				return strings.Fields(l)[1]
			}
		}
		return ""
	}
	scr := ansi.Strip(p.view())
	for _, want := range []string{"t e r m a r e n a", "Welcome, alice!", "● 3 online", "Rooms", rooms[2].ID()} {
		if !strings.Contains(scr, want) {
			t.Fatalf("rooms page lacks %q:\n%s", want, scr)
		}
	}
	if got := cursorOn(); got != rooms[0].ID() {
		t.Fatalf("cursor on %q, want the first room %s", got, rooms[0].ID())
	}
	for _, step := range []struct {
		key, want string
	}{{"down", rooms[1].ID()}, {"j", rooms[2].ID()}, {"down", rooms[2].ID()}, {"up", rooms[1].ID()}, {"k", rooms[0].ID()}, {"k", rooms[0].ID()}, {"j", rooms[1].ID()}, {"j", rooms[2].ID()}} {
		if next, _ := p.update(keyPress(step.key)); next != p {
			t.Fatalf("%s left the rooms page", step.key)
		}
		if got := cursorOn(); got != step.want {
			t.Fatalf("after %s the cursor is on %q, want %s", step.key, got, step.want)
		}
	}
	p.list(rooms[:1], nil)
	if got := cursorOn(); got != rooms[0].ID() {
		t.Fatalf("after rooms closed the cursor is on %q, want %s", got, rooms[0].ID())
	}
	p.list(nil, nil)
	if scr := ansi.Strip(p.view()); !strings.Contains(scr, "no open rooms: press c to create one") {
		t.Fatalf("empty list:\n%s", scr)
	}
}

// Each key of the menu asks its own entry, with the room under the cursor,
// and the page shows what the entry returns; q, ? and esc ask the router
// to quit, toggle help, and close help and the notice.
func TestRoomsPageKeysAskTheRouter(t *testing.T) {
	f := &roomsRouter{listRowN: 10}
	rooms := openRooms(t, 2)
	var asked []string
	var got *lobby.Room
	code := &codePage{}
	menu := []menuKey{
		{keys: []string{"enter"}, label: "enter join", row: 1, open: func(sel *lobby.Room) (page, tea.Cmd) {
			asked, got = append(asked, "enter"), sel
			return nil, nil
		}},
		{keys: []string{"/", "J"}, label: "/ code", row: 1, open: func(*lobby.Room) (page, tea.Cmd) {
			asked = append(asked, "code")
			return code, nil
		}},
	}
	p := newRoomsPage(f, menu, rooms)
	p.update(keyPress("down"))
	if next, _ := p.update(keyPress("enter")); next != nil || got != rooms[1] {
		t.Fatalf("enter: next %v, entry got %v; want the rooms list and %s", next, got, rooms[1].ID())
	}
	for _, k := range []string{"/", "J"} {
		if next, _ := p.update(keyPress(k)); next != page(code) {
			t.Fatalf("%s shows %T, want the join code", k, next)
		}
	}
	if strings.Join(asked, " ") != "enter code code" {
		t.Fatalf("entries asked: %v", asked)
	}
	p.update(keyPress("x")) // no entry: nothing is asked
	if len(asked) != 3 || f.quits != 0 {
		t.Fatalf("x asked %v, quit %d", asked, f.quits)
	}
	p.update(keyPress("?"))
	if !f.help {
		t.Fatal("? did not open help")
	}
	f.notice = "The room closed."
	p.update(keyPress("esc"))
	if f.help || f.notice != "" {
		t.Fatalf("esc: help %v, notice %q", f.help, f.notice)
	}
	if _, cmd := p.update(keyPress("q")); f.quits != 1 || !isQuit(cmd) {
		t.Fatalf("q: quit asked %d times, command quits %v", f.quits, isQuit(cmd))
	}
	// With no rooms, enter hands its entry no room.
	p.list(nil, nil)
	p.update(keyPress("enter"))
	if got != nil {
		t.Fatalf("enter on an empty list handed %v", got)
	}
}

// A dialog is drawn under the notice and over the keys, and hides the
// line that points to a held ranked seat (b still works under it).
func TestRoomsPageDrawsADialogUnderItsNotice(t *testing.T) {
	rooms := openRooms(t, 1)
	f := &roomsRouter{notice: "NOTICE", queues: "● in ranked queues: pong-1v1 1/2", seat: rooms[0], listRowN: 10}
	p := newRoomsPage(f, []menuKey{{keys: []string{"c"}, label: "c create", row: 1}}, rooms)
	scr := ansi.Strip(p.view())
	if !strings.Contains(scr, "in ranked queues: pong-1v1 1/2") || !strings.Contains(scr, "· b go back to it") {
		t.Fatalf("rooms page without a dialog:\n%s", scr)
	}
	over := ansi.Strip(p.viewOver("DIALOG\n"))
	n, d, k := strings.Index(over, "NOTICE"), strings.Index(over, "DIALOG"), strings.Index(over, "c create · ? help · q quit")
	if n < 0 || d < n || k < d || strings.Contains(over, "b go back to it") {
		t.Fatalf("dialog not between notice and keys, or the seat line shows under it:\n%s", over)
	}
}

// The key line is the menu's labels, ranked play's row over the rooms'
// row, as the lobby has always shown it for each kind of server.
func TestLobbyKeyLineForEachServer(t *testing.T) {
	st := testStore(t)
	rooms := testRooms(t)
	mm, err := lobby.NewMatchmaker(rooms, &lobby.Cooldowns{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		d    LobbyDeps
		want string
	}{
		{LobbyDeps{}, "? help · q quit"},
		{LobbyDeps{Rooms: rooms}, "c create · enter join · / code · ? help · q quit"},
		{LobbyDeps{Rooms: rooms, Matchmaker: mm, Store: st},
			"p play ranked · P mode · w watch · L leaderboard · m me\nc create · enter join · / code · ? help · q quit"},
	} {
		tc.d.Ctx, tc.d.Player, tc.d.Online = t.Context(), game.Player{ID: "alice", Name: "alice"}, lobby.NewHub()
		m := NewLobby(tc.d)
		if got := m.home.keyLine(); got != tc.want {
			t.Errorf("key line %q, want %q", got, tc.want)
		}
	}
}

// Enter on another node's room in the list joins it by its id, as `join
// r1@n2` does, rather than naming the node to connect to.
func TestRoomsPageEnterJoinsAnotherNodesRoom(t *testing.T) {
	f := &roomsRouter{listRowN: 10}
	p := newRoomsPage(f, nil, openRooms(t, 1))
	p.list(p.rooms, []lobby.RoomInfo{{ID: "r1@n2", Node: "n2", Remote: true, Game: "pong", Mode: "1v1", Seats: 2}})
	p.update(tea.KeyPressMsg{Code: 'j', Text: "j"})
	p.update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if len(f.joined) != 1 || f.joined[0].ref != "r1@n2" || f.joined[0].side != -1 || f.joined[0].room != nil {
		t.Fatalf("enter on r1@n2 asked to join %+v (notice %q)", f.joined, f.notice)
	}
}
