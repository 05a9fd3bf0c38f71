package server

import (
	"fmt"
	"strings"

	"github.com/termarena/termarena/sanitize"
)

func helpCommand() command {
	return command{
		name:    "help",
		args:    "[COMMAND]",
		summary: "this list, or one command explained",
		run: func(srv *Server, s *Session, args []string) int {
			switch len(args) {
			case 0:
			case 1:
				return srv.helpOn(s, args[0])
			default:
				fmt.Fprintf(s.ErrOut(), "termarena: help takes one command (got %q too)\nusage: help [COMMAND]\n", sanitize.Arg(args[1]))
				return ExitUsage
			}
			out := s.Out()
			fmt.Fprintln(out, "termarena — multiplayer terminal games over SSH")
			fmt.Fprintln(out)
			srv.usage(out)
			fmt.Fprintln(out)
			fmt.Fprintf(out, "Ranked modes: %s.\n", strings.Join(srv.deps.Rooms.Games().RankedQueues(), ", "))
			fmt.Fprintln(out, "Your SSH key is your account; without one you play as a guest.")
			fmt.Fprintln(out, "ssh HOST help COMMAND explains one command.")
			fmt.Fprintln(out, "Exit codes: 0 ok, 1 failure, 2 usage, 77 not allowed.")
			return ExitOK
		},
	}
}

// helpOn explains one command: how to call it, what it does and, for some,
// more about its arguments and exit codes.
func (srv *Server) helpOn(s *Session, name string) int {
	c, ok := srv.lookup(name)
	if !ok {
		fmt.Fprintf(s.ErrOut(), "termarena: help: unknown command %q\n\n", sanitize.Arg(name))
		srv.usage(s.ErrOut())
		return ExitUsage
	}
	out := s.Out()
	ssh := "ssh HOST"
	if c.tui {
		ssh = "ssh -t HOST"
	}
	call := c.name
	if c.name == lobbyName {
		call = ""
	}
	fmt.Fprintf(out, "usage: %s\n\n", strings.Join(strings.Fields(ssh+" "+call+" "+c.args), " "))
	fmt.Fprintln(out, c.summary)
	if c.detail != "" {
		fmt.Fprintln(out)
		fmt.Fprintln(out, c.detail)
	}
	if c.modes {
		fmt.Fprintln(out)
		fmt.Fprintf(out, "ranked modes on this server: %s\n", strings.Join(srv.deps.Rooms.Games().RankedQueues(), ", "))
	}
	return ExitOK
}
