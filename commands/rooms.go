package commands

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// Rooms is `rooms [--json]`: the open public rooms.
func Rooms(ctx context.Context, d Deps, _ Caller, args []string, stdout, stderr io.Writer) int {
	asJSON, ok := onlyJSON("rooms", args, stderr)
	if !ok {
		return ExitUsage
	}
	list, err := d.Service.Rooms(ctx)
	if err != nil {
		d.log().Error("rooms", "err", err)
		fmt.Fprintln(stderr, "termarena: could not list the rooms; please try again")
		return ExitFail
	}
	if asJSON {
		return writeJSON(stdout, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(stdout, "no open rooms — create one in the lobby: ssh -t HOST")
		return ExitOK
	}
	fmt.Fprintf(stdout, "%-6s %-5s %-10s %-7s %s\n", "ROOM", "MODE", "PHASE", "SEATS", "PLAYERS")
	for _, r := range list {
		fmt.Fprintf(stdout, "%-6s %-5s %-10s %d/%-5d %s\n", r.ID, r.Mode, r.Phase, len(r.Players), r.Seats, strings.Join(r.Players, ", "))
	}
	return ExitOK
}
