package tui

import tea "charm.land/bubbletea/v2"

// A page is one menu screen of the lobby: the leaderboard, a profile, … .
// The Lobby is their router (as soft-serve's UI routes between its pages):
// it owns what every screen shares — the terminal's size, the notice line,
// the chat pane, help, quitting, and the hand-off to a game screen (a
// seat, a watch, a replay: playScreen, play.go) — and shows one screen at
// a time: with none other up, its home page, the rooms list (rooms.go).
//
// Keys and messages the router does not handle itself go to the screen
// shown. A new menu screen is a new file with a type that implements
// page and an entry in Lobby.menu, the rooms list's keys, that opens it;
// the router needs no other change.
type page interface {
	// update takes a key or a message and returns the screen to show
	// next: itself, another one, or nil for the rooms list.
	update(msg tea.Msg) (page, tea.Cmd)
	// view is the screen's body; the router boxes it, centres it and puts
	// the chat pane under it.
	view() string
}

// modal is a screen whose keys are all its own (it takes text, or its
// keys include a game mode's, which may be any letter): chat does not open
// from it with t.
type modal interface{ modal() }

// overRooms is a page drawn on the rooms page, under its notice and over
// its keys (a dialog: the create dialog, the join code), rather than in a
// box of its own.
type overRooms interface{ overRooms() }

func isDialog(p page) bool { _, ok := p.(overRooms); return ok }

// shell is what a screen may ask of the router that shows it.
type shell interface {
	// notify sets the notice the rooms list shows.
	notify(text string)
	// listRows is how many lines a list gets on a screen whose body,
	// with a list of no rows, is without; listH the height a screen
	// sizes itself by (the terminal, less the chat pane's wish).
	listRows(without string) int
	listH() int
	// listLine cuts a list's line to the box.
	listLine(s string) string
	// banner is the notice line as a page shows it, "" with none.
	banner() string
}

func (m *Lobby) notify(text string) { m.notice = text }

func (m *Lobby) banner() string {
	if m.notice == "" {
		return ""
	}
	return m.renderNotice()
}

// shown is the page on screen in the menus: the one shown, or the rooms
// list.
func (m *Lobby) shown() page {
	if m.state == stMenu {
		return m.scr
	}
	return m.home
}

// route hands msg to the page shown. A page that handed the player on (to
// a watch, a room, the queue) has left: what it returns then is moot.
func (m *Lobby) route(msg tea.Msg) tea.Cmd {
	cur := m.shown()
	next, cmd := cur.update(msg)
	switch {
	case m.play != nil:
		m.scr = nil
	case m.shown() == cur:
		m.show(next)
	}
	return cmd
}

// show puts s on screen (nil or home: the rooms list).
func (m *Lobby) show(s page) {
	if s == nil || s == page(m.home) {
		m.scr, m.state = nil, stLobby
		return
	}
	m.scr, m.state = s, stMenu
}

// leaver is a page that holds something beyond the session (the queue
// page: a ticket in a ranked queue). The router lets it go when the
// session ends or quits with the page on screen.
type leaver interface{ leave() }

func (m *Lobby) leavePage() {
	if l, ok := m.scr.(leaver); ok && m.state == stMenu {
		l.leave()
		m.show(nil)
	}
}

// placed is a page that names where the player is for Where ("queue
// pong-1v1"); any other menu is "lobby".
type placed interface{ where() string }
