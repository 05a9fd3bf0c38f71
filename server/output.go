package server

import (
	"encoding/json"
	"io"

	"github.com/termarena/termarena/store"
)

// writeJSON writes v as the indented JSON every --json listing uses.
func writeJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return ExitFail
	}
	return ExitOK
}

// writeMatches prints a match listing from player fp's side (matches and
// replays share it), or says empty when there is none.
func writeMatches(w io.Writer, fp string, ms []store.MatchRecord, asJSON bool, empty string) int {
	if asJSON {
		out := []matchJSON{}
		for _, m := range ms {
			out = append(out, toMatchJSON(m))
		}
		return writeJSON(w, out)
	}
	if len(ms) == 0 {
		io.WriteString(w, empty+"\n")
		return ExitOK
	}
	printMatches(w, fp, ms)
	return ExitOK
}
