package server

import "github.com/termarena/termarena/commands"

// plain routes a session to a plain command: the command sees the
// caller, its arguments and the session's two output streams, nothing of
// SSH.
func plain(f commands.Func) func(srv *Server, s *Session, args []string) int {
	return func(srv *Server, s *Session, args []string) int {
		id := s.Identity()
		d := commands.Deps{Service: srv.deps.Service, Log: srv.log}
		who := commands.Caller{ID: id.ID, Name: id.Name, Guest: id.Guest, Admin: id.Admin, KeyType: id.KeyType, FirstSeen: id.FirstSeen, NameNote: id.NameNote}
		return f(s.Context(), d, who, args, s.Out(), s.ErrOut())
	}
}
