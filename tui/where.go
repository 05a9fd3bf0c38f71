package tui

import (
	"strconv"
)

// Where says where the player is now, in the words `admin sessions` shows:
// "lobby", "room r3", "queue pong-1v1", "watching r2", "replay 42". The
// server reads it after each Update, on the program's goroutine.
func (m *Lobby) Where() string {
	switch {
	case m.state == stRoom && m.in != nil:
		return "room " + m.in.id
	case m.state == stMenu:
		if p, ok := m.scr.(placed); ok {
			return p.where()
		}
	case m.state == stWatch && m.watch != nil:
		return "watching " + m.watch.room.ID()
	case m.state == stReplay && m.replay != nil:
		return "replay " + strconv.FormatUint(m.replay.id, 10)
	}
	return "lobby"
}
