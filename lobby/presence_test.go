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
