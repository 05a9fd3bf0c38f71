package lobby

import "testing"

// A cluster node's hub counts and lists the players other nodes report
// beside its own, once each, and forgets a node's players with the node.
func TestHubCountsOtherNodesPlayers(t *testing.T) {
	h := NewNodeHub("n1")
	leaveA := h.Join(Presence{ID: "a", Name: "alice", Where: "lobby"}, nil)
	defer leaveA()
	_, changed := h.Online()
	h.SetRemote("n2", []Presence{{ID: "b", Name: "bob", Where: "room r3"}, {ID: "a", Name: "alice", Where: "room r4"}})
	select {
	case <-changed:
	default:
		t.Fatal("a player arriving on another node did not signal the online count")
	}
	if n, _ := h.Online(); n != 2 {
		t.Fatalf("online %d, want 2 (alice on both nodes counts once)", n)
	}
	who, _ := h.Who()
	if len(who) != 2 || who[0].Name != "alice" || who[0].Where != "room r4" || who[0].Node != "n2" || who[1].Name != "bob" || who[1].Node != "n2" {
		t.Fatalf("who = %+v, want alice playing on n2 and bob on n2", who)
	}
	if got := len(h.SessionList()); got != 3 {
		t.Fatalf("%d sessions listed, want 3", got)
	}
	if h.Sessions() != 1 {
		t.Fatalf("Sessions %d, want this node's 1", h.Sessions())
	}
	local, _ := h.Local()
	if len(local) != 1 || local[0].Node != "n1" {
		t.Fatalf("local = %+v, want alice on n1 only", local)
	}
	_, changed = h.Online()
	h.SetRemote("n2", nil)
	select {
	case <-changed:
	default:
		t.Fatal("a node forgotten did not signal the online count")
	}
	if n, _ := h.Online(); n != 1 {
		t.Fatalf("online %d after n2 was forgotten, want 1", n)
	}
	if who, _ := h.Who(); len(who) != 1 || who[0].Node != "n1" {
		t.Fatalf("who = %+v after n2 was forgotten", who)
	}
}
