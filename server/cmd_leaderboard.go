package server

import (
	"fmt"
	"github.com/termarena/termarena/cmdargs"
	"math"
	"strings"

	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/rating"
	"github.com/termarena/termarena/sanitize"
)

func leaderboardCommand() command {
	return command{
		name:    "leaderboard",
		args:    "[--mode M] [--limit N] [--json]",
		summary: "best rated players of a ranked mode, the first if none is named",
		modes:   true,
		run:     runLeaderboard,
	}
}

// leaderboardJSON is the stable --json shape; fields are only added.
type leaderboardJSON struct {
	Mode    string            `json:"mode"`
	Players []leaderboardLine `json:"players"`
}

type leaderboardLine struct {
	Rank        int     `json:"rank"`
	Name        string  `json:"name"`
	Rating      int     `json:"rating"`
	Provisional bool    `json:"provisional"`
	Games       int     `json:"games"`
	Wins        int     `json:"wins"`
	Losses      int     `json:"losses"`
	Draws       int     `json:"draws"`
	WinPct      float64 `json:"win_pct"`
}

// parseMode accepts the server's ranked mode names and their short forms
// (game.Catalog.ParseRanked); "" is the first.
func (srv *Server) parseMode(s string) (lobby.RankedMode, error) {
	games := srv.deps.Rooms.Games()
	if q, ok := games.ParseRanked(s); ok {
		return lobby.RankedMode(q), nil
	}
	return "", fmt.Errorf("unknown mode %q: want %s", sanitize.Arg(s), strings.Join(games.RankedQueues(), ", "))
}

// modeUsage is the --mode choices for a usage line.
func (srv *Server) modeUsage() string {
	return strings.Join(srv.deps.Rooms.Games().RankedQueues(), "|")
}

func winPct(wins, games int) float64 {
	if games == 0 {
		return 0
	}
	return math.Round(1000*float64(wins)/float64(games)) / 10
}

func runLeaderboard(srv *Server, s *Session, args []string) int {
	usage := "usage: leaderboard [--mode " + srv.modeUsage() + "] [--limit N] [--json]"
	p, err := cmdargs.Parse(args, []string{"json"}, []string{"mode", "limit"})
	if err == nil && len(p.Pos) > 0 {
		err = fmt.Errorf("unexpected argument %q", sanitize.Arg(p.Pos[0]))
	}
	var mode lobby.RankedMode
	if err == nil {
		mode, err = srv.parseMode(p.Vals["mode"])
	}
	limit := 0
	if err == nil {
		limit, err = p.Limit(20, 1000)
	}
	if err != nil {
		fmt.Fprintf(s.ErrOut(), "termarena: leaderboard: %v\n%s\n", err, usage)
		return ExitUsage
	}
	rows, err := srv.deps.Store.Leaderboard(string(mode), limit)
	if err != nil {
		srv.log.Error("leaderboard", "err", err)
		fmt.Fprintln(s.ErrOut(), "termarena: could not read the leaderboard; please try again")
		return ExitFail
	}
	out := leaderboardJSON{Mode: string(mode), Players: []leaderboardLine{}}
	for i, r := range rows {
		out.Players = append(out.Players, leaderboardLine{
			Rank: i + 1, Name: r.Name, Rating: int(math.Round(r.Rating)), Provisional: rating.Provisional(r.Games),
			Games: r.Games, Wins: r.Wins, Losses: r.Losses, Draws: r.Draws, WinPct: winPct(r.Wins, r.Games),
		})
	}
	w := s.Out()
	if p.Bools["json"] {
		return writeJSON(w, out)
	}
	if len(rows) == 0 {
		fmt.Fprintf(w, "no rated %s games yet — be the first: ssh -t HOST play %s\n", mode, mode)
		return ExitOK
	}
	fmt.Fprintf(w, "%-4s  %-16s  %7s  %5s  %5s\n", "RANK", "NAME", "RATING", "GAMES", "WIN%")
	for i, r := range rows {
		fmt.Fprintf(w, "%4d  %-16s  %7s  %5d  %4.0f%%\n", i+1, r.Name, rating.Display(r.Rating, r.Games), r.Games, winPct(r.Wins, r.Games))
	}
	return ExitOK
}
