package server

import "github.com/termarena/termarena/commands"

func whoCommand() command {
	return command{
		name:    "who",
		args:    "[--json]",
		summary: "who is online and what they are doing",
		run:     plain(commands.Who),
	}
}
