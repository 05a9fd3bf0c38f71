package commands

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/termarena/termarena/cmdargs"
	"github.com/termarena/termarena/sanitize"
)

// Rooms is `rooms [--json]`: the open public rooms.
func Rooms(ctx context.Context, d Deps, _ Caller, args []string, stdout, stderr io.Writer) int {
	p, err := cmdargs.Parse(args, []string{"json"}, nil)
	if err == nil && len(p.Pos) > 0 {
		err = fmt.Errorf("rooms takes no arguments (got %q)", sanitize.Arg(p.Pos[0]))
	}
	if err != nil {
		fmt.Fprintf(stderr, "termarena: %v\nusage: rooms [--json]\n", err)
		return ExitUsage
	}
	list, err := d.Service.Rooms(ctx)
	if err != nil {
		d.log().Error("rooms", "err", err)
		fmt.Fprintln(stderr, "termarena: could not list the rooms; please try again")
		return ExitFail
	}
	if p.Bools["json"] {
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
