package commands

import (
	"context"
	"fmt"
	"io"

	"github.com/termarena/termarena/cmdargs"
)

// Replays is `replays [NAME] [--limit N] [--json]`: recorded matches that
// can still be replayed, the server's newest or NAME's.
func Replays(ctx context.Context, d Deps, who Caller, args []string, stdout, stderr io.Writer) int {
	p, err := cmdargs.Parse(args, []string{"json"}, []string{"limit"})
	limit := 0
	if err == nil {
		limit, err = p.Limit(20, 200)
	}
	if err != nil {
		fmt.Fprintf(stderr, "termarena: replays: %v\nusage: replays [NAME] [--limit N] [--json]\n", err)
		return ExitUsage
	}
	// No name: what is there to watch on this server, whoever played.
	fp, empty := "", "no recorded matches on this server yet"
	if len(p.Pos) > 0 {
		pl, code := whose(ctx, d, who, p.Pos, stderr)
		if code != ExitOK {
			return code
		}
		fp, empty = pl.Fingerprint, pl.Name+" has no recorded matches"
	}
	ms, err := d.Service.Replays(ctx, fp, limit)
	if err != nil {
		d.log().Error("replays", "err", err)
		return readFailed(stderr, "the replays", err)
	}
	code := writeMatches(stdout, fp, ms, p.Bools["json"], empty)
	if !p.Bools["json"] && len(ms) > 0 {
		fmt.Fprintln(stdout, "\nwatch one: ssh -t HOST replay ID")
	}
	return code
}
