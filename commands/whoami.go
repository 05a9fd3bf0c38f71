package commands

import (
	"context"
	"fmt"
	"io"
	"time"
)

// WhoamiJSON is the stable shape of `whoami --json`; fields are only ever
// added.
type WhoamiJSON struct {
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

// Whoami is `whoami [--json]`: the caller's name, key fingerprint and
// first-seen date, as the server knows them.
func Whoami(_ context.Context, _ Deps, who Caller, args []string, stdout, stderr io.Writer) int {
	asJSON, ok := onlyJSON("whoami", args, stderr)
	if !ok {
		return ExitUsage
	}
	if asJSON {
		v := WhoamiJSON{Name: who.Name, Guest: who.Guest, Fingerprint: who.ID, KeyType: who.KeyType, Admin: who.Admin, NameNote: who.NameNote}
		if who.Guest {
			v.Fingerprint = ""
		} else {
			v.FirstSeen = who.FirstSeen.UTC().Format(time.RFC3339)
		}
		return writeJSON(stdout, v)
	}
	if who.Guest {
		fmt.Fprintf(stdout, "name         %s\n", who.Name)
		if who.NameNote != "" { // a key the server could not register
			fmt.Fprintf(stdout, "account      guest (%s)\n", who.NameNote)
			return ExitOK
		}
		fmt.Fprintln(stdout, "account      guest (no SSH key offered: nothing is saved)")
		return ExitOK
	}
	fmt.Fprintf(stdout, "name         %s\n", who.Name)
	if who.NameNote != "" {
		fmt.Fprintf(stdout, "             (%s)\n", who.NameNote)
	}
	fmt.Fprintf(stdout, "fingerprint  %s\n", who.ID)
	fmt.Fprintf(stdout, "key type     %s\n", who.KeyType)
	fmt.Fprintf(stdout, "first seen   %s\n", who.FirstSeen.UTC().Format("2006-01-02 15:04 MST"))
	if who.Admin {
		fmt.Fprintln(stdout, "role         admin")
	}
	return ExitOK
}
