package cluster

import (
	"encoding/json"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

// subjectRooms carries every node's room directory: each node publishes
// the whole list of its watchable rooms (public rooms and ranked
// matches) there, and on subjectRooms+".delta" the rooms opened, closed
// or moved on (phase, players, score) since, at once when one opens or
// closes and every heartbeat for the rest (delta.go).
const subjectRooms = "termarena.rooms"

// Directory is where a node's rooms are and where the others' go:
// *lobby.Rooms implements it.
type Directory interface {
	// Local lists this node's watchable rooms, and a channel closed when
	// one opens or closes.
	Local() ([]lobby.RoomInfo, <-chan struct{})
	// SetRemote replaces what is known of another node's rooms (nil
	// forgets the node).
	SetRemote(node string, infos []lobby.RoomInfo)
}

// roomsMsg is a node's rooms on the wire (version 1; fields are only
// added). Bye says the node is leaving: forget its rooms now.
type roomsMsg struct {
	V     int        `json:"v"`
	Node  string     `json:"node"`
	Bye   bool       `json:"bye,omitempty"`
	SSH   string     `json:"ssh,omitempty"` // the node's advertised SSH address
	Rooms []roomWire `json:"rooms"`
	// Seq and Deltas as presenceMsg's.
	Seq    uint64 `json:"seq,omitempty"`
	Deltas int    `json:"deltas,omitempty"`
}

// roomWire is lobby.RoomInfo less the game's snapshot (State), which
// only the room's own node can draw.
type roomWire struct {
	ID       string     `json:"id"`
	Game     string     `json:"game"`
	Mode     string     `json:"mode"`
	Queue    string     `json:"queue,omitempty"`
	Phase    game.Phase `json:"phase"`
	Started  bool       `json:"started,omitempty"`
	Seats    int        `json:"seats"`
	Players  []seatWire `json:"players,omitempty"`
	Ranked   bool       `json:"ranked,omitempty"`
	Private  bool       `json:"private,omitempty"`
	Watchers int        `json:"watchers,omitempty"`
	Practice int        `json:"practice,omitempty"`
	Label    string     `json:"label"`
	Standing []int      `json:"standing,omitempty"`
}

type seatWire struct {
	Slot      int    `json:"slot"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	Connected bool   `json:"connected,omitempty"`
}

func roomToWire(ri lobby.RoomInfo) roomWire {
	w := roomWire{ID: ri.ID, Game: ri.Game, Mode: ri.Mode, Queue: string(ri.Queue), Phase: ri.Phase, Started: ri.Started, Seats: ri.Seats,
		Ranked: ri.Ranked, Private: ri.Private, Watchers: ri.Watchers, Practice: ri.Practice, Label: ri.Label, Standing: ri.Standing}
	for _, p := range ri.Players {
		w.Players = append(w.Players, seatWire{Slot: p.Slot, ID: string(p.ID), Name: p.Name, Connected: p.Connected})
	}
	return w
}

func roomFromWire(node string, w roomWire) lobby.RoomInfo {
	ri := lobby.RoomInfo{ID: w.ID, Node: node, Remote: true, Game: w.Game, Mode: w.Mode, Queue: lobby.RankedMode(w.Queue), Phase: w.Phase,
		Started: w.Started, Seats: w.Seats, Players: make([]lobby.SeatInfo, 0, len(w.Players)), Ranked: w.Ranked, Private: w.Private,
		Watchers: w.Watchers, Practice: w.Practice, Label: w.Label, Standing: w.Standing}
	for _, p := range w.Players {
		ri.Players = append(ri.Players, lobby.SeatInfo{Slot: p.Slot, ID: game.PlayerID(p.ID), Name: p.Name, Connected: p.Connected})
	}
	return ri
}

// roomsMessage is node's directory message: its rooms, or its goodbye.
func roomsMessage(node string, bye bool, local []lobby.RoomInfo) roomsMsg {
	m := roomsMsg{V: 1, Node: node, Bye: bye, Rooms: make([]roomWire, 0, len(local))}
	for _, ri := range local {
		m.Rooms = append(m.Rooms, roomToWire(ri))
	}
	return m
}

// encodeRooms is roomsMessage as sent.
func encodeRooms(node string, bye bool, local []lobby.RoomInfo) []byte {
	b, _ := json.Marshal(roomsMessage(node, bye, local)) // plain strings and numbers: cannot fail
	return b
}

func (m roomsMsg) header() (string, bool) { return m.Node, m.Bye }

// splitRooms and joinRooms: a room's key in deltas is its id.
func splitRooms(m roomsMsg) (ssh string, seq uint64, reads bool, items []keyed) {
	return m.SSH, m.Seq, m.Deltas >= deltaVersion, keyItems(m.Rooms, func(w roomWire) string { return w.ID })
}

func joinRooms(node, ssh string, seq uint64, items []keyed) roomsMsg {
	return roomsMsg{V: 1, Node: node, SSH: ssh, Seq: seq, Deltas: deltaVersion, Rooms: unkeyItems[roomWire](items)}
}

// ShareRooms tells the other nodes which rooms run on this one, at once
// when one opens or closes and every heartbeat (presence's timing), and
// hands what they say to d, forgetting a node not heard from for
// t.Forget. One goroutine owns the other nodes' state; stop ends it,
// saying goodbye, and returns once it has.
func (n *Node) ShareRooms(d Directory, t PresenceTiming) (stop func(), err error) {
	t = t.withDefaults()
	s := &share[roomsMsg]{subject: subjectRooms, what: "rooms", beat: t.beat(), fullEvery: t.Full, drop: t.drop,
		local: func() (roomsMsg, <-chan struct{}) {
			local, changed := d.Local()
			m := roomsMessage(n.name, false, local)
			m.SSH = n.SSH()
			return m, changed
		},
		bye:    func() roomsMsg { return roomsMessage(n.name, true, nil) },
		forget: func(node string) { d.SetRemote(node, nil) },
		heard: func(m roomsMsg) {
			infos := make([]lobby.RoomInfo, 0, len(m.Rooms))
			for _, w := range m.Rooms {
				ri := roomFromWire(m.Node, w)
				ri.SSH = m.SSH
				infos = append(infos, ri)
			}
			d.SetRemote(m.Node, infos)
		},
	}
	if !t.wholeOnly {
		s.split, s.join = splitRooms, joinRooms
	}
	return s.start(n)
}
