package server

import (
	"fmt"
	"strings"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/sanitize"
)

// sideNames are the sides in slot order: slot i plays side i.
var sideNames = [...]string{"left", "right", "top", "bottom"}

func joinCommand() command {
	return command{
		name:    "join",
		args:    "ROOM|CODE [left|right|top|bottom]",
		summary: "go straight into a room (needs a terminal: ssh -t)",
		detail: "ROOM is a public room's id (r3, as `rooms` lists them); CODE a private room's\n" +
			"five-letter join code. A side asks for a seat: 1v1 rooms have left and right,\n" +
			"2v2 and free-for-all rooms all four. Exit status 1 when the room is full,\n" +
			"2 when it has no such side.",
		tui: true,
		run: func(srv *Server, s *Session, args []string) int {
			if len(args) < 1 || len(args) > 2 {
				fmt.Fprintln(s.ErrOut(), "usage: ssh -t HOST join ROOM|CODE [left|right|top|bottom]")
				return ExitUsage
			}
			side := -1
			if len(args) == 2 {
				for i, n := range sideNames {
					if args[1] == n {
						side = i
					}
				}
				if side < 0 {
					fmt.Fprintf(s.ErrOut(), "termarena: unknown side %q: want left, right, top or bottom\n", sanitize.Arg(args[1]))
					return ExitUsage
				}
			}
			ref := sanitize.Text(args[0], 32)
			if code, refused := srv.refuseJoin(s, ref, side); refused {
				return code
			}
			return srv.runLobby(s, lobbyStart{join: ref, side: side})
		},
	}
}

// refuseJoin answers, before the lobby starts, a join the room cannot
// take: a side its mode does not have is a usage error, a full room a
// failure. Both are plain lines with an exit status a script can test;
// anything else (no such room, a side taken while others are free) is
// the lobby's to explain, where the player can pick again.
func (srv *Server) refuseJoin(s *Session, ref string, side int) (int, bool) {
	r, err := srv.deps.Rooms.Find(ref)
	if err != nil {
		return 0, false
	}
	fr, _ := r.Latest()
	if fr == nil {
		return 0, false
	}
	me := game.PlayerID(s.Identity().ID)
	free := 0
	for _, seat := range fr.Seats {
		if seat.Taken && seat.Player.ID == me {
			return 0, false // coming back to their own seat
		}
		if !seat.Taken {
			free++
		}
	}
	if n := len(fr.Seats); side >= n && n <= len(sideNames) {
		fmt.Fprintf(s.ErrOut(), "termarena: %s is a %s room: sides are %s\n", r.ID(), r.Mode.Name, listSides(n))
		return ExitUsage, true
	}
	if free == 0 {
		fmt.Fprintf(s.ErrOut(), "termarena: %s is full (%d players); watch it with: ssh -t HOST spectate %s\n", r.ID(), len(fr.Seats), ref)
		return ExitFail, true
	}
	return 0, false
}

// listSides names the first n sides: "left and right".
func listSides(n int) string {
	names := sideNames[:n]
	if n < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:n-1], ", ") + " and " + names[n-1]
}
