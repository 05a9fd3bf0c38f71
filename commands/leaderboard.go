package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/termarena/termarena/cmdargs"
	"github.com/termarena/termarena/rating"
	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/service"
)

// Leaderboard is `leaderboard [[--mode] M] [--limit N | --around NAME]
// [--json]`: the best established players of a ranked mode (the first if
// none is named), or NAME's rank with the players either side.
func Leaderboard(ctx context.Context, d Deps, _ Caller, args []string, stdout, stderr io.Writer) int {
	svc := d.Service
	usage := "usage: leaderboard [[--mode] " + strings.Join(svc.Modes(), "|") + "] [--limit N | --around NAME] [--json]"
	p, err := cmdargs.Parse(args, []string{"json"}, []string{"mode", "limit", "around"})
	// The mode may be named as play and practice name it, with no --mode
	// (and as the web's /leaderboard/MODE does): a new player types
	// `leaderboard pong-2v2`. Anything else there is a stray argument.
	named := p.Vals["mode"]
	if err == nil && len(p.Pos) > 0 {
		if _, bad := svc.ParseMode(p.Pos[0]); len(p.Pos) == 1 && named == "" && bad == nil {
			named = p.Pos[0]
		} else {
			err = fmt.Errorf("unexpected argument %q", sanitize.Arg(p.Pos[len(p.Pos)-1]))
		}
	}
	var mode string
	if err == nil {
		mode, err = svc.ParseMode(named)
	}
	limit := 0
	if err == nil {
		limit, err = p.Limit(20, 1000)
	}
	around, isAround := p.Vals["around"]
	if err == nil && isAround && p.Vals["limit"] != "" {
		err = errors.New("--around and --limit cannot go together")
	}
	if err == nil && isAround && around == "" {
		err = errors.New("--around needs a player name")
	}
	if err != nil {
		fmt.Fprintf(stderr, "termarena: leaderboard: %v\n%s\n", err, usage)
		return ExitUsage
	}
	var lb service.Leaderboard
	if isAround {
		lb, err = svc.LeaderboardAround(ctx, mode, around)
	} else {
		lb, err = svc.Leaderboard(ctx, mode, limit)
	}
	switch {
	case errors.Is(err, service.ErrNoPlayer):
		fmt.Fprintf(stderr, "termarena: leaderboard: no player is named %q\n", sanitize.Arg(around))
		return ExitFail
	case errors.Is(err, service.ErrUnranked):
		fmt.Fprintf(stderr, "termarena: leaderboard: %s is not on the %s leaderboard: it lists established ratings (± under %.0f), and theirs is provisional or not there yet\n",
			sanitize.Arg(around), mode, rating.ProvisionalDeviation)
		return ExitFail
	}
	if err != nil {
		d.log().Error("leaderboard", "err", err)
		return readFailed(stderr, "the leaderboard", err)
	}
	if p.Bools["json"] {
		return writeJSON(stdout, lb)
	}
	if len(lb.Players) == 0 {
		fmt.Fprintf(stdout, "no established %s ratings yet (a rating is established once its ± is under %.0f, after about ten games) — play: ssh -t HOST play %s\n",
			mode, rating.ProvisionalDeviation, mode)
		return ExitOK
	}
	fmt.Fprintf(stdout, "%-4s  %-16s  %7s  %4s  %5s  %5s\n", "RANK", "NAME", "RATING", "±", "GAMES", "WIN%")
	for _, r := range lb.Players {
		mark := " "
		if lb.Around != "" && r.Name == lb.Around {
			mark = ">"
		}
		fmt.Fprintf(stdout, "%s%3d  %-16s  %7s  %4d  %5d  %4.0f%%\n", mark, r.Rank, r.Name, r.Display, r.Deviation, r.Games, r.WinPct)
	}
	fmt.Fprintf(stdout, "%d established players in %s\n", lb.Ranked, mode)
	return ExitOK
}
