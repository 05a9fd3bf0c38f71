package server

import (
	"github.com/termarena/termarena/admin"
	"github.com/termarena/termarena/telemetry"
)

func adminCommand() command {
	return command{
		name:    "admin",
		args:    "SUBCOMMAND …",
		summary: "moderation, for admin keys (ssh HOST admin help)",
		detail:  "Only keys in the server's admin keys file may run these (others get exit\nstatus 77). ssh HOST admin help lists the subcommands.",
		run: func(srv *Server, s *Session, args []string) int {
			id := s.Identity()
			var stats func() telemetry.Stats
			if srv.deps.Metrics != nil {
				stats = srv.deps.Metrics.Snapshot
			}
			var pairer func() string
			if mm := srv.deps.Matchmaker; mm != nil && mm.Pairer() != "" {
				pairer = mm.Pairer // a cluster's: names the lease holder
			}
			return admin.Run(s.Context(), admin.Deps{
				Stats:        stats,
				Store:        srv.deps.Store,
				Sessions:     srv.live,
				TempDir:      srv.deps.TempDir,
				IsAdmin:      srv.isAdmin,
				Node:         srv.deps.Hub.Node(),
				Matchmaker:   pairer,
				Drain:        srv.deps.Drain,
				ClusterStats: srv.deps.ClusterStats,
			}, admin.Caller{ID: id.ID, Name: id.Name, Admin: id.Admin}, args, s.Out(), s.ErrOut())
		},
	}
}
