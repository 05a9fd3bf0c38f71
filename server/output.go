package server

import (
	"encoding/json"
	"io"

	"github.com/termarena/termarena/commands"
)

// writeJSON writes v as the indented JSON every --json listing uses.
func writeJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return ExitFail
	}
	return ExitOK
}

// plain routes a session to a plain command: the command sees the
// caller, its arguments and the session's two output streams, nothing of
// SSH.
func plain(f commands.Func) func(srv *Server, s *Session, args []string) int {
	return func(srv *Server, s *Session, args []string) int {
		id := s.Identity()
		d := commands.Deps{Service: srv.deps.Service, Log: srv.log}
		return f(s.Context(), d, commands.Caller{ID: id.ID, Name: id.Name, Guest: id.Guest}, args, s.Out(), s.ErrOut())
	}
}
