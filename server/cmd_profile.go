package server

import (
	"errors"
	"fmt"
	"github.com/termarena/termarena/cmdargs"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/termarena/termarena/rating"
	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/store"
)

func profileCommand() command {
	return command{
		name:    "profile",
		args:    "[NAME] [--json]",
		summary: "ratings per mode, record and recent matches",
		run:     runProfile,
	}
}

func matchesCommand() command {
	return command{
		name:    "matches",
		args:    "[NAME] [--limit N] [--json]",
		summary: "match history",
		run:     runMatches,
	}
}

// profileJSON is the stable --json shape; fields are only added.
type profileJSON struct {
	Name      string       `json:"name"`
	FirstSeen string       `json:"first_seen"`
	Ratings   []ratingJSON `json:"ratings"`
	Matches   []matchJSON  `json:"matches"`
}

type ratingJSON struct {
	Mode        string  `json:"mode"`
	Rating      int     `json:"rating"`
	Exact       float64 `json:"rating_exact"`
	Display     string  `json:"display"`
	Provisional bool    `json:"provisional"`
	Games       int     `json:"games"`
	Wins        int     `json:"wins"`
	Losses      int     `json:"losses"`
	Draws       int     `json:"draws"`
}

type matchJSON struct {
	ID       uint64            `json:"id"`
	Mode     string            `json:"mode"`
	Ranked   bool              `json:"ranked"`
	Aborted  bool              `json:"aborted"`
	Start    string            `json:"start"`
	Duration float64           `json:"duration_seconds"`
	Players  []matchPlayerJSON `json:"players"`
	// Replay is true while a replay is stored: `replay ID` plays it.
	Replay bool `json:"replay"`
}

type matchPlayerJSON struct {
	Name         string `json:"name"`
	Place        int    `json:"place"`
	Score        int    `json:"score"`
	RatingBefore int    `json:"rating_before"`
	RatingAfter  int    `json:"rating_after"`
	Left         bool   `json:"left"`
}

func toMatchJSON(m store.MatchRecord) matchJSON {
	j := matchJSON{ID: m.ID, Mode: m.Mode, Ranked: m.Ranked, Aborted: m.Aborted,
		Start: m.Start.UTC().Format(time.RFC3339), Duration: m.Duration.Seconds(), Players: []matchPlayerJSON{}, Replay: m.Replay}
	for _, p := range m.Players {
		j.Players = append(j.Players, matchPlayerJSON{Name: p.Name, Place: p.Place, Score: p.Score,
			RatingBefore: int(math.Round(p.RatingBefore)), RatingAfter: int(math.Round(p.RatingAfter)), Left: p.Left})
	}
	return j
}

// whose resolves the player a profile or history command is about: the
// named one, or the caller.
func whose(srv *Server, s *Session, pos []string) (store.Player, int) {
	if len(pos) > 1 {
		fmt.Fprintf(s.ErrOut(), "termarena: unexpected argument %q\n", sanitize.Arg(pos[1]))
		return store.Player{}, ExitUsage
	}
	if len(pos) == 0 {
		id := s.Identity()
		if id.Guest {
			fmt.Fprintln(s.ErrOut(), "termarena: guests have no profile; connect with an SSH key, or name a player")
			return store.Player{}, ExitFail
		}
		p, err := srv.deps.Store.PlayerByFingerprint(id.ID)
		if err != nil {
			fmt.Fprintln(s.ErrOut(), "termarena: could not read your player record; please try again")
			return store.Player{}, ExitFail
		}
		return p, ExitOK
	}
	p, err := srv.deps.Store.PlayerByName(pos[0])
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrInvalidName):
		fmt.Fprintf(s.ErrOut(), "termarena: no player named %q\n", sanitize.Arg(pos[0]))
		return store.Player{}, ExitFail
	case err != nil:
		fmt.Fprintln(s.ErrOut(), "termarena: could not read that player; please try again")
		return store.Player{}, ExitFail
	}
	return p, ExitOK
}

func runProfile(srv *Server, s *Session, args []string) int {
	p, err := cmdargs.Parse(args, []string{"json"}, nil)
	if err != nil {
		fmt.Fprintf(s.ErrOut(), "termarena: profile: %v\nusage: profile [NAME] [--json]\n", err)
		return ExitUsage
	}
	pl, code := whose(srv, s, p.Pos)
	if code != ExitOK {
		return code
	}
	// The same query as the lobby's profile screen.
	pr, err := srv.deps.Store.Profile(pl.Fingerprint)
	if err != nil {
		srv.log.Error("profile", "err", err)
		fmt.Fprintln(s.ErrOut(), "termarena: could not read the profile; please try again")
		return ExitFail
	}
	return printProfile(s, pr, p.Bools["json"])
}

func printProfile(s *Session, pr store.Profile, asJSON bool) int {
	pl, ratings, ms := pr.Player, pr.Ratings, pr.Matches
	w := s.Out()
	if asJSON {
		j := profileJSON{Name: pl.Name, FirstSeen: pl.FirstSeen.UTC().Format(time.RFC3339), Ratings: []ratingJSON{}, Matches: []matchJSON{}}
		for _, r := range ratings {
			j.Ratings = append(j.Ratings, ratingJSON{Mode: r.Mode, Rating: int(math.Round(r.Rating)), Exact: r.Rating,
				Display: rating.Display(r.Rating, r.Games), Provisional: rating.Provisional(r.Games),
				Games: r.Games, Wins: r.Wins, Losses: r.Losses, Draws: r.Draws})
		}
		for _, m := range ms {
			j.Matches = append(j.Matches, toMatchJSON(m))
		}
		return writeJSON(w, j)
	}
	fmt.Fprintf(w, "name         %s\n", pl.Name)
	fmt.Fprintf(w, "first seen   %s\n\n", pl.FirstSeen.UTC().Format("2006-01-02"))
	if len(ratings) == 0 {
		fmt.Fprintln(w, "no rated games yet")
	} else {
		fmt.Fprintf(w, "%-10s  %7s  %5s  %4s  %4s  %4s\n", "MODE", "RATING", "GAMES", "W", "L", "D")
		for _, r := range ratings {
			fmt.Fprintf(w, "%-10s  %7s  %5d  %4d  %4d  %4d\n", r.Mode, rating.Display(r.Rating, r.Games), r.Games, r.Wins, r.Losses, r.Draws)
		}
	}
	if len(ms) > 0 {
		fmt.Fprintln(w, "\nrecent matches")
		printMatches(w, pl.Fingerprint, ms)
	}
	return ExitOK
}

// printMatches writes one aligned line per match from player fp's side.
func printMatches(w interface{ Write([]byte) (int, error) }, fp string, ms []store.MatchRecord) {
	fmt.Fprintf(w, "%7s  %-11s  %-16s  %-7s  %-28s  %s\n", "ID", "MODE", "WHEN", "RESULT", "PLAYERS", "RATING")
	for _, m := range ms {
		result, change := "", ""
		var names []string
		for _, p := range m.Players {
			name := fmt.Sprintf("%s %d", p.Name, p.Score)
			if p.Left {
				name += " (left)" // walked out or did not come back in time: a loss
			}
			names = append(names, name)
			if p.Fingerprint != fp {
				continue
			}
			switch {
			case m.Aborted:
				result = "aborted"
			case p.Place == 1:
				result = "won"
			default:
				result = fmt.Sprintf("%d%s", p.Place, ordinal(p.Place))
			}
			if m.Ranked && !m.Aborted {
				change = fmt.Sprintf("%+d", int(math.Round(p.RatingAfter))-int(math.Round(p.RatingBefore)))
			}
		}
		id := strconv.FormatUint(m.ID, 10)
		if m.Replay {
			id += "▶" // replay stored
		}
		fmt.Fprintf(w, "%7s  %-11s  %-16s  %-7s  %-28s  %s\n", id, m.Mode, m.Start.UTC().Format("2006-01-02 15:04"), result, strings.Join(names, ", "), change)
	}
}

func ordinal(n int) string {
	switch n {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}

func runMatches(srv *Server, s *Session, args []string) int {
	usage := "usage: matches [NAME] [--limit N] [--json]"
	p, err := cmdargs.Parse(args, []string{"json"}, []string{"limit"})
	limit := 0
	if err == nil {
		limit, err = p.Limit(20, 200)
	}
	if err != nil {
		fmt.Fprintf(s.ErrOut(), "termarena: matches: %v\n%s\n", err, usage)
		return ExitUsage
	}
	pl, code := whose(srv, s, p.Pos)
	if code != ExitOK {
		return code
	}
	ms, err := srv.deps.Store.Matches(pl.Fingerprint, limit)
	if err != nil {
		srv.log.Error("matches", "err", err)
		fmt.Fprintln(s.ErrOut(), "termarena: could not read the match history; please try again")
		return ExitFail
	}
	return writeMatches(s.Out(), pl.Fingerprint, ms, p.Bools["json"], pl.Name+" has no matches yet")
}
