package server

import (
	"errors"
	"fmt"

	"github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/sanitize"
)

func joinCommand() command {
	return command{
		name:    "join",
		args:    "ROOM|CODE [SEAT]",
		summary: "go straight into a room (needs a terminal: ssh -t)",
		detail: "ROOM is a public room's id (r3, as `rooms` lists them; r3@NODE in a cluster,\n" +
			"joined on that node); CODE a private room's\n" +
			"five-letter join code. SEAT asks for a seat, by its number from 1 or by its\n" +
			"name: a Pong room's sides are left and right (1v1), or left, right, top and\n" +
			"bottom. Exit status 1 when no such room is open, when it is full or when your\n" +
			"terminal is too small for its game, 2 when it has no such seat.",
		tui: true,
		run: func(srv *Server, s *Session, args []string) int {
			if len(args) < 1 || len(args) > 2 {
				fmt.Fprintln(s.ErrOut(), "usage: ssh -t HOST join ROOM|CODE [SEAT]")
				return ExitUsage
			}
			ref := sanitize.Text(args[0], maxRoomRef)
			side := -1
			r, err := srv.deps.Rooms.Find(ref)
			if len(args) == 2 && err == nil {
				// A room that is not found is the lobby's to explain.
				slot, ok := r.Mode.ParseSeat(args[1])
				if !ok {
					fmt.Fprintf(s.ErrOut(), "termarena: %s is a %s room with no seat %q: its seats are %s\n", r.ID(), r.Mode.Name, sanitize.Arg(args[1]), r.Mode.SeatList())
					return ExitUsage
				}
				side = slot
			}
			if err != nil {
				// Not a public room or a code: a ranked match's own
				// players may still come back to it by id (the lobby
				// seats them); anything else is refused here, before a
				// screen opens, as replay refuses an unknown match.
				rr, werr := srv.deps.Rooms.Watchable(ref)
				var elsewhere *lobby.ElsewhereError
				switch {
				case errors.As(werr, &elsewhere):
					fmt.Fprintf(s.ErrOut(), "termarena: %s is on node %s: %s\n", elsewhere.What(), elsewhere.Node, elsewhere.Reach("join it", "join", elsewhere.Ref()))
					return ExitFail
				case werr != nil:
					fmt.Fprintf(s.ErrOut(), "termarena: no room %q is open (ssh HOST rooms lists them)\n", sanitize.Arg(ref))
					return ExitFail
				case !seatedIn(s, rr):
					fmt.Fprintf(s.ErrOut(), "termarena: %s is a ranked match: only its players sit in it; watch it with: ssh -t HOST spectate %s\n", rr.ID(), rr.ID())
					return ExitFail
				}
			}
			if err == nil && roomIsFull(s, r) {
				fmt.Fprintf(s.ErrOut(), "termarena: %s is full (%d players); watch it with: ssh -t HOST spectate %s\n", r.ID(), r.Mode.Seats, ref)
				return ExitFail
			}
			if err == nil && !seatedIn(s, r) {
				if why := srv.tooSmall(s, fmt.Sprintf("%s (%s %s)", r.ID(), r.Game.Name(), r.Mode.Name), r.Game.Name(), r.Mode.Name); why != "" {
					fmt.Fprint(s.ErrOut(), tooSmallNotice(why))
					return ExitFail
				}
			}
			return srv.runLobby(s, lobbyStart{join: ref, side: side})
		},
	}
}

// roomIsFull: r has no free seat for the session's player (whose own
// seat, coming back to it, does not count as taken). A full room is a
// plain line with an exit status a script can test; anything else (a
// seat taken while others are free) is the lobby's to explain, where the
// player can pick again.
func roomIsFull(s *Session, r *lobby.Room) bool {
	fr, _ := r.Latest()
	if fr == nil {
		return false
	}
	me := game.PlayerID(s.Identity().ID)
	// Before a match a bot gives up its seat to a person (lobby.Room.Join).
	between := fr.Phase == game.Waiting || fr.Phase == game.Finished
	for _, seat := range fr.Seats {
		if !seat.Taken || seat.Player.ID == me || (between && bot.IsBot(seat.Player.ID)) {
			return false
		}
	}
	return true
}

// maxRoomRef bounds a typed room id or join code: a cluster's ids carry
// their node's name (up to 64 characters, --node).
const maxRoomRef = 80
