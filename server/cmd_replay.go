package server

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/termarena/termarena/asciicast"
	"github.com/termarena/termarena/commands"
	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/store"
)

func replayCommand() command {
	return command{
		name:    "replay",
		args:    "MATCH-ID",
		summary: "watch a recorded match (needs a terminal: ssh -t)",
		detail: "With --cast, no terminal is needed: the replay is written to stdout as an\n" +
			"asciicast v2 file, painted at 80×24 in 256 colours as `replay` shows it:\n" +
			"  ssh HOST replay 42 --cast > m.cast && asciinema play m.cast",
		tui:       true,
		plainWith: "--cast",
		run: func(srv *Server, s *Session, args []string) int {
			asCast := false
			var pos []string
			for _, a := range args {
				if a == "--cast" {
					asCast = true
				} else {
					pos = append(pos, a)
				}
			}
			if len(pos) != 1 {
				fmt.Fprintln(s.ErrOut(), "usage: ssh -t HOST replay MATCH-ID   (ids are in `matches` and `replays`)\n       ssh HOST replay MATCH-ID --cast > m.cast")
				return ExitUsage
			}
			id, err := strconv.ParseUint(pos[0], 10, 64)
			if err != nil || id == 0 {
				fmt.Fprintf(s.ErrOut(), "termarena: replay: %q is not a match id\n", sanitize.Arg(pos[0]))
				return ExitUsage
			}
			if err := srv.deps.Service.HasReplay(s.Context(), id); err != nil {
				if errors.Is(err, service.ErrNoReplay) {
					fmt.Fprintf(s.ErrOut(), "termarena: no replay of match %d (unknown match, or pruned)\n", id)
					return ExitFail
				}
				srv.log.Error("replay", "id", id, "err", err)
				if errors.Is(err, store.ErrDamaged) {
					// Trying again cannot help a damaged database: only the
					// operator can, and the store check logs where.
					fmt.Fprintln(s.ErrOut(), "termarena: could not read the replay: the server's database is damaged; trying again will not help, tell the operator")
					return ExitFail
				}
				fmt.Fprintln(s.ErrOut(), "termarena: could not read the replay; please try again")
				return ExitFail
			}
			if asCast {
				// Raw bytes: on a PTY the CRLF translation of Out would
				// change the file.
				e := asciicast.Exporter{Store: srv.deps.Store, Games: srv.deps.Rooms.Games(), Views: srv.deps.Views}
				if err := e.Export(s.Context(), id, s); err != nil {
					srv.log.Error("replay --cast", "id", id, "err", err)
					fmt.Fprintf(s.ErrOut(), "termarena: the replay of match %d could not be exported: %v\n", id, err)
					return ExitFail
				}
				return ExitOK
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
