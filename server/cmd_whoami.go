package server

import "github.com/termarena/termarena/commands"

func whoamiCommand() command {
	return command{
		name:    "whoami",
		args:    "[--json]",
		summary: "your name, key fingerprint and first-seen date",
		run:     plain(commands.Whoami),
	}
}
