package lobby

import (
	"fmt"

	"github.com/termarena/termarena/game"
)

// RoomInfo is a room's summary: what a list of rooms shows about it,
// whoever lists it (`rooms`, `admin rooms`, the lobby's room list, the
// watch chooser, later the web). It is computed in one place, Room.Info,
// so the lists cannot disagree; it is a value, safe to keep and to send.
type RoomInfo struct {
	ID string
	// Node is the server node the room runs on; "" on a single node.
	Node string
	// Remote is a room of another node of the cluster (Rooms.SetRemote):
	// it is joined and watched on its node, not here.
	Remote bool
	// SSH is the address (host:port) a remote room's node is reached at
	// over SSH, as that node advertises it ("" when not known).
	SSH  string
	Game string // the game's name ("pong")
	Mode string // the game's mode ("1v1")
	// Queue is a ranked room's queue ("pong-1v1"); "" for a casual room.
	Queue RankedMode
	// Phase is the room's phase at its latest tick; Waiting before the
	// room has ticked once (Started false).
	Phase   game.Phase
	Started bool
	// Seats is how many seats the room has; Players the taken ones, in
	// seat order.
	Seats   int
	Players []SeatInfo
	Ranked  bool
	// Private rooms are reached by their join code only (ranked rooms are
	// private too, but watchable by id).
	Private  bool
	Watchers int
	// Practice is the bots' level in a practice room, 0 elsewhere.
	Practice int
	// Label names the room's mode as lists show it: "pong-1v1 · ranked",
	// "1v1 · casual".
	Label string
	// Standing is each seat's score at that tick, for a game that keeps
	// one (game.Scorer); nil otherwise. Lists show it by phase.
	Standing []int
	// State is the game's snapshot at that tick (nil before the first),
	// for a game's view to write its own score text.
	State any
}

// SeatInfo is one taken seat of a room.
type SeatInfo struct {
	Slot      int
	ID        game.PlayerID
	Name      string
	Connected bool
}

// Names are the seated players' names, in seat order ([] when none).
func (ri RoomInfo) Names() []string {
	out := make([]string, 0, len(ri.Players))
	for _, p := range ri.Players {
		out = append(out, p.Name)
	}
	return out
}

// Filed is the mode its matches are filed under: the ranked queue,
// "practice-" and the mode for a practice room, or "casual-" and the mode
// ("casual-1v1").
func (ri RoomInfo) Filed() string {
	if ri.Practice > 0 {
		return PracticePrefix + ri.Mode
	}
	return filedMode(ri.Queue, ri.Mode)
}

// node is the cluster node the room runs on.
func (r *Room) node() string {
	if r.rooms == nil {
		return ""
	}
	return r.rooms.cfg.Node
}

// Info summarises the room as it is at its latest tick. It reads the
// room's published frame and counters only, so it never waits on the
// room's goroutine.
func (r *Room) Info() RoomInfo {
	ri := RoomInfo{ID: r.ID(), Node: r.node(), Game: r.Game.Name(), Mode: r.Mode.Name, Queue: r.Ranked, Phase: game.Waiting,
		Seats: r.Mode.Seats, Ranked: r.Ranked != "", Private: r.Private, Watchers: r.Watchers(), Practice: r.Practice, Players: []SeatInfo{}}
	switch {
	case r.Ranked != "":
		ri.Label = string(r.Ranked) + " · ranked"
	case r.Practice > 0:
		ri.Label = fmt.Sprintf("%s · practice, bots level %d", r.Mode.Name, r.Practice)
	default:
		ri.Label = r.Mode.Name + " · casual"
	}
	fr, _ := r.Latest()
	if fr == nil {
		return ri
	}
	ri.Started, ri.Phase, ri.Seats, ri.State = true, fr.Phase, len(fr.Seats), fr.State
	for slot, s := range fr.Seats {
		if s.Taken {
			ri.Players = append(ri.Players, SeatInfo{Slot: slot, ID: s.Player.ID, Name: s.Player.Name, Connected: s.Connected})
		}
	}
	if sc, ok := fr.State.(game.Scorer); ok {
		ri.Standing = sc.Standing()
	}
	return ri
}

// Listing is which rooms a list holds.
type Listing int

const (
	// Public rooms: the ones players can join by id.
	Public Listing = iota
	// Watchable rooms: public rooms and ranked matches.
	Watchable
	// Every room, private ones included (for operators).
	Every
)

// Infos summarises the rooms of a listing, oldest first, then other
// nodes' (Remote) for the public and watchable listings.
func (rs *Rooms) Infos(which Listing) []RoomInfo {
	var rooms []*Room
	switch which {
	case Public:
		rooms, _ = rs.List()
	case Watchable:
		rooms, _ = rs.Live()
	default:
		rooms = rs.All()
	}
	out := make([]RoomInfo, 0, len(rooms))
	for _, r := range rooms {
		out = append(out, r.Info())
	}
	if which != Every {
		// Players see the whole cluster's rooms; operators' Every is
		// the rooms this node runs, the ones they can act on here.
		out = append(out, rs.Remote(which)...)
	}
	return out
}
