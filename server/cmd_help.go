package server

import "fmt"

func helpCommand() command {
	return command{
		name:    "help",
		summary: "this list",
		run: func(srv *Server, s *Session, args []string) int {
			out := s.Out()
			fmt.Fprintln(out, "termarena — multiplayer terminal games over SSH")
			fmt.Fprintln(out)
			srv.usage(out)
			fmt.Fprintln(out)
			fmt.Fprintln(out, "Your SSH key is your account; without one you play as a guest.")
			fmt.Fprintln(out, "Exit codes: 0 ok, 1 failure, 2 usage, 77 not allowed.")
			return ExitOK
		},
	}
}
