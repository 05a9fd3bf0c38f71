package server

import "github.com/termarena/termarena/commands"

func leaderboardCommand() command {
	return command{
		name: "leaderboard",
		// --around is in the detail, not here: the lobby's help lists
		// these usages and must fit 80×24.
		args:    "[--mode M] [--limit N] [--json]",
		summary: "best established players of a ranked mode (± under 110), the first if none is named",
		detail: "The mode may be named without --mode: leaderboard pong-2v2.\n" +
			"--around NAME shows NAME's rank with five players either side instead of the top\n" +
			"(exit 1 if NAME has no established rating there). Ratings are Glicko-2: a\n" +
			"rating is established once its ± (deviation) is under 110, after about ten games.",
		modes: true,
		run:   plain(commands.Leaderboard),
	}
}
