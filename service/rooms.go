package service

import (
	"context"

	"github.com/termarena/termarena/lobby"
)

// Room is an open public room: the stable shape of an element of
// `rooms --json` (fields are only added).
type Room struct {
	ID      string   `json:"id"`
	Game    string   `json:"game"`
	Mode    string   `json:"mode"`
	Phase   string   `json:"phase"`
	Players []string `json:"players"`
	Seats   int      `json:"seats"`
	// Node is the cluster node the room runs on (only in a cluster).
	Node string `json:"node,omitempty"`
	// Remote is a room of another node than the one answering: it is
	// joined and watched on its node.
	Remote bool `json:"remote,omitempty"`
	// SSH reaches a remote room's node ("ssh -p 2222 n2.example.com"),
	// when that node advertises its address.
	SSH string `json:"ssh,omitempty"`
}

// RoomOf is the shape of one room's summary.
func RoomOf(ri lobby.RoomInfo) Room {
	return Room{ID: ri.ID, Game: ri.Game, Mode: ri.Mode, Phase: ri.Phase.String(), Players: ri.Names(), Seats: ri.Seats, Node: ri.Node, Remote: ri.Remote, SSH: lobby.SSHCommand(ri.SSH)}
}

// Rooms lists the public rooms players can join, oldest first, then (in
// a cluster) other nodes' public rooms.
func (s *Service) Rooms(ctx context.Context) ([]Room, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	infos := s.rooms.Infos(lobby.Public)
	out := make([]Room, 0, len(infos))
	for _, ri := range infos {
		out = append(out, RoomOf(ri))
	}
	return out, nil
}

// RoomInfos summarises the rooms of a listing, oldest first: the
// watchable ones for a chooser, every one for operators.
func (s *Service) RoomInfos(ctx context.Context, which lobby.Listing) ([]lobby.RoomInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.rooms.Infos(which), nil
}
