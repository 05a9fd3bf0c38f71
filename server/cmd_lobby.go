package server

import (
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/tui"
)

// lobbyCommand is what a bare `ssh host` runs.
func lobbyCommand() command {
	return command{
		name:    lobbyName,
		summary: "the lobby (needs a terminal: ssh -t)",
		tui:     true,
		run: func(srv *Server, s *Session, args []string) int {
			return srv.runLobby(s, "", -1)
		},
	}
}

// runLobby runs the lobby program, optionally entering a room at once.
func (srv *Server) runLobby(s *Session, join string, side int) int {
	id := s.Identity()
	return srv.runProgram(s, func(io *sessionIO) programModel {
		return tui.NewLobby(tui.LobbyDeps{
			Ctx:      io.ctx,
			Player:   game.Player{ID: game.PlayerID(id.ID), Name: id.Name, Guest: id.Guest},
			Online:   srv.deps.Hub,
			Rooms:    srv.deps.Rooms,
			Commands: srv.helpLines(),
			Join:     join,
			JoinSide: side,
			Out:      io.out,
			Profile:  io.profile,
			FPS:      srv.cfg.FPS,
			RTT:      io.rtt.get,
		})
	})
}
