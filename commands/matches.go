package commands

import (
	"context"
	"fmt"
	"io"

	"github.com/termarena/termarena/cmdargs"
)

// Matches is `matches [NAME] [--limit N] [--json]`: a player's match
// history, newest first; the caller's own without NAME.
func Matches(ctx context.Context, d Deps, who Caller, args []string, stdout, stderr io.Writer) int {
	p, err := cmdargs.Parse(args, []string{"json"}, []string{"limit"})
	limit := 0
	if err == nil {
		limit, err = p.Limit(20, 200)
	}
	if err != nil {
		fmt.Fprintf(stderr, "termarena: matches: %v\nusage: matches [NAME] [--limit N] [--json]\n", err)
		return ExitUsage
	}
	pl, code := whose(ctx, d, who, p.Pos, stderr)
	if code != ExitOK {
		return code
	}
	ms, err := d.Service.Matches(ctx, pl.Fingerprint, limit)
	if err != nil {
		d.log().Error("matches", "err", err)
		return readFailed(stderr, "the match history", err)
	}
	return writeMatches(stdout, pl.Fingerprint, ms, p.Bools["json"], pl.Name+" has no matches yet")
}
