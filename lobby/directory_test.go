package lobby

import (
	"errors"
	"testing"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// A cluster node's room ids carry the node (a single node's stay "r1");
// other nodes' rooms join the public and watchable listings after this
// node's, marked remote, but not the operators' Every; looking one up by
// id names its node; a node forgotten takes its rooms with it.
func TestRoomDirectoryAcrossNodes(t *testing.T) {
	single := NewRooms(t.Context(), RoomsConfig{Games: game.Catalog{pong.Kind{}}})
	if r, err := single.Create("pong", "1v1", false); err != nil || r.ID() != "r1" {
		t.Fatalf("a single node's first room: %v, want r1", err)
	}
	rooms := NewRooms(t.Context(), RoomsConfig{Games: game.Catalog{pong.Kind{}}, Node: "N1"})
	own, err := rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	if own.ID() != "r1@n1" {
		t.Fatalf("node N1's first room is %q, want r1@n1", own.ID())
	}
	_, changed := rooms.List()
	rooms.SetRemote("n2", []RoomInfo{{ID: "r1@n2", Game: "pong", Mode: "1v1", Label: "1v1 · casual"},
		{ID: "r2@n2", Game: "pong", Mode: "1v1", Ranked: true, Private: true, Queue: RankedPong1v1}})
	select {
	case <-changed:
	default:
		t.Fatal("another node's rooms arriving did not wake the room lists")
	}
	ids := func(infos []RoomInfo) (out []string) {
		for _, ri := range infos {
			out = append(out, ri.ID)
		}
		return out
	}
	if got := ids(rooms.Infos(Public)); len(got) != 2 || got[0] != "r1@n1" || got[1] != "r1@n2" {
		t.Fatalf("public rooms = %v, want r1@n1 r1@n2", got)
	}
	if got := ids(rooms.Infos(Watchable)); len(got) != 3 || got[2] != "r2@n2" {
		t.Fatalf("watchable rooms = %v, want n2's ranked match too", got)
	}
	if got := ids(rooms.Infos(Every)); len(got) != 1 {
		t.Fatalf("every room (this node's, for operators) = %v", got)
	}
	if ri := rooms.Infos(Public)[1]; !ri.Remote || ri.Node != "n2" {
		t.Fatalf("n2's room = %+v, want remote on n2", ri)
	}
	var elsewhere *ElsewhereError
	if _, err := rooms.Find("R1@N2"); !errors.As(err, &elsewhere) || elsewhere.Node != "n2" || !errors.Is(err, ErrNoRoom) {
		t.Fatalf("Find(r1@n2) = %v, want it on node n2", err)
	}
	if _, err := rooms.Watchable("r2@n2"); !errors.As(err, &elsewhere) || elsewhere.Room != "r2@n2" {
		t.Fatalf("Watchable(r2@n2) = %v, want it on node n2", err)
	}
	if _, err := rooms.Find("r9@n2"); err != ErrNoRoom {
		t.Fatalf("Find(r9@n2) = %v, want no room", err)
	}
	// The same rooms again (a heartbeat) wake nobody.
	_, changed = rooms.List()
	rooms.SetRemote("n2", []RoomInfo{{ID: "r1@n2", Game: "pong", Mode: "1v1", Phase: game.Playing},
		{ID: "r2@n2", Game: "pong", Mode: "1v1", Ranked: true, Private: true, Queue: RankedPong1v1}})
	select {
	case <-changed:
		t.Fatal("a heartbeat with the same rooms woke the room lists")
	default:
	}
	if ri := rooms.Remote(Public)[0]; ri.Phase != game.Playing {
		t.Fatalf("n2's room after its heartbeat = %+v, want it playing", ri)
	}
	rooms.SetRemote("n2", nil)
	if got := ids(rooms.Infos(Watchable)); len(got) != 1 {
		t.Fatalf("after n2 is forgotten the rooms are %v", got)
	}
}

// The command that reaches a node: -p unless the port is 22, -t before a
// command (they need a terminal), nothing when the address is unknown.
func TestSSHCommand(t *testing.T) {
	for _, c := range []struct {
		addr string
		cmd  []string
		want string
	}{
		{"n2.example.com:2222", nil, "ssh -p 2222 n2.example.com"},
		{"n2.example.com:22", nil, "ssh n2.example.com"},
		{"10.0.0.5:2222", []string{"spectate", "r3@n2"}, "ssh -p 2222 -t 10.0.0.5 spectate r3@n2"},
		{"[2001:db8::1]:2222", nil, "ssh -p 2222 2001:db8::1"},
		{"", []string{"join", "r3@n2"}, ""},
	} {
		if got := SSHCommand(c.addr, c.cmd...); got != c.want {
			t.Errorf("SSHCommand(%q, %q) = %q, want %q", c.addr, c.cmd, got, c.want)
		}
	}
	e := &ElsewhereError{Room: "r3@n2", Node: "n2", SSH: "n2.example.com:2222"}
	if got, want := e.Error(), "room r3@n2 is on node n2: connect to n2 to join or watch it: ssh -p 2222 -t n2.example.com join r3@n2"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
