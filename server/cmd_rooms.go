package server

import "github.com/termarena/termarena/commands"

func roomsCommand() command {
	return command{
		name:    "rooms",
		args:    "[--json]",
		summary: "open public rooms",
		run:     plain(commands.Rooms),
	}
}
