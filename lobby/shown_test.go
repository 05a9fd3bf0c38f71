package lobby

import (
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// waitShown says whether ch closes within d.
func waitShown(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}

// Lists are told when what they show of a room changes (a player sits
// down, another node's room moves on), and not while nothing does.
func TestShownFollowsWhatListsShow(t *testing.T) {
	rooms := NewRooms(t.Context(), RoomsConfig{Games: game.Catalog{pong.Kind{}}})
	shown := rooms.Shown()
	r, err := rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	if !waitShown(shown, time.Second) {
		t.Fatal("a room opened and Shown did not close")
	}
	// The follower's first look at the new room; then a room that only
	// waits shows nothing new.
	time.Sleep(1500 * time.Millisecond)
	shown = rooms.Shown()
	if waitShown(shown, 2500*time.Millisecond) {
		t.Fatal("Shown closed with nothing changing")
	}
	if _, err := r.Join(t.Context(), game.Player{ID: "ann", Name: "ann"}, -1); err != nil {
		t.Fatal(err)
	}
	if !waitShown(shown, 5*time.Second) {
		t.Fatal("a player sat down and Shown did not close")
	}

	// Another node's room: the same set moved on wakes Shown only.
	info := RoomInfo{ID: "r1@n2", Game: "pong", Mode: "1v1", Seats: 2, Started: true}
	rooms.SetRemote("n2", []RoomInfo{info})
	_, set := rooms.List()
	shown = rooms.Shown()
	rooms.SetRemote("n2", []RoomInfo{info})
	if waitShown(shown, 100*time.Millisecond) {
		t.Fatal("the same heartbeat again woke Shown")
	}
	info.Players = []SeatInfo{{Slot: 0, ID: "bo", Name: "bo", Connected: true}}
	rooms.SetRemote("n2", []RoomInfo{info})
	if !waitShown(shown, time.Second) {
		t.Fatal("another node's room moved on and Shown did not close")
	}
	if waitShown(set, 0) {
		t.Fatal("another node's room moved on and the room set's watchers were woken")
	}
}
