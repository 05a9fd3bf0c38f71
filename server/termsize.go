package server

import (
	"fmt"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

// tooSmall says why the session's terminal cannot play mode (its
// game.Mode.Name) of the game named gameName, naming the size needed and
// the size it has; "" when it can, or when nothing is known of it. Said
// before the screen opens: seated on a terminal too small for the board,
// a player sees only "Terminal too small" while the match goes on.
func (srv *Server) tooSmall(s *Session, what, gameName, mode string) string {
	pty, ok := s.PTY()
	if !ok {
		return ""
	}
	return srv.deps.Views.TooSmall(what, gameName, mode, pty.Window.Width, pty.Window.Height)
}

// seatedIn: the session's player holds a seat in r (coming back to it is
// never refused for the terminal's size: the seat is theirs).
func seatedIn(s *Session, r *lobby.Room) bool {
	fr, _ := r.Latest()
	if fr == nil {
		return false
	}
	me := game.PlayerID(s.Identity().ID)
	for _, seat := range fr.Seats {
		if seat.Taken && seat.Player.ID == me {
			return true
		}
	}
	return false
}

// tooSmallNotice is the line a refused command prints.
func tooSmallNotice(why string) string {
	return fmt.Sprintf("termarena: %s: enlarge the window and try again\n", why)
}
