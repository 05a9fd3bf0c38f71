package server

import "github.com/termarena/termarena/commands"

func renameCommand() command {
	return command{
		name:    "rename",
		args:    "NAME",
		summary: "choose a new name (once a day)",
		detail: "NAME is 2–16 characters of a-z, 0-9, _ or -, starting with a letter or digit;\n" +
			"capitals are read as small letters. Names starting with \"guest\" and a few\n" +
			"words (admin, root, …) are reserved. Your ratings and matches stay yours.\n" +
			"Exit status 2 for a name that breaks the rules, 1 when it is taken or you\n" +
			"renamed less than a day ago, 77 for guests.",
		run: plain(commands.Rename),
	}
}
