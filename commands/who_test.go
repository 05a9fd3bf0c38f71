package commands_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/termarena/termarena/commands"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/service"
)

// TestWho: who lists each online player once with what they are doing,
// counts guests without naming them, and counts the ranked queues.
func TestWho(t *testing.T) {
	w := newWorld(t)
	hub := lobby.NewHub()
	mm, err := lobby.NewMatchmaker(w.rooms, &lobby.Cooldowns{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := commands.Deps{Service: w.deps.Service.WithOnline(hub, mm)}
	check(t, commands.Who, d, []cmdCase{
		{name: "nobody", who: asGuest, code: 0, exact: "nobody is online\nranked queues (waiting/needed): pong-1v1 0/2 · pong-2v2 0/4 · pong-ffa4 0/4\n"},
		{name: "bad argument", who: asGuest, args: []string{"--all"}, code: 2, stderr: "usage: who [--json]"},
	})

	enter := func(id, name string, guest bool, where string) func(string) {
		move, leave := hub.Enter(lobby.Presence{ID: id, Name: name, Guest: guest, Where: where}, nil)
		t.Cleanup(leave)
		return move
	}
	enter(bob, "bob", false, "lobby")
	carolMoves := enter(carol, "carol", false, "lobby")
	enter(alice, "alice", false, "lobby")
	enter(alice, "alice", false, "room r3") // a second terminal, in a game
	enter("guest-1", "guest-1", true, "watching r3")
	enter("guest-2", "guest-2", true, "lobby")
	enter(dave, "dave", false, "replay 42")
	carolMoves("queue pong-1v1")
	if _, err := mm.Join("pong-1v1", carol, "carol", 1500); err != nil {
		t.Fatal(err)
	}
	check(t, commands.Who, d, []cmdCase{
		{name: "text", who: asGuest, code: 0, exact: "PLAYER           DOING\n" +
			"alice            playing in r3\n" +
			"bob              lobby\n" +
			"carol            queueing for pong-1v1\n" +
			"dave             replay 42\n" +
			"and 2 guests\n" +
			"ranked queues (waiting/needed): pong-1v1 1/2 · pong-2v2 0/4 · pong-ffa4 0/4\n"},
	})

	out, errb := new(bytes.Buffer), new(bytes.Buffer)
	if code := commands.Who(t.Context(), d, asGuest, []string{"--json"}, out, errb); code != 0 {
		t.Fatalf("who --json: %d %s", code, errb)
	}
	var got service.Who
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
		t.Fatalf("who --json is not the documented shape: %v\n%s", err, out)
	}
	want := []service.OnlinePlayer{
		{Name: "alice", Doing: "playing", Room: "r3"},
		{Name: "bob", Doing: "lobby"},
		{Name: "carol", Doing: "queue", Mode: "pong-1v1"},
		{Name: "dave", Doing: "replay", Match: "42"},
	}
	if len(got.Players) != len(want) || got.Guests != 2 || len(got.Queues) != 3 || got.Queues[0] != (service.QueueCount{Mode: "pong-1v1", Waiting: 1, Needs: 2}) {
		t.Fatalf("who --json = %+v", got)
	}
	for i := range want {
		if got.Players[i] != want[i] {
			t.Errorf("player %d = %+v, want %+v", i, got.Players[i], want[i])
		}
	}
}

// TestWhoCountsQuickMatchQueues: a player waiting for a quick match
// (unrated) is counted in its queue, in the text and in --json, as a
// ranked queue's players are.
func TestWhoCountsQuickMatchQueues(t *testing.T) {
	w := newWorld(t)
	hub := lobby.NewHub()
	qm, err := lobby.NewQuickMatch(w.rooms)
	if err != nil {
		t.Fatal(err)
	}
	d := commands.Deps{Service: w.deps.Service.WithOnline(hub, nil).WithQuick(qm)}
	move, leave := hub.Enter(lobby.Presence{ID: carol, Name: "carol", Where: "lobby"}, nil)
	t.Cleanup(leave)
	move("quick pong-1v1")
	if _, err := qm.Join("pong-1v1", carol, "carol"); err != nil {
		t.Fatal(err)
	}
	check(t, commands.Who, d, []cmdCase{
		{name: "text", who: asGuest, code: 0, exact: "PLAYER           DOING\n" +
			"carol            queueing for pong-1v1 (casual)\n" +
			"quick-match queues (waiting/needed): pong-1v1 1/2 · pong-2v2 0/2 · pong-ffa 0/2\n"},
	})
	out, errb := new(bytes.Buffer), new(bytes.Buffer)
	if code := commands.Who(t.Context(), d, asGuest, []string{"--json"}, out, errb); code != 0 {
		t.Fatalf("who --json: %d %s", code, errb)
	}
	var got service.Who
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got.Quick) != 3 || got.Quick[0] != (service.QueueCount{Mode: "pong-1v1", Waiting: 1, Needs: 2}) {
		t.Fatalf("who --json = %+v (%v)\n%s", got, err, out)
	}
}

// TestWhoWithoutPresence: a service that cannot see sessions says so
// instead of claiming nobody is online.
func TestWhoWithoutPresence(t *testing.T) {
	w := newWorld(t)
	check(t, commands.Who, w.deps, []cmdCase{
		{name: "unknown", who: asGuest, code: 1, stderr: "could not list who is online"},
	})
}
