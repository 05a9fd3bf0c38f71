package commands

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/termarena/termarena/cmdargs"
	"github.com/termarena/termarena/sanitize"
)

// Leaderboard is `leaderboard [--mode M] [--limit N] [--json]`: the best
// rated players of a ranked mode, the first if none is named.
func Leaderboard(ctx context.Context, d Deps, _ Caller, args []string, stdout, stderr io.Writer) int {
	svc := d.Service
	usage := "usage: leaderboard [--mode " + strings.Join(svc.Modes(), "|") + "] [--limit N] [--json]"
	p, err := cmdargs.Parse(args, []string{"json"}, []string{"mode", "limit"})
	if err == nil && len(p.Pos) > 0 {
		err = fmt.Errorf("unexpected argument %q", sanitize.Arg(p.Pos[0]))
	}
	var mode string
	if err == nil {
		mode, err = svc.ParseMode(p.Vals["mode"])
	}
	limit := 0
	if err == nil {
		limit, err = p.Limit(20, 1000)
	}
	if err != nil {
		fmt.Fprintf(stderr, "termarena: leaderboard: %v\n%s\n", err, usage)
		return ExitUsage
	}
	lb, err := svc.Leaderboard(ctx, mode, limit)
	if err != nil {
		d.log().Error("leaderboard", "err", err)
		fmt.Fprintln(stderr, "termarena: could not read the leaderboard; please try again")
		return ExitFail
	}
	if p.Bools["json"] {
		return writeJSON(stdout, lb)
	}
	if len(lb.Players) == 0 {
		fmt.Fprintf(stdout, "no rated %s games yet — be the first: ssh -t HOST play %s\n", mode, mode)
		return ExitOK
	}
	fmt.Fprintf(stdout, "%-4s  %-16s  %7s  %5s  %5s\n", "RANK", "NAME", "RATING", "GAMES", "WIN%")
	for _, r := range lb.Players {
		fmt.Fprintf(stdout, "%4d  %-16s  %7s  %5d  %4.0f%%\n", r.Rank, r.Name, r.Display, r.Games, r.WinPct)
	}
	return ExitOK
}
