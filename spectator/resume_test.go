package spectator

import (
	"errors"
	"testing"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// A match cut where its last hash was taken (what a cluster's room log
// holds when its node dies) is rebuilt by another recorder of the same
// room config: the game it returns is in the very state the live game
// had at that tick, and what that recorder logs from there on, on top of
// the rebuilt log, is the whole match: its replay plays back from the
// first tick, every hash checked, through the seat change and past the
// resume.
func TestResumeRebuildsTheMatchAndRecordsOn(t *testing.T) {
	pc := shortConfig(pong.FFA4)
	a := newArena(t, pc, game.RoomConfig{Countdown: -1, AllowLateJoin: true}, 11)
	a.join("a", -1)
	a.join("b", -1)
	a.join("c", -1)
	a.ready("a", "b", "c")
	a.playTicks(150)
	a.leave("c")
	a.playTicks(100)
	a.cancel()
	<-a.room.Done()
	players := []game.Player{{ID: "a", Name: "a"}, {ID: "b", Name: "b"}, {ID: "c", Name: "c"}, {}}
	log := a.rec.Cut(players)
	if log == nil || len(log.SeatEvents) == 0 {
		t.Fatalf("no log with a seat change to resume from: %+v", log)
	}

	rec, err := NewRecorder(pongRecorder(pc))
	if err != nil {
		t.Fatal(err)
	}
	g, err := rec.Resume(log)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if g.Hash() != a.hashes[log.Ticks-1] {
		t.Fatalf("the resumed game's hash %#x, the live game's at tick %d %#x", g.Hash(), log.Ticks, a.hashes[log.Ticks-1])
	}
	// Play on where the dead room stopped: a's paddle moves.
	for tick := log.Ticks + 1; tick <= log.Ticks+uint64(pc.TickRate); tick++ {
		in := []game.Input{{Slot: 0, Action: 1}}
		g.Step(in)
		rec.Ticked(tick, in, g)
	}
	whole := rec.Cut(players)
	if whole == nil || whole.Ticks != log.Ticks+uint64(pc.TickRate) {
		t.Fatalf("the resumed match's log: %+v", whole)
	}
	p, err := NewPlayback(whole, testGames)
	if err != nil {
		t.Fatal(err)
	}
	for !p.Done() {
		if err := p.Step(); err != nil {
			t.Fatalf("the whole match does not play back at tick %d: %v", p.Tick(), err)
		}
	}
}

// A log that does not reproduce its hashes (damaged, or a game whose
// rules changed) is refused, and so is a log of another game's config.
func TestResumeRefusesALogThatDiverges(t *testing.T) {
	pc := shortConfig(pong.OneVOne)
	a := newArena(t, pc, game.RoomConfig{Countdown: -1}, 5)
	a.join("a", 0)
	a.join("b", 1)
	a.ready("a", "b")
	a.playTicks(200)
	a.cancel()
	<-a.room.Done()
	log := a.rec.Cut([]game.Player{{ID: "a"}, {ID: "b"}})
	if log == nil || len(log.Hashes) < 2 {
		t.Fatalf("log %+v", log)
	}
	bad := cloneReplay(log)
	bad.Hashes[0].Hash ^= 1
	rec, _ := NewRecorder(pongRecorder(pc))
	if _, err := rec.Resume(bad); !errors.Is(err, ErrLogDiverged) {
		t.Fatalf("resume of a log with a wrong hash: %v; want ErrLogDiverged", err)
	}
	other, _ := NewRecorder(pongRecorder(shortConfig(pong.FFA4)))
	if _, err := other.Resume(log); !errors.Is(err, ErrInvalidReplay) {
		t.Fatalf("resume of a 1v1 log by a free-for-all room: %v; want ErrInvalidReplay", err)
	}
	rec2, _ := NewRecorder(pongRecorder(pc))
	if _, err := rec2.Resume(log); err != nil {
		t.Fatalf("the same log unaltered: %v", err)
	}
}
