package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/store"
)

// whose resolves the player a profile or history command is about: the
// one named in pos, or the caller. Anything but ExitOK has been explained
// on stderr.
func whose(ctx context.Context, d Deps, who Caller, pos []string, stderr io.Writer) (store.Player, int) {
	if len(pos) > 1 {
		fmt.Fprintf(stderr, "termarena: unexpected argument %q\n", sanitize.Arg(pos[1]))
		return store.Player{}, ExitUsage
	}
	if len(pos) == 0 {
		if who.Guest {
			fmt.Fprintln(stderr, "termarena: guests have no profile; connect with an SSH key, or name a player")
			return store.Player{}, ExitFail
		}
		p, err := d.Service.PlayerByKey(ctx, who.ID)
		if err != nil {
			d.log().Error("player record", "fingerprint", who.ID, "err", err)
			return store.Player{}, readFailed(stderr, "your player record", err)
		}
		return p, ExitOK
	}
	p, err := d.Service.PlayerNamed(ctx, pos[0])
	switch {
	case errors.Is(err, service.ErrNoPlayer):
		fmt.Fprintf(stderr, "termarena: no player named %q\n", sanitize.Arg(pos[0]))
		return store.Player{}, ExitFail
	case err != nil:
		d.log().Error("player by name", "err", err)
		return store.Player{}, readFailed(stderr, "that player", err)
	}
	return p, ExitOK
}

// writeMatches prints a match listing from player fp's side (matches and
// replays share it; "" is nobody's), or says empty when there is none.
func writeMatches(w io.Writer, fp string, ms []service.Match, asJSON bool, empty string) int {
	if asJSON {
		return writeJSON(w, ms)
	}
	if len(ms) == 0 {
		io.WriteString(w, empty+"\n")
		return ExitOK
	}
	printMatches(w, fp, ms)
	return ExitOK
}

// printMatches writes one aligned line per match from player fp's side:
// the RESULT and RATING columns are that player's. For "" (the server's
// listing, nobody's side) there are no such columns: a guest has no
// fingerprint either, so matching rows by "" put a guest's result in them.
// An aborted match says so in both. MODE is as wide as the widest mode
// listed ("practice-tron-ffa" is 17) and PLAYERS, the one column of no
// fixed width, comes last, so a long mode or a four-player line never
// pushes another column out of line: a 1v1 row fits 80 columns. RESULT is
// as wide as its widest word, "abandoned".
func printMatches(w io.Writer, fp string, ms []service.Match) {
	modeW := len("MODE")
	for _, m := range ms {
		modeW = max(modeW, len(m.Mode))
	}
	if fp == "" {
		fmt.Fprintf(w, "%7s  %-*s  %-16s  %s\n", "ID", modeW, "MODE", "WHEN", "PLAYERS")
	} else {
		fmt.Fprintf(w, "%7s  %-*s  %-16s  %-9s  %-6s  %s\n", "ID", modeW, "MODE", "WHEN", "RESULT", "RATING", "PLAYERS")
	}
	for _, m := range ms {
		result, change := "", ""
		var names []string
		for _, p := range m.Players {
			name := fmt.Sprintf("%s %d", p.Name, p.Score)
			if p.Left {
				name += " (left)" // walked out or did not come back in time: a loss
			}
			names = append(names, name)
			if fp == "" || p.Fingerprint != fp {
				continue
			}
			switch {
			case m.Aborted:
				result = "aborted"
			case m.Abandoned:
				result = "abandoned"
			case p.Place == 1:
				result = "won"
			default:
				result = fmt.Sprintf("%d%s", p.Rank, ordinal(p.Rank))
			}
			if m.Ranked && !m.Aborted {
				change = fmt.Sprintf("%+d", p.RatingAfter-p.RatingBefore)
			}
		}
		id := strconv.FormatUint(m.ID, 10)
		if m.Replay {
			id += "▶" // replay stored
		}
		when := m.Started.UTC().Format("2006-01-02 15:04")
		players := strings.Join(names, ", ")
		if fp == "" {
			if m.Aborted {
				players = "aborted: " + players
			}
			fmt.Fprintf(w, "%7s  %-*s  %-16s  %s\n", id, modeW, m.Mode, when, players)
			continue
		}
		fmt.Fprintf(w, "%7s  %-*s  %-16s  %-9s  %-6s  %s\n", id, modeW, m.Mode, when, result, change, players)
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
