// Package commands owns termarena's plain-text commands — `rooms`,
// `leaderboard`, `profile`, `matches`, `replays` — as functions over the
// service layer: each parses its arguments, asks the service, and writes
// text or `--json` to stdout, errors to stderr, returning the exit code.
// None of them knows about SSH, so each is tested with a store in a temp
// dir and two buffers; the SSH server only routes a session to them.
package commands

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"

	"github.com/termarena/termarena/service"
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
}

// Caller is who runs a command: a player's key fingerprint and name, or a
// guest (who has no key, so no profile of their own).
type Caller struct {
	ID    string
	Name  string
	Guest bool
}

// Func is the signature every command has.
type Func func(ctx context.Context, d Deps, who Caller, args []string, stdout, stderr io.Writer) int

func (d Deps) log() *slog.Logger {
	if d.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return d.Log
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
