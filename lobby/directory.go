package lobby

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// RoomID is the id of a node's seq'th room: "r7" on a single node, "r7@n2"
// on node n2 of a cluster, so that ids are unique across the cluster and
// say where the room runs. It is lower case, as lookups read what players
// type.
func RoomID(seq int, node string) string {
	if node == "" {
		return fmt.Sprintf("r%d", seq)
	}
	return fmt.Sprintf("r%d@%s", seq, strings.ToLower(node))
}

// ElsewhereError is a room that runs on another node of the cluster: it
// is played and watched there, so the player is told which node to
// connect to. It is an ErrNoRoom for this node's lookups.
type ElsewhereError struct {
	Room string // its id
	Node string // the node it runs on
	SSH  string // the node's advertised SSH address; "" when not known
	// Code is the join code it was asked by, for a private room ("" when
	// asked by id): what to type on its node.
	Code string
}

// Ref is what reaches the room on its node: its code, else its id.
func (e *ElsewhereError) Ref() string {
	if e.Code != "" {
		return e.Code
	}
	return e.Room
}

// What names the room for a message: "room r3@n2", or "the room with
// code abcde" (its id is not known before the room has one).
func (e *ElsewhereError) What() string {
	if e.Code != "" {
		return "the room with code " + e.Code
	}
	return "room " + e.Room
}

func (e *ElsewhereError) Error() string {
	return fmt.Sprintf("%s is on node %s: %s", e.What(), e.Node, e.Reach("join or watch it", "join", e.Ref()))
}

// Reach tells a player how to reach the room's node to do what (join
// it, watch it) with command: "connect to n2 to watch it: ssh -p 2222 -t
// n2.example.com spectate r3@n2", or only the node's name when its
// address is not known.
func (e *ElsewhereError) Reach(what string, command ...string) string {
	if e.SSH == "" {
		return fmt.Sprintf("connect to %s to %s", e.Node, what)
	}
	return fmt.Sprintf("connect to %s to %s: %s", e.Node, what, SSHCommand(e.SSH, command...))
}

// Is makes the error an ErrNoRoom: nothing here can seat or show it.
func (e *ElsewhereError) Is(target error) bool { return target == ErrNoRoom }

// SetRemote replaces what is known of node's rooms with infos (nil forgets
// the node): another node of the cluster said so. They show in Infos's
// public and watchable listings after this node's own, marked Remote; the
// lookups name their node (ElsewhereError). Watchers of the room set are
// woken only when a room comes or goes; when one's state moves on, only
// Shown's (lists re-read Remote as they redraw).
func (rs *Rooms) SetRemote(node string, infos []RoomInfo) {
	if node == rs.cfg.Node {
		return
	}
	infos = slices.Clone(infos)
	for i := range infos {
		infos[i].Node, infos[i].Remote = node, true
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	old, had := rs.remote[node]
	if !had && len(infos) == 0 {
		return
	}
	if len(infos) == 0 {
		delete(rs.remote, node)
	} else {
		rs.remote[node] = infos
	}
	rs.remoteNodes.Store(int32(len(rs.remote)))
	switch {
	case !slices.EqualFunc(old, infos, func(a, b RoomInfo) bool { return a.ID == b.ID }):
		rs.signalLocked()
	case !sameShown(old, infos):
		// The same rooms, moved on: lists redraw, the set's watchers
		// (another directory message) are not woken.
		rs.signalShownLocked()
	}
}

// Remote lists the other nodes' rooms of a listing: by node name, each
// node's oldest first.
func (rs *Rooms) Remote(which Listing) []RoomInfo {
	if rs.remoteNodes.Load() == 0 {
		return nil
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var out []RoomInfo
	for _, node := range slices.Sorted(maps.Keys(rs.remote)) {
		for _, ri := range rs.remote[node] {
			switch {
			case which == Public && ri.Private:
			case which == Watchable && ri.Private && !ri.Ranked:
			default:
				out = append(out, ri)
			}
		}
	}
	return out
}

// elsewhereLocked is the error for ref when it is the id of another
// node's room, nil otherwise.
func (rs *Rooms) elsewhereLocked(ref string) error {
	if !strings.Contains(ref, "@") {
		return nil // a single node's id or a join code
	}
	for _, infos := range rs.remote {
		for _, ri := range infos {
			if ri.ID == ref {
				return &ElsewhereError{Room: ri.ID, Node: ri.Node, SSH: ri.SSH}
			}
		}
	}
	return nil
}

// Local summarises this node's watchable rooms (public ones and ranked
// matches: what the other nodes of a cluster list), oldest first, and a
// channel closed when the set changes.
func (rs *Rooms) Local() ([]RoomInfo, <-chan struct{}) {
	rooms, ch := rs.Live()
	out := make([]RoomInfo, 0, len(rooms))
	for _, r := range rooms {
		out = append(out, r.Info())
	}
	return out, ch
}
