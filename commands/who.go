package commands

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/termarena/termarena/service"
)

// Who is `who [--json]`: the players online and what each is doing
// (lobby, queueing for a mode, playing or watching a room, a replay), how
// many guests, and each ranked and quick-match queue's count.
func Who(ctx context.Context, d Deps, _ Caller, args []string, stdout, stderr io.Writer) int {
	asJSON, ok := onlyJSON("who", args, stderr)
	if !ok {
		return ExitUsage
	}
	w, _, err := d.Service.Who(ctx)
	if err != nil {
		d.log().Error("who", "err", err)
		fmt.Fprintln(stderr, "termarena: could not list who is online; please try again")
		return ExitFail
	}
	if asJSON {
		return writeJSON(stdout, w)
	}
	if len(w.Players) == 0 && w.Guests == 0 {
		fmt.Fprintln(stdout, "nobody is online")
	}
	// In a cluster each player's node has a column; a single node's
	// listing is as it was.
	clustered := slices.ContainsFunc(w.Players, func(p service.OnlinePlayer) bool { return p.Node != "" })
	if len(w.Players) > 0 {
		if clustered {
			fmt.Fprintf(stdout, "%-16s %-12s %s\n", "PLAYER", "NODE", "DOING")
		} else {
			fmt.Fprintf(stdout, "%-16s %s\n", "PLAYER", "DOING")
		}
		for _, p := range w.Players {
			if clustered {
				fmt.Fprintf(stdout, "%-16s %-12s %s\n", p.Name, p.Node, p.Activity())
			} else {
				fmt.Fprintf(stdout, "%-16s %s\n", p.Name, p.Activity())
			}
		}
	}
	switch w.Guests {
	case 0:
	case 1:
		fmt.Fprintln(stdout, "and 1 guest")
	default:
		fmt.Fprintf(stdout, "and %d guests\n", w.Guests)
	}
	if len(w.Queues) > 0 {
		qs := make([]string, 0, len(w.Queues))
		for _, q := range w.Queues {
			qs = append(qs, fmt.Sprintf("%s %d/%d", q.Mode, q.Waiting, q.Needs))
		}
		fmt.Fprintf(stdout, "ranked queues (waiting/needed): %s\n", strings.Join(qs, " · "))
	}
	if len(w.Quick) > 0 {
		// Players waiting for a casual match wait too: without this
		// line who showed them queueing and counted none.
		qs := make([]string, 0, len(w.Quick))
		for _, q := range w.Quick {
			qs = append(qs, fmt.Sprintf("%s %d/%d", q.Mode, q.Waiting, q.Needs))
		}
		fmt.Fprintf(stdout, "quick-match queues (waiting/needed): %s\n", strings.Join(qs, " · "))
	}
	return ExitOK
}
