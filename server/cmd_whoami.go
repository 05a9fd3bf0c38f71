package server

import (
	"fmt"
	"time"

	"github.com/termarena/termarena/sanitize"
)

func whoamiCommand() command {
	return command{
		name:    "whoami",
		args:    "[--json]",
		summary: "your name, key fingerprint and first-seen date",
		run:     runWhoami,
	}
}

// whoamiJSON is the stable --json shape; fields are only ever added.
type whoamiJSON struct {
	Name        string `json:"name"`
	Guest       bool   `json:"guest"`
	Fingerprint string `json:"fingerprint,omitempty"`
	KeyType     string `json:"key_type,omitempty"`
	FirstSeen   string `json:"first_seen,omitempty"`
	Admin       bool   `json:"admin"`
	// NameNote, at the first login only, says why the name differs from
	// the SSH user name asked for.
	NameNote string `json:"name_note,omitempty"`
}

func runWhoami(srv *Server, s *Session, args []string) int {
	args, asJSON := hasFlag(args, "--json")
	if len(args) > 0 {
		fmt.Fprintf(s.ErrOut(), "termarena: whoami takes no arguments (got %q)\nusage: whoami [--json]\n", sanitize.Arg(args[0]))
		return ExitUsage
	}
	id := s.Identity()
	out := s.Out()
	if asJSON {
		v := whoamiJSON{Name: id.Name, Guest: id.Guest, Fingerprint: id.ID, KeyType: id.KeyType, Admin: id.Admin, NameNote: id.NameNote}
		if id.Guest {
			v.Fingerprint = ""
		} else {
			v.FirstSeen = id.FirstSeen.UTC().Format(time.RFC3339)
		}
		return writeJSON(out, v)
	}
	if id.Guest {
		fmt.Fprintf(out, "name         %s\n", id.Name)
		if id.NameNote != "" { // a key the server could not register
			fmt.Fprintf(out, "account      guest (%s)\n", id.NameNote)
			return ExitOK
		}
		fmt.Fprintln(out, "account      guest (no SSH key offered: nothing is saved)")
		return ExitOK
	}
	fmt.Fprintf(out, "name         %s\n", id.Name)
	if id.NameNote != "" {
		fmt.Fprintf(out, "             (%s)\n", id.NameNote)
	}
	fmt.Fprintf(out, "fingerprint  %s\n", id.ID)
	fmt.Fprintf(out, "key type     %s\n", id.KeyType)
	fmt.Fprintf(out, "first seen   %s\n", id.FirstSeen.UTC().Format("2006-01-02 15:04 MST"))
	if id.Admin {
		fmt.Fprintln(out, "role         admin")
	}
	return ExitOK
}
