package spectator

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// arena runs a real room with a Recorder on a FakeClock. Control calls
// return once the room handled them and Advance returns once it ran every
// due tick, so tests read results directly: no sleeps.
type arena struct {
	t       *testing.T
	clk     *game.FakeClock
	room    *game.Room
	rec     *Recorder
	replays chan *Replay
	cancel  context.CancelFunc
	period  time.Duration

	// hashes is the game's hash after every step, taken by a hook of the
	// test's own next to the recorder's: the ground truth playback must
	// reproduce at every tick, not only the recorded ones.
	hashes []uint64
	bots   []*bot
}

func newArena(t *testing.T, pc pong.Config, rc game.RoomConfig, seed uint64) *arena {
	t.Helper()
	a := &arena{t: t, clk: game.NewFakeClock(), replays: make(chan *Replay, 8)}
	cfg := pongRecorder(pc)
	cfg.Now = func() time.Time { return time.Unix(1_700_000_000, 0).Add(a.clk.Now()) }
	cfg.OnReplay = func(r *Replay) { a.replays <- r } // buffered: never blocks the room
	rec, err := NewRecorder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a.rec = rec
	rc.Clock = a.clk
	rc.TickRate = pc.TickRate
	a.period = time.Second / time.Duration(pc.TickRate)
	a.room = game.NewRoom("r1", rc, rec.Factory(), seed)
	h := rec.Hooks()
	ticked := h.Ticked
	h.Ticked = func(tick uint64, in []game.Input, g game.Game) {
		ticked(tick, in, g)
		if tick == 1 {
			a.hashes = a.hashes[:0] // a new match
		}
		a.hashes = append(a.hashes, g.Hash())
	}
	a.room.SetHooks(h)
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	go func() { _ = a.room.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-a.room.Done()
	})
	return a
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func (a *arena) frame() *game.Frame {
	f, _ := a.room.Latest()
	return f
}

// join seats a bot and returns it; it plays once the match runs.
func (a *arena) join(id string, slot int) *bot {
	a.t.Helper()
	got, err := a.room.Join(ctxT(a.t), game.Player{ID: game.PlayerID(id), Name: "name-" + id}, slot)
	if err != nil {
		a.t.Fatalf("Join(%s, %d): %v", id, slot, err)
	}
	b := newBot(game.PlayerID(id), got, uint64(len(a.bots))+7)
	a.bots = append(a.bots, b)
	return b
}

func (a *arena) ready(ids ...string) {
	a.t.Helper()
	for _, id := range ids {
		if err := a.room.SetReady(ctxT(a.t), game.PlayerID(id), true); err != nil {
			a.t.Fatalf("SetReady(%s): %v", id, err)
		}
	}
}

func (a *arena) leave(id string) {
	a.t.Helper()
	if err := a.room.Leave(ctxT(a.t), game.PlayerID(id)); err != nil {
		a.t.Fatalf("Leave(%s): %v", id, err)
	}
	a.drop(id)
}

func (a *arena) disconnect(id string) {
	a.t.Helper()
	if err := a.room.Disconnect(ctxT(a.t), game.PlayerID(id)); err != nil {
		a.t.Fatalf("Disconnect(%s): %v", id, err)
	}
}

func (a *arena) drop(id string) {
	for i, b := range a.bots {
		if string(b.id) == id {
			a.bots = append(a.bots[:i], a.bots[i+1:]...)
			return
		}
	}
}

// tick lets every bot act, then advances the clock by one tick.
func (a *arena) tick() {
	for _, b := range a.bots {
		b.act(a.room)
	}
	// +1 ns covers the rounding of 1 s/rate; the excess never adds up to
	// a whole period over any match here.
	a.clk.Advance(a.period + 1)
}

// playUntil ticks until done reports true or max ticks have passed.
func (a *arena) playUntil(max int, done func(*game.Frame) bool) {
	a.t.Helper()
	for range max {
		if done(a.frame()) {
			return
		}
		a.tick()
	}
	a.t.Fatalf("condition not reached in %d ticks (frame phase %v, tick %d)", max, a.frame().Phase, a.frame().Tick)
}

func (a *arena) playTicks(n uint64) {
	a.t.Helper()
	target := a.frame().Tick + n
	a.playUntil(int(n)*4+1000, func(f *game.Frame) bool { return f.Tick >= target || f.Phase == game.Finished })
}

func (a *arena) replay() *Replay {
	a.t.Helper()
	select {
	case r := <-a.replays:
		return r
	default:
		a.t.Fatal("no replay was produced")
		return nil
	}
}

// bot changes direction every 100–500 ms like a person on the arrow keys,
// and while it holds a direction it re-sends it every third tick, as
// terminal auto-repeat does, which the recorder must not log. Actions vary
// in magnitude (Pong reads the sign), which the recorder must normalise.
type bot struct {
	id     game.PlayerID
	slot   int
	r      *rand.Rand
	dir    int8
	seq    uint32
	wait   int
	repeat int
	// lag, when set, is how many ticks behind the room the bot's screen
	// is: its inputs say they were made seeing that tick (Input.Seen).
	lag uint64
}

func newBot(id game.PlayerID, slot int, seed uint64) *bot {
	return &bot{id: id, slot: slot, r: rand.New(rand.NewPCG(seed, 0xb07)), wait: 1}
}

func (b *bot) act(room *game.Room) {
	b.wait--
	if b.wait <= 0 {
		next := int8(b.r.IntN(2))*2 - 1 // -1 or +1
		if b.r.IntN(4) == 0 {
			next = 0
		}
		if next == b.dir {
			next = -next
		}
		b.dir = next
		b.wait = 6 + b.r.IntN(25)
		b.send(room)
		return
	}
	if b.dir != 0 && b.wait%3 == 0 {
		b.send(room) // auto-repeat: same direction again
	}
}

func (b *bot) send(room *game.Room) {
	b.seq++
	in := game.Input{Slot: b.slot, Seq: b.seq, Action: b.dir * int8(1+b.r.IntN(3))}
	if f, _ := room.Latest(); b.lag > 0 && f.Tick > b.lag {
		in.Seen = f.Tick - b.lag
	}
	room.Submit(b.id, in)
}

// playAll re-simulates r to the end, checking the hash after every tick
// against want (the live game's, every tick) and returning the first error.
func playAll(t *testing.T, r *Replay, want []uint64) *Playback {
	t.Helper()
	p, err := NewPlayback(r, testGames)
	if err != nil {
		t.Fatalf("NewPlayback: %v", err)
	}
	if want != nil && uint64(len(want)) != r.Ticks {
		t.Fatalf("live game stepped %d times, replay has %d ticks", len(want), r.Ticks)
	}
	for !p.Done() {
		if err := p.Step(); err != nil {
			t.Fatalf("Step at tick %d: %v", p.Tick(), err)
		}
		if want != nil {
			// The recorder's hash is taken before the seat events after a
			// tick, the test's too; compare before those only where none
			// followed.
			if h := hashOf(p); !hasSeatEventAt(r, p.Tick()) && h != want[p.Tick()-1] {
				t.Fatalf("tick %d: playback hash %016x, live %016x", p.Tick(), h, want[p.Tick()-1])
			}
		}
	}
	if err := p.Step(); err != ErrReplayEnded {
		t.Fatalf("Step after the end: %v, want ErrReplayEnded", err)
	}
	return p
}

func hashOf(p *Playback) uint64 { return p.g.Hash() }

func hasSeatEventAt(r *Replay, tick uint64) bool {
	for _, e := range r.SeatEvents {
		if e.Tick == tick {
			return true
		}
	}
	return false
}

func shortConfig(m pong.Mode) pong.Config {
	c := pong.DefaultConfig(m)
	c.PointsToWin, c.Lives = 3, 3
	return c
}
