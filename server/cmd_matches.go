package server

import "github.com/termarena/termarena/commands"

func matchesCommand() command {
	return command{
		name:    "matches",
		args:    "[NAME] [--limit N] [--json]",
		summary: "match history",
		run:     plain(commands.Matches),
	}
}
