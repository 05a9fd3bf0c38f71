package server

import "github.com/termarena/termarena/commands"

func profileCommand() command {
	return command{
		name:    "profile",
		args:    "[NAME] [--json]",
		summary: "ratings per mode, record and recent matches",
		run:     plain(commands.Profile),
	}
}
