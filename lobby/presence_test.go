package lobby

import (
	"sync"
	"testing"
)

func TestOnlineCountsPlayersNotSessions(t *testing.T) {
	h := NewHub()
	n, ch := h.Online()
	if n != 0 {
		t.Fatalf("online %d", n)
	}
	leaveA1 := h.Join(Presence{ID: "a", Name: "alice"}, nil)
	select {
	case <-ch:
	default:
		t.Fatal("first player did not signal a change")
	}
	_, ch = h.Online()
	leaveA2 := h.Join(Presence{ID: "a", Name: "alice"}, nil)
	select {
	case <-ch:
		t.Fatal("a second session of the same player changed the count")
	default:
	}
	leaveB := h.Join(Presence{ID: "b", Name: "bob"}, nil)
	if n, _ := h.Online(); n != 2 {
		t.Fatalf("online %d, want 2", n)
	}
	if h.Sessions() != 3 {
		t.Fatalf("sessions %d", h.Sessions())
	}
	leaveA1()
	leaveA1() // idempotent
	if n, _ := h.Online(); n != 2 {
		t.Fatalf("online %d after one of alice's sessions left", n)
	}
	leaveA2()
	leaveB()
	if n, _ := h.Online(); n != 0 || h.Sessions() != 0 {
		t.Fatalf("online %d sessions %d after all left", n, h.Sessions())
	}
}

func TestBroadcastAndTell(t *testing.T) {
	h := NewHub()
	var mu sync.Mutex
	got := map[string][]string{}
	rec := func(name string) func(Notice) {
		return func(n Notice) { mu.Lock(); got[name] = append(got[name], n.Text); mu.Unlock() }
	}
	defer h.Join(Presence{ID: "a", Name: "alice"}, rec("alice"))()
	defer h.Join(Presence{ID: "b", Name: "bob"}, rec("bob"))()
	if n := h.Broadcast(Notice{Text: "restart"}); n != 2 {
		t.Fatalf("told %d", n)
	}
	if n := h.Tell("b", Notice{Text: "hi bob"}); n != 1 {
		t.Fatalf("told %d", n)
	}
	if len(got["alice"]) != 1 || len(got["bob"]) != 2 || got["bob"][1] != "hi bob" {
		t.Fatalf("got %v", got)
	}
	list := h.List()
	if len(list) != 2 || list[0].Name != "alice" {
		t.Fatalf("list %v", list)
	}
}

// TestHubWho: Who lists a player once, where their most engaged session
// is, and its channel closes when anyone moves, so listings can follow.
func TestHubWho(t *testing.T) {
	h := NewHub()
	_, leaveA := h.Enter(Presence{ID: "a", Name: "alice", Where: "lobby"}, nil)
	moveA2, leaveA2 := h.Enter(Presence{ID: "a", Name: "alice", Where: "lobby"}, nil)
	defer leaveA()
	list, ch := h.Who()
	if len(list) != 1 || list[0].Activity().Doing != DoingLobby {
		t.Fatalf("who = %+v", list)
	}
	moveA2("room r3")
	select {
	case <-ch:
	default:
		t.Fatal("a move did not wake the who listing")
	}
	list, ch = h.Who()
	if len(list) != 1 || list[0].Activity() != (Activity{Doing: DoingPlaying, Room: "r3"}) {
		t.Fatalf("who after alice sat down in another terminal = %+v", list)
	}
	moveA2("room r3") // no change: nobody is woken
	select {
	case <-ch:
		t.Fatal("a move to the same place woke the listing")
	default:
	}
	leaveA2()
	<-ch
	if list, _ = h.Who(); len(list) != 1 || list[0].Activity().Doing != DoingLobby {
		t.Fatalf("who after the game terminal left = %+v", list)
	}
}
