package server

import (
	"fmt"
	"strings"

	"github.com/termarena/termarena/sanitize"
)

func shareCommand() command {
	return command{
		name:    "share",
		args:    "ROOM|CODE",
		summary: "print a room's web link, to watch it in a browser",
		detail: "The link shows the room live, as `spectate` does (ranked matches as far\n" +
			"behind). A private room is shared by its join code, never by its id. Exit\n" +
			"status 1 when no such room is live or the server has no web face.",
		run: func(srv *Server, s *Session, args []string) int {
			if len(args) != 1 {
				fmt.Fprintln(s.ErrOut(), "usage: ssh HOST share ROOM|CODE")
				return ExitUsage
			}
			link, err := srv.shareLink(args[0])
			if err != nil {
				fmt.Fprintln(s.ErrOut(), "termarena:", err)
				return ExitFail
			}
			fmt.Fprintln(s.Out(), link)
			return ExitOK
		},
	}
}

// shareLink is the web link of the live room ref (an id, or a private
// room's join code: the link of a private room carries its code).
func (srv *Server) shareLink(ref string) (string, error) {
	if srv.cfg.WebURL == "" {
		return "", fmt.Errorf("this server has no web face (it runs with --http \"\")")
	}
	r, err := srv.deps.Rooms.Watchable(ref)
	if err != nil {
		return "", fmt.Errorf("no live room %q to share", sanitize.Arg(ref))
	}
	key := r.ID()
	if r.Private && r.Ranked == "" {
		key = r.Code
	}
	return srv.cfg.WebURL + "/r/" + strings.ToLower(key), nil
}
