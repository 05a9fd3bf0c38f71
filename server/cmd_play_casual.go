package server

import (
	"fmt"
	"slices"
	"strings"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/sanitize"
)

// playCasual is `play [MODE] --casual`: straight into the quick-match
// queue of a casual mode (anyone, unrated; guests too).
func (srv *Server) playCasual(s *Session, args []string) int {
	qm := srv.deps.Quick
	if qm == nil {
		fmt.Fprintln(s.ErrOut(), "termarena: quick matches are not enabled on this server")
		return ExitFail
	}
	var keys []string
	for _, m := range qm.Modes() {
		keys = append(keys, m.Key)
	}
	if len(args) > 1 {
		fmt.Fprintf(s.ErrOut(), "usage: ssh -t HOST play [%s] --casual\n", strings.Join(keys, "|"))
		return ExitUsage
	}
	arg := ""
	if len(args) == 1 {
		arg = args[0]
	}
	mode, ok := qm.Parse(arg)
	if !ok {
		fmt.Fprintf(s.ErrOut(), "termarena: play: no casual mode %q (modes: %s)\n", sanitize.Arg(arg), strings.Join(keys, ", "))
		return ExitUsage
	}
	if _, held := srv.deps.Rooms.Holding(game.PlayerID(s.Identity().ID)); !held {
		if why := srv.tooSmall(s, mode.Key, mode.Game, mode.Mode); why != "" {
			fmt.Fprint(s.ErrOut(), tooSmallNotice(why))
			return ExitFail
		}
	}
	return srv.runLobby(s, lobbyStart{side: -1, casual: mode.Key})
}

// cutFlag removes every flag from args and reports whether there was one.
func cutFlag(args []string, flag string) ([]string, bool) {
	out := slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == flag })
	return out, len(out) != len(args)
}
