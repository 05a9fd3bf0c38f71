package server

import (
	"fmt"
	"strings"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

func playCommand() command {
	return command{
		name:    "play",
		args:    "[MODE] [--casual]",
		summary: "straight into a ranked queue, the first if none is named; --casual: anyone, unrated (needs a terminal: ssh -t)",
		tui:     true,
		modes:   true,
		run: func(srv *Server, s *Session, args []string) int {
			args, casual := cutFlag(args, "--casual")
			if casual {
				return srv.playCasual(s, args)
			}
			if len(args) > 1 {
				fmt.Fprintf(s.ErrOut(), "usage: ssh -t HOST play [%s] [--casual]\n", srv.modeUsage())
				return ExitUsage
			}
			arg := ""
			if len(args) == 1 {
				arg = args[0]
			}
			mode, err := srv.deps.Service.ParseMode(arg)
			if err != nil {
				fmt.Fprintf(s.ErrOut(), "termarena: play: %v\n", err)
				return ExitUsage
			}
			if s.Identity().Guest {
				fmt.Fprintln(s.ErrOut(), "termarena: ranked play needs an SSH key (your key is your account); guests can play casual rooms in the lobby")
				return ExitDenied
			}
			if srv.deps.Matchmaker == nil {
				fmt.Fprintln(s.ErrOut(), "termarena: ranked play is not enabled on this server")
				return ExitFail
			}
			if _, held := srv.deps.Rooms.Holding(game.PlayerID(s.Identity().ID)); !held {
				if k, md, ok := srv.deps.Rooms.Games().Ranked(mode); ok {
					if why := srv.tooSmall(s, mode, k.Name(), md.Name); why != "" {
						fmt.Fprint(s.ErrOut(), tooSmallNotice(why))
						return ExitFail
					}
				}
			}
			return srv.runLobby(s, lobbyStart{side: -1, play: lobby.RankedMode(mode)})
		},
	}
}

// modeUsage is the --mode choices for a usage line.
func (srv *Server) modeUsage() string {
	return strings.Join(srv.deps.Service.Modes(), "|")
}
