package server

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/termarena/termarena/commands"
	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/service"
)

func replayCommand() command {
	return command{
		name:    "replay",
		args:    "MATCH-ID",
		summary: "watch a recorded match (needs a terminal: ssh -t)",
		tui:     true,
		run: func(srv *Server, s *Session, args []string) int {
			if len(args) != 1 {
				fmt.Fprintln(s.ErrOut(), "usage: ssh -t HOST replay MATCH-ID   (ids are in `matches` and `replays`)")
				return ExitUsage
			}
			id, err := strconv.ParseUint(args[0], 10, 64)
			if err != nil || id == 0 {
				fmt.Fprintf(s.ErrOut(), "termarena: replay: %q is not a match id\n", sanitize.Arg(args[0]))
				return ExitUsage
			}
			if err := srv.deps.Service.HasReplay(s.Context(), id); err != nil {
				if errors.Is(err, service.ErrNoReplay) {
					fmt.Fprintf(s.ErrOut(), "termarena: no replay of match %d (unknown match, or pruned)\n", id)
					return ExitFail
				}
				srv.log.Error("replay", "id", id, "err", err)
				fmt.Fprintln(s.ErrOut(), "termarena: could not read the replay; please try again")
				return ExitFail
			}
			return srv.runLobby(s, lobbyStart{side: -1, replay: id})
		},
	}
}

func replaysCommand() command {
	return command{
		name:    "replays",
		args:    "[NAME] [--limit N] [--json]",
		summary: "recorded matches to replay: the newest, or NAME's",
		detail: "Without NAME: the newest matches on the server that can be replayed, whoever\n" +
			"played them. With NAME: that player's. Pruned replays are left out.",
		run: plain(commands.Replays),
	}
}
