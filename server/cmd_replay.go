package server

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/termarena/termarena/cmdargs"
	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/store"
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
			if _, err := srv.deps.Store.Replay(id); err != nil {
				if errors.Is(err, store.ErrNotFound) {
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
		run: runReplays,
	}
}

func runReplays(srv *Server, s *Session, args []string) int {
	p, err := cmdargs.Parse(args, []string{"json"}, []string{"limit"})
	limit := 0
	if err == nil {
		limit, err = p.Limit(20, 200)
	}
	if err != nil {
		fmt.Fprintf(s.ErrOut(), "termarena: replays: %v\nusage: replays [NAME] [--limit N] [--json]\n", err)
		return ExitUsage
	}
	var with []store.MatchRecord
	var code int
	if len(p.Pos) == 0 {
		// No name: what is there to watch on this server, whoever played.
		with, err = srv.deps.Store.RecentMatches(limit, func(m store.MatchRecord) bool { return m.Replay })
		if err != nil {
			srv.log.Error("replays", "err", err)
			fmt.Fprintln(s.ErrOut(), "termarena: could not read the replays; please try again")
			return ExitFail
		}
		code = writeMatches(s.Out(), "", with, p.Bools["json"], "no recorded matches on this server yet")
	} else {
		pl, c := whose(srv, s, p.Pos)
		if c != ExitOK {
			return c
		}
		// Pruned matches keep their record but lose the replay: read more
		// than the limit so the listing still fills up.
		ms, err := srv.deps.Store.Matches(pl.Fingerprint, min(limit*4, 1000))
		if err != nil {
			srv.log.Error("replays", "err", err)
			fmt.Fprintln(s.ErrOut(), "termarena: could not read the replays; please try again")
			return ExitFail
		}
		for _, m := range ms {
			if m.Replay && len(with) < limit {
				with = append(with, m)
			}
		}
		code = writeMatches(s.Out(), pl.Fingerprint, with, p.Bools["json"], pl.Name+" has no recorded matches")
	}
	if !p.Bools["json"] && len(with) > 0 {
		fmt.Fprintln(s.Out(), "\nwatch one: ssh -t HOST replay ID")
	}
	return code
}
