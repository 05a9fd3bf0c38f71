package lobby

import "strings"

// What a session is doing, as Activity.Doing names it.
const (
	DoingLobby    = "lobby"
	DoingQueue    = "queue"    // waiting in a ranked or quick-match queue: Activity.Mode
	DoingPlaying  = "playing"  // seated in a room: Activity.Room
	DoingWatching = "watching" // spectating a room: Activity.Room
	DoingReplay   = "replay"   // watching a recorded match: Activity.Match
)

// Activity is what a session is doing, read from its Presence.Where
// ("lobby", "room r3", "queue pong-1v1", "quick pong-1v1", "watching r2",
// "replay 42": the
// words the lobby model reports and `admin sessions` shows).
type Activity struct {
	Doing string
	Mode  string // the mode of a queue
	// Casual: the queue is a quick match's ("quick pong-1v1"), unrated.
	Casual bool
	Room   string // the room played or watched
	Match  string // the match a replay is of
}

// Activity reads p.Where. A place it does not know reads as the lobby:
// the listings then show a player as idle rather than guess.
func (p Presence) Activity() Activity {
	kind, arg, _ := strings.Cut(p.Where, " ")
	switch {
	case kind == "room" && arg != "":
		return Activity{Doing: DoingPlaying, Room: arg}
	case kind == "queue" && arg != "":
		return Activity{Doing: DoingQueue, Mode: arg}
	case kind == "quick" && arg != "":
		return Activity{Doing: DoingQueue, Mode: arg, Casual: true}
	case kind == "watching" && arg != "":
		return Activity{Doing: DoingWatching, Room: arg}
	case kind == "replay" && arg != "":
		return Activity{Doing: DoingReplay, Match: arg}
	}
	return Activity{Doing: DoingLobby}
}

// String is the activity in the words the listings use: "lobby",
// "queueing for pong-1v1", "queueing for pong-1v1 (casual)", "playing in
// r3", "watching r2", "replay 42".
func (a Activity) String() string {
	switch a.Doing {
	case DoingQueue:
		if a.Casual {
			return "queueing for " + a.Mode + " (casual)"
		}
		return "queueing for " + a.Mode
	case DoingPlaying:
		return "playing in " + a.Room
	case DoingWatching:
		return "watching " + a.Room
	case DoingReplay:
		return "replay " + a.Match
	}
	return DoingLobby
}

// rank orders activities by how engaged they are, for a player with
// several sessions: playing outranks queueing, which outranks watching.
func (a Activity) rank() int {
	switch a.Doing {
	case DoingPlaying:
		return 4
	case DoingQueue:
		return 3
	case DoingWatching:
		return 2
	case DoingReplay:
		return 1
	}
	return 0
}
