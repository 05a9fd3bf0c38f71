package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/lobby"
)

// A playScreen is a game screen: a seat in a room (seatScreen), a watch
// (watchScreen) or a replay (replayScreen). Each owns its room view, its
// keys (the game's, its prompts: the ranked leave question, the bots'
// level, the web link, the key help; Ctrl-C), the chat line while it is
// up, and what happens when its room ends. The Lobby, the menus' router,
// hands the session to one (join, spectate, replay) and takes it back
// when the screen ends (playEnd); while one is up the menus see nothing
// but what is the session's (chat lines, notices, challenges).
//
// A new game screen is one file: a type implementing playScreen, and the
// Lobby method that starts it (as join, spectate and startReplay do).
type playScreen interface {
	// update takes a message while the screen is up: a key press or
	// release, or the screen's own message (its room's end). A non-nil
	// end: the screen has closed (or hands over to another, end.next).
	update(msg tea.Msg) (tea.Cmd, *playEnd)
	resize(w, h int)
	setProfile(p colorprofile.Profile)
	// where is the player's place for Lobby.Where ("room r3").
	where() string
	// chatAt puts the chat subscription where the screen's talk is.
	chatAt(cs *chatState)
	// sync runs after every message the session took (the shared
	// watchers' picture follows the size, prompt and camera).
	sync()
	// close stops the screen without the player deciding anything: a
	// challenge's room starts, or the session quits. The command returns
	// once the view has stopped drawing.
	close() tea.Cmd
	// detach: the session ended with the screen up; a seat is kept for
	// the room's grace.
	detach(ctx context.Context)
}

// playEnd is how a game screen hands the session back: to the menus (the
// rooms list with notice, or the watch list) or, with quit, to its end.
type playEnd struct {
	notice string
	// stopped returns once the view has stopped drawing (the menus then
	// repaint); told carries news that comes later (a forfeit's cost);
	// then runs after both (the next ranked queue).
	stopped, told, then tea.Cmd
	// chooser: the watch list opens, notice over it.
	chooser bool
	// next: another screen takes over at once (a watcher's next room).
	next playScreen
	// quit: the session ends (Ctrl-C). keep: with the screen up, which
	// Detach then closes (a ranked seat is kept for the grace); final:
	// notice is printed after the session.
	quit, keep, final bool
}

// playHost is what a game screen asks of the session around it.
type playHost interface {
	// challengeKey answers the newest challenge with y or n; ok is
	// false when the key is no answer or none waits.
	challengeKey(s string) (tea.Cmd, bool)
	// rankedSeat is the ranked room where the player holds a seat.
	rankedSeat() *lobby.Room
}

// chatKey hands a game screen's key to the chat line: the line's own
// keys while it is open (so w and s typed there never reach the game),
// the pane's scrolling, and t or enter, which open it (enter means
// nothing else on a game screen). ok: chat took the key.
func chatKey(cs *chatState, k tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	if cs == nil {
		return nil, false
	}
	if cs.typing {
		return cs.key(k), true
	}
	s := k.String()
	if cs.scrollKey(s) {
		return nil, true
	}
	if s == "t" || s == "enter" {
		cs.start()
		return nil, true
	}
	return nil, false
}

// viewStopped waits until a view's goroutines are done (done closed): what
// is sequenced after it (quitting, the watch list) comes after the view's
// last frame.
func viewStopped(done <-chan struct{}) tea.Cmd {
	return func() tea.Msg {
		<-done
		return viewStoppedMsg{}
	}
}

// menuState is what the menus keep while a game screen is up: the room
// under the rooms list's cursor. The notice and the chat line's draft are
// the session's and stay; the menus' lists and their last drawn frame are
// let go, and built again when the player comes back (backToMenus): a
// player in a match holds nothing of a screen that is not shown.
type menuState struct {
	pick   string // the id of the room under the cursor, or the one sat in; "" none
	pickAt int    // its place, for when that room is gone
}

// startPlay puts s on screen, in place of the menus.
func (m *Lobby) startPlay(s playScreen) {
	switch {
	case m.play == nil:
		m.kept = m.home.keep()
		m.memo, m.boxed = frameMemo{}, boxMemo{}
	case m.play != s:
		// One game screen at a time: one still up (a watch when a room
		// is joined) stops, its view's goroutines with it.
		m.play.close()
	}
	if seat, ok := s.(*seatScreen); ok {
		// The room the player sits in is the one to come back to, however
		// he got there (created, a code, a match): not the one that
		// happened to be under the cursor.
		m.kept.pick = seat.id
	}
	m.play, m.scr, m.state, m.notice, m.help = s, nil, stLobby, "", false
}

// backToMenus rebuilds the menus from what they kept (startPlay): the
// rooms list as it is now, the cursor on the room it was on.
func (m *Lobby) backToMenus() {
	m.play, m.state = nil, stLobby
	if m.d.Rooms != nil {
		rooms, _ := m.d.Rooms.List()
		m.home.list(rooms, m.d.Rooms.Remote(lobby.Public))
	}
	m.home.restore(m.kept)
	m.kept = menuState{}
}

// playUpdate hands msg to the game screen up and, when it ends, the
// session back to the menus.
func (m *Lobby) playUpdate(msg tea.Msg) tea.Cmd {
	cmd, end := m.play.update(msg)
	if end != nil {
		cmd = tea.Batch(cmd, m.endPlay(*end))
	}
	return cmd
}

// endPlay takes the session back from a game screen that ended.
func (m *Lobby) endPlay(e playEnd) tea.Cmd {
	if e.next != nil {
		m.play = e.next
		return e.stopped
	}
	if e.quit {
		m.quitting = true
		m.closeChat()
		if e.final {
			m.notice, m.final = e.notice, true
		}
		if e.keep {
			return tea.Quit // Detach closes the screen and keeps the seat
		}
		m.play = nil
		return tea.Sequence(e.stopped, tea.Quit)
	}
	m.backToMenus()
	if e.chooser {
		return tea.Sequence(e.stopped, m.openChooser(e.notice))
	}
	m.notice = e.notice
	cmd := tea.Batch(e.stopped, e.told)
	if e.then != nil {
		cmd = tea.Sequence(cmd, e.then)
	}
	return cmd
}

// closePlay stops the game screen up, if any, for something else the
// session does (a challenge's room).
func (m *Lobby) closePlay() tea.Cmd {
	if m.play == nil {
		return nil
	}
	cmd := m.play.close()
	m.backToMenus()
	return cmd
}

// seat is the room the player sits in on screen, or nil.
func (m *Lobby) seat() *seatScreen {
	s, _ := m.play.(*seatScreen)
	return s
}

// Where says where the player is now, in the words `admin sessions` shows:
// "lobby", "room r3", "queue pong-1v1", "watching r2", "replay 42". The
// server reads it after each Update, on the driver's goroutine.
func (m *Lobby) Where() string {
	switch {
	case m.play != nil:
		return m.play.where()
	case m.state == stMenu:
		if p, ok := m.scr.(placed); ok {
			return p.where()
		}
	}
	return "lobby"
}
