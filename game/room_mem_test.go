package game

import (
	"runtime"
	"testing"
)

// TestRoomInputBufferTakesEachSeatsBurst: with the default buffer, every
// seat of a full room can send a second of its key budget before the next
// tick and none of it is refused; a key beyond what its seats can send
// finds no room (the buffer is sized to the seats, not a fixed 1,024).
func TestRoomInputBufferTakesEachSeatsBurst(t *testing.T) {
	h := newHarness(t, RoomConfig{MaxInputsPerTick: 1000}, fakeFactory(2, 0), 1)
	h.play("a", "b")
	const burst = 60 // inputguard.DefaultKeysPerSec: a second of keys
	for i := range burst {
		h.submit("a", 0, uint32(i+1), 1)
		h.submit("b", 1, uint32(i+1), -1)
	}
	h.oneTick()
	if st := h.state(); st.Pos[0] != burst || st.Pos[1] != -burst {
		t.Fatalf("pos = %v after each seat's %d keys, want all applied", st.Pos, burst)
	}
	if s := h.r.Stats(); s.InputsDropped != 0 {
		t.Fatalf("%d inputs refused", s.InputsDropped)
	}
	for i := range 2 * DefaultSeatInputs {
		h.submit("a", 0, uint32(burst+i+1), 1)
	}
	if h.r.Submit("a", Input{Slot: 0, Seq: 9999, Action: 1}) {
		t.Fatalf("a 2-seat room queued more than %d inputs", 2*DefaultSeatInputs)
	}
}

// TestRoomHoldsWhatItsSeatsNeed: making a two-seat room allocates a few
// kilobytes (its input buffer was 48 KB of them, whatever the seats).
func TestRoomHoldsWhatItsSeatsNeed(t *testing.T) {
	f := fakeFactory(2, 0)
	f(1) // the game's own allocations once, outside the count
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := NewRoom("r1", RoomConfig{}, f, 1)
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(r)
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<10 {
		t.Fatalf("NewRoom allocated %d bytes for a two-seat room, want ≤16 KB", got)
	}
}

// BenchmarkNewRoom: the bytes a two-seat room allocates when it is made
// (B/op), most of which it holds for its life.
func BenchmarkNewRoom(b *testing.B) {
	f := fakeFactory(2, 0)
	b.ReportAllocs()
	for b.Loop() {
		NewRoom("r1", RoomConfig{}, f, 1)
	}
}
