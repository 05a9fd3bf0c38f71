package server

import (
	"errors"
	"fmt"

	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/sanitize"
)

func spectateCommand() command {
	return command{
		name:    "spectate",
		args:    "[ROOM]",
		summary: "watch a live room, or pick one (needs a terminal: ssh -t)",
		tui:     true,
		run: func(srv *Server, s *Session, args []string) int {
			if len(args) > 1 {
				fmt.Fprintln(s.ErrOut(), "usage: ssh -t HOST spectate [ROOM]")
				return ExitUsage
			}
			start := lobbyStart{side: -1, spectateList: true}
			if len(args) == 1 {
				start.spectate = sanitize.Text(args[0], maxRoomRef)
				r, err := srv.deps.Rooms.Watchable(start.spectate)
				var elsewhere *lobby.ElsewhereError
				if errors.As(err, &elsewhere) {
					fmt.Fprintf(s.ErrOut(), "termarena: %s is on node %s: %s\n", elsewhere.What(), elsewhere.Node, elsewhere.Reach("watch it", "spectate", elsewhere.Ref()))
					return ExitFail
				}
				if err != nil {
					fmt.Fprintf(s.ErrOut(), "termarena: no live room %q to watch (ssh -t HOST spectate lists them)\n", sanitize.Arg(args[0]))
					return ExitFail
				}
				if err := r.CanWatch(); err != nil {
					// Refused here, before a screen opens; the lobby
					// refuses one that fills up meanwhile the same way.
					fmt.Fprintln(s.ErrOut(), "termarena:", err)
					return ExitFail
				}
			}
			return srv.runLobby(s, start)
		},
	}
}
