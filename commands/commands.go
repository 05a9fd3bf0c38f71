// Package commands owns termarena's plain-text commands — `rooms`,
// `leaderboard`, `profile`, `matches`, `replays`, `whoami`, `rename` — as
// functions over the service layer: each parses its arguments, asks the
// service, and writes text or `--json` to stdout, errors to stderr,
// returning the exit code.
// None of them knows about SSH, so each is tested with a store in a temp
// dir and two buffers; the SSH server only routes a session to them.
package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/store"
)

// Exit codes, the same for every command so scripts can rely on them.
const (
	ExitOK     = 0
	ExitFail   = 1
	ExitUsage  = 2
	ExitDenied = 77
)

// Deps are what the commands work with.
type Deps struct {
	Service *service.Service
	// Log records failures a player is only told to retry; nil discards.
	Log *slog.Logger
	// Now is the clock waits are told by; nil means time.Now.
	Now func() time.Time
}

func (d Deps) now() time.Time {
	if d.Now == nil {
		return time.Now()
	}
	return d.Now()
}

// Caller is who runs a command: a player's key fingerprint and name, or a
// guest (who has no key, so no profile of their own).
type Caller struct {
	ID        string // key fingerprint; a guest's session id
	Name      string
	Guest     bool
	Admin     bool // holds a key of the admin keys file
	KeyType   string
	FirstSeen time.Time
	// NameNote, at a player's first login only, says why they did not get
	// the name they asked for; for a guest with a key, why the key is not
	// an account now.
	NameNote string
}

// Func is the signature every command has.
type Func func(ctx context.Context, d Deps, who Caller, args []string, stdout, stderr io.Writer) int

func (d Deps) log() *slog.Logger {
	if d.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return d.Log
}

// readFailed tells the caller that what could not be read, and exits 1.
// A damaged database is said so: "please try again" cannot help there
// (only the operator can, and the store check logs which bucket it is).
func readFailed(stderr io.Writer, what string, err error) int {
	if errors.Is(err, store.ErrDamaged) {
		fmt.Fprintf(stderr, "termarena: could not read %s: the server's database is damaged; trying again will not help, tell the operator\n", what)
		return ExitFail
	}
	fmt.Fprintf(stderr, "termarena: could not read %s; please try again\n", what)
	return ExitFail
}

// onlyJSON reads the arguments of a command that takes nothing but
// --json; anything else is a usage error, explained on stderr.
func onlyJSON(name string, args []string, stderr io.Writer) (asJSON, ok bool) {
	for _, a := range args {
		if a != "--json" {
			fmt.Fprintf(stderr, "termarena: %s takes no arguments (got %q)\nusage: %s [--json]\n", name, sanitize.Arg(a), name)
			return false, false
		}
		asJSON = true
	}
	return asJSON, true
}

// writeJSON writes v as the indented JSON every --json output uses.
// encoding/json escapes control characters, so no cleaning is needed.
func writeJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return ExitFail
	}
	return ExitOK
}
