package commands

import (
	"context"
	"fmt"
	"io"

	"github.com/termarena/termarena/cmdargs"
)

// Profile is `profile [NAME] [--json]`: a player's ratings per mode, record
// and recent matches; the caller's own without NAME.
func Profile(ctx context.Context, d Deps, who Caller, args []string, stdout, stderr io.Writer) int {
	p, err := cmdargs.Parse(args, []string{"json"}, nil)
	if err != nil {
		fmt.Fprintf(stderr, "termarena: profile: %v\nusage: profile [NAME] [--json]\n", err)
		return ExitUsage
	}
	pl, code := whose(ctx, d, who, p.Pos, stderr)
	if code != ExitOK {
		return code
	}
	pr, err := d.Service.Profile(ctx, pl.Fingerprint)
	if err != nil {
		d.log().Error("profile", "err", err)
		return readFailed(stderr, "the profile", err)
	}
	if p.Bools["json"] {
		return writeJSON(stdout, pr)
	}
	fmt.Fprintf(stdout, "name         %s\n", pr.Name)
	fmt.Fprintf(stdout, "first seen   %s\n\n", pr.Player.FirstSeen.UTC().Format("2006-01-02"))
	if len(pr.Ratings) == 0 {
		fmt.Fprintln(stdout, "no rated games yet")
	} else {
		fmt.Fprintf(stdout, "%-10s  %-12s  %-11s  %5s  %4s  %4s  %4s\n", "MODE", "RATING", "RANK", "GAMES", "W", "L", "D")
		for _, r := range pr.Ratings {
			rank := "provisional"
			if r.Rank > 0 {
				rank = fmt.Sprintf("#%d of %d", r.Rank, r.Ranked)
			}
			fmt.Fprintf(stdout, "%-10s  %-12s  %-11s  %5d  %4d  %4d  %4d\n", r.Mode, r.WithDeviation, rank, r.Games, r.Wins, r.Losses, r.Draws)
		}
	}
	if len(pr.Matches) > 0 {
		fmt.Fprintln(stdout, "\nrecent matches")
		printMatches(stdout, pl.Fingerprint, pr.Matches)
	}
	return ExitOK
}
