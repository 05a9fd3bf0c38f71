package server

import (
	"errors"
	"fmt"
	"time"

	"github.com/termarena/termarena/moderation"
	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/store"
)

// renameEvery is how often a player may choose a new name: often enough to
// fix a name given at first login, too rarely to hide behind new ones.
// Admins are exempt.
const renameEvery = 24 * time.Hour

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
		run: runRename,
	}
}

func runRename(srv *Server, s *Session, args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(s.ErrOut(), "usage: rename NAME")
		return ExitUsage
	}
	id := s.Identity()
	if id.Guest {
		fmt.Fprintln(s.ErrOut(), "termarena: rename: guests have no account to rename; connect with an SSH key")
		return ExitDenied
	}
	every := renameEvery
	if id.Admin {
		every = 0
	}
	p, err := srv.deps.Store.Rename(id.ID, args[0], every)
	var soon *store.RenameTooSoonError
	switch {
	case err == nil:
	case errors.Is(err, store.ErrInvalidName):
		// Its words are written for players.
		fmt.Fprintf(s.ErrOut(), "termarena: rename: %s\n", err)
		return ExitUsage
	case errors.Is(err, store.ErrNameTaken):
		fmt.Fprintf(s.ErrOut(), "termarena: rename: %s is taken\n", store.NormalizeName(sanitize.Arg(args[0])))
		return ExitFail
	case errors.As(err, &soon):
		wait := time.Until(soon.Next)
		if wait > time.Minute {
			wait = wait.Truncate(time.Minute) // "23h59m", not a rounded-up "1d"
		}
		fmt.Fprintf(s.ErrOut(), "termarena: rename: you can rename once a day; next in %s\n", moderation.FormatDuration(wait))
		return ExitFail
	default:
		srv.log.Error("rename", "player", id.Name, "err", err)
		fmt.Fprintln(s.ErrOut(), "termarena: rename: could not save your new name; please try again")
		return ExitFail
	}
	if p.Name == id.Name {
		fmt.Fprintf(s.Out(), "you are already %s\n", p.Name)
		return ExitOK
	}
	srv.log.Info("rename", "from", id.Name, "to", p.Name, "fingerprint", id.ID)
	fmt.Fprintf(s.Out(), "you are now %s (was %s)\n", p.Name, id.Name)
	fmt.Fprintln(s.Out(), "sessions open now keep the old name until they reconnect")
	return ExitOK
}
