package server

import (
	"fmt"
	"strings"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/sanitize"
)

func roomsCommand() command {
	return command{
		name:    "rooms",
		args:    "[--json]",
		summary: "open public rooms",
		run:     runRooms,
	}
}

// roomJSON is the stable --json shape of a room; fields are only added.
type roomJSON struct {
	ID      string   `json:"id"`
	Game    string   `json:"game"`
	Mode    string   `json:"mode"`
	Phase   string   `json:"phase"`
	Players []string `json:"players"`
	Seats   int      `json:"seats"`
}

func runRooms(srv *Server, s *Session, args []string) int {
	args, asJSON := hasFlag(args, "--json")
	if len(args) > 0 {
		fmt.Fprintf(s.ErrOut(), "termarena: rooms takes no arguments (got %q)\nusage: rooms [--json]\n", sanitize.Arg(args[0]))
		return ExitUsage
	}
	rooms, _ := srv.deps.Rooms.List()
	list := make([]roomJSON, 0, len(rooms))
	for _, r := range rooms {
		j := roomJSON{ID: r.ID(), Game: r.Game.Name(), Mode: r.Mode.Name, Players: []string{}}
		if fr, _ := r.Latest(); fr != nil {
			j.Phase = strings.ToLower(fr.Phase.String())
			j.Seats = len(fr.Seats)
			for _, seat := range fr.Seats {
				if seat.Taken {
					j.Players = append(j.Players, seat.Player.Name)
				}
			}
		} else {
			j.Phase = strings.ToLower(game.Waiting.String())
		}
		list = append(list, j)
	}
	out := s.Out()
	if asJSON {
		return writeJSON(out, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(out, "no open rooms — create one in the lobby: ssh -t HOST")
		return ExitOK
	}
	fmt.Fprintf(out, "%-6s %-5s %-10s %-7s %s\n", "ROOM", "MODE", "PHASE", "SEATS", "PLAYERS")
	for _, r := range list {
		fmt.Fprintf(out, "%-6s %-5s %-10s %d/%-5d %s\n", r.ID, r.Mode, r.Phase, len(r.Players), r.Seats, strings.Join(r.Players, ", "))
	}
	return ExitOK
}
