package lobby

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	pongbot "github.com/termarena/termarena/game/pong/bot"
)

func practiceRooms(t *testing.T, most int) *Rooms {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return NewRooms(ctx, RoomsConfig{Games: game.Catalog{pong.Kind{}}, Bots: map[string]bot.Maker{"pong": pongbot.New},
		MaxBotRooms: most, Room: game.RoomConfig{Countdown: -1}})
}

// A practice room seats its bots from slot 1 (the player takes the
// first), files its matches as practice, and counts toward the cap; with
// bots off none is made.
func TestCreatePractice(t *testing.T) {
	rs := practiceRooms(t, 1)
	r, err := rs.CreatePractice("pong", "2v2", 4)
	if err != nil {
		t.Fatal(err)
	}
	if ModeName(r) != "practice-2v2" || r.Info().Filed() != "practice-2v2" || r.Practice != 4 {
		t.Errorf("filed as %q / %q, level %d", ModeName(r), r.Info().Filed(), r.Practice)
	}
	fr, _ := r.Latest()
	for slot, s := range fr.Seats {
		if bot := slot > 0; s.Taken != bot || (bot && s.Player.Name != "bot-L4") {
			t.Errorf("seat %d: %+v", slot, s)
		}
	}
	if _, err := rs.CreatePractice("pong", "1v1", 1); !errors.Is(err, ErrBotRoomsFull) {
		t.Errorf("a second practice room over a cap of 1: %v", err)
	}
	if _, err := rs.CreatePractice("pong", "1v1", 6); err == nil {
		t.Error("made a practice room of level 6")
	}
	if _, err := practiceRooms(t, -1).CreatePractice("pong", "1v1", 1); !errors.Is(err, ErrBotsOff) {
		t.Errorf("bots off: %v", err)
	}
}

// Bots are not players in matches: a practice match of one person and
// three bots counts one.
func TestPlayersInMatchesLeavesOutBots(t *testing.T) {
	rs := practiceRooms(t, 0)
	r, err := rs.CreatePractice("pong", "ffa", 2)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := r.Join(ctx, game.Player{ID: "ann", Name: "ann"}, 0); err != nil {
		t.Fatal(err)
	}
	if err := r.SetReady(ctx, "ann", true); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for {
		fr, next := r.Latest()
		if fr.Phase == game.Playing {
			break
		}
		select {
		case <-next:
		case <-deadline:
			t.Fatalf("the practice match never started: %+v", fr)
		}
	}
	s := &Services{Rooms: rs}
	if n := s.PlayersInMatches(); n != 1 {
		t.Errorf("players in matches: %d, want 1 (ann; not her three bots)", n)
	}
}

// FillWithBots seats bots in a casual room's free seats only within the
// operator's limits: a room with bots counts toward the practice-room cap,
// bots off seats none, and a person who comes before a match takes a
// bot's seat.
func TestFillWithBotsKeepsTheLimits(t *testing.T) {
	ctx := context.Background()
	rs := practiceRooms(t, 1)
	r, err := rs.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Join(ctx, game.Player{ID: "ann", Name: "ann"}, 0); err != nil {
		t.Fatal(err)
	}
	if n, err := rs.FillWithBots(r, 2); err != nil || n != 1 {
		t.Fatalf("fill: %d, %v", n, err)
	}
	if _, err := rs.CreatePractice("pong", "1v1", 1); !errors.Is(err, ErrBotRoomsFull) {
		t.Errorf("a practice room beside a casual room with bots, over a cap of 1: %v", err)
	}
	if _, err := rs.FillWithBots(r, 2); !errors.Is(err, ErrNoFreeSeat) {
		t.Errorf("filling a full room: %v", err)
	}
	// Bob wants the bot's seat before the match: the bot gives it up.
	if slot, err := r.Join(ctx, game.Player{ID: "bob", Name: "bob"}, -1); err != nil || slot != 1 {
		t.Fatalf("bob joins a room whose other seat a bot holds: slot %d, %v", slot, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for r.botsIn() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := r.botsIn(); n != 0 {
		t.Fatalf("%d bots still running after giving up their seat", n)
	}
	if _, err := practiceRooms(t, -1).FillWithBots(r, 1); !errors.Is(err, ErrBotsOff) {
		t.Errorf("bots off: %v", err)
	}
}

// A lone ranked player is offered the bot level nearest their rating: a
// newcomer's 1500 plays level 3, 150 points a level either way, within
// the five levels.
func TestBotLevelFor(t *testing.T) {
	for _, c := range []struct {
		rating float64
		level  int
	}{{0, 1}, {1274, 1}, {1275, 2}, {1424, 2}, {1425, 3}, {1500, 3}, {1574, 3}, {1575, 4}, {1725, 5}, {2600, 5}} {
		if got := BotLevelFor(c.rating); got != c.level {
			t.Errorf("BotLevelFor(%v) = %d, want %d", c.rating, got, c.level)
		}
	}
}
