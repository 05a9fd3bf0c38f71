package lobby

import (
	"context"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// A drain that stops a room on the very tick its last journal batch was
// written hands over a log another node resumes. The hand-off wrote a
// second batch at that tick, and the node taking over refused the log
// ("batch 2 at tick 12 after tick 12") and recorded the match aborted:
// about one drain in twelve, as TestClusterRemotePlayerPlaysOnThroughDrainE2E
// saw.
func TestHandOffOnABatchTickLeavesAResumableLog(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	clock := game.NewFakeClock()
	j := &journalSpy{}
	rs := NewRooms(ctx, RoomsConfig{Games: game.Catalog{pong.Kind{}}, Journal: j, Room: game.RoomConfig{Countdown: -1, Clock: clock}})
	s := &Services{Rooms: rs, Results: NewResults(nil, nil, nil)}
	r, err := rs.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	for slot, p := range []game.Player{{ID: "ann", Name: "ann"}, {ID: "bob", Name: "bob"}} {
		if _, err := r.Join(ctx, p, slot); err != nil {
			t.Fatal(err)
		}
		if err := r.SetReady(ctx, p.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	for _, batches, _ := j.seen(); batches == 0; _, batches, _ = j.seen() {
		clock.Advance(time.Second / 60)
		r.Submit("ann", game.Input{Slot: 0, Seq: 1, Action: 1})
	}
	fr, _ := r.Latest()
	if got := s.HandOff(); len(got) != 1 {
		t.Fatalf("handed off %v; want the room", got)
	}
	starts, _, _ := j.seen()
	j.mu.Lock()
	batches := append([]LogBatch(nil), j.batches...)
	j.mu.Unlock()
	t.Logf("stopped at tick %d; batches at ticks %v", fr.Tick, ticksOf(batches))
	if len(starts) != 1 {
		t.Fatalf("%d starts in the journal", len(starts))
	}
	rs2 := NewRooms(ctx, RoomsConfig{Games: game.Catalog{pong.Kind{}}, Room: game.RoomConfig{Countdown: -1}})
	r2, err := rs2.Resume(starts[0], batches)
	if err != nil {
		t.Fatalf("the handed-off match does not resume: %v", err)
	}
	r2.Close()
}

func ticksOf(bs []LogBatch) []uint64 {
	out := make([]uint64, 0, len(bs))
	for _, b := range bs {
		out = append(out, b.Tick)
	}
	return out
}
