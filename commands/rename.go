package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/termarena/termarena/moderation"
	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/store"
)

// RenameEvery is how often a player may choose a new name: often enough
// to fix a name given at first login, too rarely to hide behind new ones.
// Admins are exempt.
const RenameEvery = 24 * time.Hour

// Rename is `rename NAME`: the caller chooses a new name. Exit status 2
// for a name that breaks the rules, 1 when it is taken or the caller
// renamed less than RenameEvery ago, 77 for guests.
func Rename(ctx context.Context, d Deps, who Caller, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: rename NAME")
		return ExitUsage
	}
	if who.Guest {
		fmt.Fprintln(stderr, "termarena: rename: guests have no account to rename; connect with an SSH key")
		return ExitDenied
	}
	every := RenameEvery
	if who.Admin {
		every = 0
	}
	p, err := d.Service.Rename(ctx, who.ID, args[0], every)
	var soon *store.RenameTooSoonError
	switch {
	case err == nil:
	case errors.Is(err, store.ErrInvalidName):
		// Its words are written for players.
		fmt.Fprintf(stderr, "termarena: rename: %s\n", err)
		return ExitUsage
	case errors.Is(err, store.ErrNameTaken):
		fmt.Fprintf(stderr, "termarena: rename: %s is taken\n", store.NormalizeName(sanitize.Arg(args[0])))
		return ExitFail
	case errors.As(err, &soon):
		wait := soon.Next.Sub(d.now())
		if wait > time.Minute {
			wait = wait.Truncate(time.Minute) // "23h59m", not a rounded-up "1d"
		}
		fmt.Fprintf(stderr, "termarena: rename: you can rename once a day; next in %s\n", moderation.FormatDuration(wait))
		return ExitFail
	default:
		d.log().Error("rename", "player", who.Name, "err", err)
		fmt.Fprintln(stderr, "termarena: rename: could not save your new name; please try again")
		return ExitFail
	}
	if p.Name == who.Name {
		fmt.Fprintf(stdout, "you are already %s\n", p.Name)
		return ExitOK
	}
	d.log().Info("rename", "from", who.Name, "to", p.Name, "fingerprint", who.ID)
	fmt.Fprintf(stdout, "you are now %s (was %s)\n", p.Name, who.Name)
	fmt.Fprintln(stdout, "sessions open now keep the old name until they reconnect")
	return ExitOK
}
