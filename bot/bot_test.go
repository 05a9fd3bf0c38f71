package bot

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
)

// tally is a two-seat game that counts what each seat sent: enough to see
// what reached the room and when. Its snapshot is the tick it was taken.
type tally struct {
	seats int // 2 when 0
	tick  uint64
	sent  [3][]int8
	endAt uint64 // the match ends at this tick (0: never)
}

type tallySnap struct{ tick uint64 }

func (g *tally) Slots() int {
	if g.seats == 0 {
		return 2
	}
	return g.seats
}
func (g *tally) Join(int) error { return nil }
func (g *tally) Leave(int)      {}
func (g *tally) Hash() uint64   { return g.tick }
func (g *tally) Snapshot() any  { return tallySnap{g.tick} }
func (g *tally) Step(in []game.Input) {
	g.tick++
	for _, i := range in {
		g.sent[i.Slot] = append(g.sent[i.Slot], i.Action)
	}
}
func (g *tally) Result() (game.Result, bool) {
	if g.endAt == 0 || g.tick < g.endAt {
		return game.Result{}, false
	}
	return game.Result{Placements: []int{0, 1}, Places: []int{1, 2}, Scores: []int{1, 0}}, true
}

// echo acts on every frame it is shown with the tick it saw, and records
// what it was shown.
type echo struct{ seen, now []uint64 }

func (e *echo) Act(v View) []int8 {
	e.seen = append(e.seen, v.Seen.(tallySnap).tick)
	e.now = append(e.now, v.Now.(tallySnap).tick)
	return []int8{int8(v.Seen.(tallySnap).tick % 100)}
}

func frame(seed, tick uint64) *game.Frame {
	return &game.Frame{Phase: game.Playing, Seed: seed, Tick: tick, State: tallySnap{tick}}
}

// A bot sees the game Delay ticks late and sends at most once every Gap
// ticks, whatever its brain would like; a new match starts its delay
// afresh instead of showing it the last match's frames.
func TestSeatDelayAndGap(t *testing.T) {
	e := &echo{}
	s := NewSeat(1, e, Reflex{Delay: 5, Gap: 3})
	var sentAt []uint64
	for tick := uint64(1); tick <= 20; tick++ {
		for _, in := range s.Observe(frame(1, tick)) {
			if in.Slot != 1 || in.Seen != tick {
				t.Fatalf("tick %d: input %+v: want slot 1, seen %d", tick, in, tick)
			}
			sentAt = append(sentAt, tick)
		}
	}
	if want := []uint64{6, 9, 12, 15, 18}; !equal(sentAt, want) {
		t.Errorf("sent at ticks %v, want %v", sentAt, want)
	}
	for i := range e.seen {
		if e.now[i]-e.seen[i] != 5 {
			t.Errorf("acting at tick %d on tick %d: want 5 ticks late", e.now[i], e.seen[i])
		}
	}
	// A rematch (new seed, ticks from 1 again).
	e.seen = nil
	for tick := uint64(1); tick <= 5; tick++ {
		if in := s.Observe(frame(2, tick)); in != nil {
			t.Fatalf("rematch tick %d: sent %+v before its delay", tick, in)
		}
	}
	if len(e.seen) != 0 {
		t.Errorf("shown %v from the last match", e.seen)
	}
	// Frames skipped (a slow goroutine): the newest old enough is shown.
	s.Observe(frame(2, 30))
	if got := e.seen[len(e.seen)-1]; got != 5 {
		t.Errorf("after a skip to 30 it saw tick %d; want 5, the newest at least 5 old it was shown", got)
	}
}

func equal(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Run plays a seat through a real room as a person's session does: it
// readies up, its inputs reach the game through Submit, and when the
// last person leaves, it leaves too, so the room is disposed of and the
// bot's goroutine ends with it.
func TestRunPlaysThroughTheRoomAndLeavesWithThePeople(t *testing.T) {
	g := &tally{}
	room := game.NewRoom("r1", game.RoomConfig{TickRate: 200, Countdown: -1, IdleTimeout: -1, Grace: -1},
		func(uint64) game.Game { return g }, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = room.Run(ctx) }()
	person := game.Player{ID: "alice", Name: "alice"}
	if _, err := room.Join(ctx, person, 0); err != nil {
		t.Fatal(err)
	}
	p := Player(3, 1)
	seat, err := Join(ctx, room, p, 1, &echo{}, Reflex{Delay: 2, Gap: 1})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- Run(ctx, room, p.ID, seat) }()
	if err := room.SetReady(ctx, person.ID, true); err != nil {
		t.Fatal(err)
	}
	// The match starts only if the bot readied too; then its inputs
	// are acknowledged on its seat.
	deadline := time.After(10 * time.Second)
	for {
		f, next := room.Latest()
		if f.Phase == game.Playing && f.Acks[1] >= 5 {
			break
		}
		select {
		case <-next:
		case <-deadline:
			t.Fatalf("the bot's inputs never reached the room: %+v", f)
		}
	}
	if err := room.Leave(ctx, person.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ran:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the bot stayed after the last person left")
	}
	select {
	case <-room.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a room left to its bot was not disposed of")
	}
}

// Only a bot's id can sit down as a bot: a person's id is refused before
// the room is asked.
func TestJoinRefusesAPersonsID(t *testing.T) {
	_, err := Join(context.Background(), nil, game.Player{ID: "alice"}, 0, &echo{}, Reflex{})
	if err == nil {
		t.Fatal("seated a person's id as a bot")
	}
	if errors.Is(err, game.ErrClosed) {
		t.Fatal(err)
	}
}

// A headless match plays the same on every run from its seed.
func TestPlayIsDeterministic(t *testing.T) {
	k := tallyKind{}
	var ticks [2]uint64
	for i := range ticks {
		cs := []Contender{{Brain: &echo{}, Reflex: Reflex{Delay: 3, Gap: 2}}, {Brain: &echo{}, Reflex: Reflex{Delay: 1, Gap: 1}}}
		res, n, err := Play(k, "x", cs, 42, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if res.Places[0] != 1 {
			t.Fatalf("result %+v", res)
		}
		ticks[i] = n
	}
	if ticks[0] != ticks[1] || ticks[0] != 50 {
		t.Errorf("ticks %v; want 50 both times", ticks)
	}
}

type tallyKind struct{}

func (tallyKind) Name() string                          { return "tally" }
func (tallyKind) Title() string                         { return "Tally" }
func (tallyKind) Modes() []game.Mode                    { return []game.Mode{{Name: "x", Seats: 2, MinPlayers: 2}} }
func (tallyKind) Setup(string) (game.Setup, error)      { return game.Setup{TickRate: 60}, nil }
func (tallyKind) New([]byte, uint64) (game.Game, error) { return &tally{endAt: 50}, nil }

// Bots seated before their person (a practice room seats them first) do
// not ready up alone: with enough of them to start a match, they would
// start it without the player who asked for it. They ready once a person
// sits down, and the match waits for that person's ready.
func TestBotsWaitForTheirPersonToReady(t *testing.T) {
	room := game.NewRoom("r1", game.RoomConfig{TickRate: 200, Countdown: -1, IdleTimeout: -1, Grace: -1, MinPlayers: 2},
		func(uint64) game.Game { return &tally{seats: 3} }, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = room.Run(ctx) }()
	for slot := 1; slot <= 2; slot++ {
		p := Player(1, slot)
		seat, err := Join(ctx, room, p, slot, &echo{}, Reflex{})
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = Run(ctx, room, p.ID, seat) }()
	}
	// Give the bots time to (wrongly) ready and a room to start.
	time.Sleep(100 * time.Millisecond)
	if _, err := room.Join(ctx, game.Player{ID: "alice", Name: "alice"}, 0); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for {
		f, next := room.Latest()
		if f.Phase != game.Waiting {
			t.Fatalf("the room went to %v before its person was ready", f.Phase)
		}
		if f.Seats[1].Ready && f.Seats[2].Ready {
			break
		}
		select {
		case <-next:
		case <-deadline:
			t.Fatal("the bots never readied once their person sat down")
		}
	}
}

// A bot's id carries its level, so a node that takes over another's room
// seats bots of the same strength; anything else is not a bot's id.
func TestLevelReadsABotsID(t *testing.T) {
	for level := 1; level <= Levels; level++ {
		if got, ok := Level(Player(level, 2).ID); !ok || got != level {
			t.Errorf("Level(%q) = %d, %v; want %d", Player(level, 2).ID, got, ok, level)
		}
	}
	for _, id := range []game.PlayerID{"SHA256:abc", "bot:", "bot:x:1", "bot:0:1", "bot:6:1", ""} {
		if got, ok := Level(id); ok {
			t.Errorf("Level(%q) = %d, true; want not a bot's", id, got)
		}
	}
}
