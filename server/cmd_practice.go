package server

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/cmdargs"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/sanitize"
)

// practiceLevel is the bots' level when none is asked for: the one a
// newcomer beats.
const practiceLevel = 1

func practiceCommand() command {
	return command{
		name:    "practice",
		args:    "[MODE] [--level N]",
		summary: "play against bots, unrated, the first mode if none is named (needs a terminal: ssh -t)",
		detail: fmt.Sprintf("MODE is any mode of any game (1v1, 2v2, ffa, tron, tron-ffa; a game's name picks\n"+
			"its first); the other seats are bots of level N, 1 (a beginner beats it) to %d\n"+
			"(default %d). Practice matches are recorded as practice-MODE: never rated, on\n"+
			"no leaderboard, watchable and replayable. Exit status 2 for an unknown MODE\n"+
			"or level, 1 when the server runs no bots or has as many practice rooms as it\n"+
			"takes.", bot.Levels, practiceLevel),
		tui: true,
		run: func(srv *Server, s *Session, args []string) int {
			usage := func(why string) int {
				if why != "" {
					fmt.Fprintf(s.ErrOut(), "termarena: practice: %s\n", why)
				}
				fmt.Fprintf(s.ErrOut(), "usage: ssh -t HOST practice [%s] [--level 1-%d]\n",
					strings.Join(lobby.PracticeModes(srv.deps.Rooms.Games()), "|"), bot.Levels)
				return ExitUsage
			}
			p, err := cmdargs.Parse(args, nil, []string{"level"})
			if err != nil {
				return usage(err.Error())
			}
			if len(p.Pos) > 1 {
				return usage("")
			}
			mode := ""
			if len(p.Pos) == 1 {
				mode = p.Pos[0]
			}
			k, m, ok := lobby.ParsePractice(srv.deps.Rooms.Games(), mode)
			if !ok {
				return usage(fmt.Sprintf("no mode %q", sanitize.Arg(mode)))
			}
			level := practiceLevel
			if v, set := p.Vals["level"]; set {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 || n > bot.Levels {
					return usage(fmt.Sprintf("no level %q: levels are 1 to %d", sanitize.Arg(v), bot.Levels))
				}
				level = n
			}
			if why := srv.tooSmall(s, fmt.Sprintf("practice (%s %s)", k.Name(), m.Name), k.Name(), m.Name); why != "" {
				fmt.Fprint(s.ErrOut(), tooSmallNotice(why))
				return ExitFail
			}
			r, err := srv.deps.Rooms.CreatePractice(k.Name(), m.Name, level)
			switch {
			case errors.Is(err, lobby.ErrBotsOff), errors.Is(err, lobby.ErrBotRoomsFull):
				fmt.Fprintf(s.ErrOut(), "termarena: practice: %v; try again later, or play people in the lobby\n", err)
				return ExitFail
			case err != nil:
				fmt.Fprintf(s.ErrOut(), "termarena: practice: %v\n", err)
				return ExitFail
			}
			return srv.runLobby(s, lobbyStart{join: r.ID(), side: 0})
		},
	}
}
