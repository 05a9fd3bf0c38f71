package server

import "github.com/termarena/termarena/commands"

func leaderboardCommand() command {
	return command{
		name:    "leaderboard",
		args:    "[--mode M] [--limit N] [--json]",
		summary: "best rated players of a ranked mode, the first if none is named",
		modes:   true,
		run:     plain(commands.Leaderboard),
	}
}
