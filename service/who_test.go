package service_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/service"
)

// names lists a who listing's player names in order.
func names(w service.Who) []string {
	out := make([]string, 0, len(w.Players))
	for _, p := range w.Players {
		out = append(out, p.Name)
	}
	return out
}

// TestWhoIsOneListingForEveryReader: the lobbies reading who is online
// between two changes all get the same listing, one the server holds once
// (it held a copy a session before: N listings of N players), and a
// player arriving or leaving shows in every read after it.
func TestWhoIsOneListingForEveryReader(t *testing.T) {
	hub := lobby.NewHub()
	svc := service.New(nil, nil).WithOnline(hub, nil)
	_, leaveA := hub.Enter(lobby.Presence{ID: "a", Name: "alice", Where: "lobby"}, nil)
	defer leaveA()
	_, leaveB := hub.Enter(lobby.Presence{ID: "b", Name: "bob", Where: "room r2"}, nil)
	defer leaveB()
	ctx := context.Background()

	w1, changed, err := svc.Who(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w2, _, _ := svc.WithQuick(nil).Who(ctx) // another lobby, through a copy of the service
	if fmt.Sprint(names(w1)) != "[alice bob]" || w1.Players[1].Doing != "playing" || w1.Players[1].Room != "r2" {
		t.Fatalf("who = %+v", w1)
	}
	if &w1.Players[0] != &w2.Players[0] {
		t.Fatal("two lobbies reading an unchanged presence each hold their own copy of every player")
	}

	_, leaveC := hub.Enter(lobby.Presence{ID: "c", Name: "carol", Where: "lobby"}, nil)
	<-changed
	w3, changed, _ := svc.Who(ctx)
	if fmt.Sprint(names(w3)) != "[alice bob carol]" {
		t.Fatalf("who after carol came = %v", names(w3))
	}
	if fmt.Sprint(names(w1)) != "[alice bob]" {
		t.Fatalf("the listing read before carol came changed under its reader: %v", names(w1))
	}
	leaveC()
	<-changed
	if w4, _, _ := svc.Who(ctx); fmt.Sprint(names(w4)) != "[alice bob]" {
		t.Fatalf("who after carol left = %v", names(w4))
	}
}

// BenchmarkWhoRead is one lobby's read of who is online after a change
// with 500 players online, as every lobby does: the bytes it allocates
// are what each session held before the listing was shared (≈40 KB).
func BenchmarkWhoRead(b *testing.B) {
	hub := lobby.NewHub()
	for i := range 500 {
		_, leave := hub.Enter(lobby.Presence{ID: fmt.Sprint(i), Name: fmt.Sprintf("player%03d", i), Where: "room r" + fmt.Sprint(i/2)}, nil)
		defer leave()
	}
	svc := service.New(nil, nil).WithOnline(hub, nil)
	ctx := context.Background()
	if _, _, err := svc.Who(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := svc.Who(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
