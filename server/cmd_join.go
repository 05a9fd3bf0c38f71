package server

import (
	"fmt"

	"github.com/termarena/termarena/sanitize"
)

func joinCommand() command {
	return command{
		name:    "join",
		args:    "ROOM|CODE [left|right|top|bottom]",
		summary: "go straight into a room (needs a terminal: ssh -t)",
		tui:     true,
		run: func(srv *Server, s *Session, args []string) int {
			if len(args) < 1 || len(args) > 2 {
				fmt.Fprintln(s.ErrOut(), "usage: ssh -t HOST join ROOM|CODE [left|right|top|bottom]")
				return ExitUsage
			}
			side := -1
			if len(args) == 2 {
				for i, n := range []string{"left", "right", "top", "bottom"} {
					if args[1] == n {
						side = i
					}
				}
				if side < 0 {
					fmt.Fprintf(s.ErrOut(), "termarena: unknown side %q: want left, right, top or bottom\n", sanitize.Arg(args[1]))
					return ExitUsage
				}
			}
			return srv.runLobby(s, lobbyStart{join: sanitize.Text(args[0], 32), side: side})
		},
	}
}
