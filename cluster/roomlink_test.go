package cluster

import (
	"errors"
	"reflect"
	"testing"

	"github.com/termarena/termarena/game"
)

// An input batch crosses the wire whole (Lag is the owner's to set).
func TestInputBatchRoundTrip(t *testing.T) {
	batch := []remoteInput{
		{id: "SHA256:abc", in: game.Input{Slot: 1, Seq: 4_000_000_000, Action: -1, Seen: 1 << 40}},
		{id: "guest-3", in: game.Input{Slot: 0, Seq: 1, Action: 7}},
	}
	got, err := decodeInputs(encodeInputs(nil, batch))
	if err != nil || !reflect.DeepEqual(got, batch) {
		t.Fatalf("decoded %+v, %v; want %+v", got, err, batch)
	}
}

// FuzzDecodeInputs: an input batch from NATS never panics the owner, and
// one it accepts says the same encoded again.
func FuzzDecodeInputs(f *testing.F) {
	f.Add(encodeInputs(nil, []remoteInput{{id: "SHA256:abc", in: game.Input{Slot: 1, Seq: 9, Action: 1, Seen: 77}}}))
	f.Add([]byte{1, 0x7f})
	f.Fuzz(func(t *testing.T, data []byte) {
		batch, err := decodeInputs(data)
		if err != nil {
			return
		}
		if len(batch) > maxInputBatch {
			t.Fatalf("%d inputs in one batch", len(batch))
		}
		again, err := decodeInputs(encodeInputs(nil, batch))
		if err != nil || !reflect.DeepEqual(again, batch) {
			t.Fatalf("re-decoded %+v, %v; want %+v", again, err, batch)
		}
	})
}

// A room's errors reach the asking node as the room's own: a taken slot
// with the free ones, a full room, a closed one, anything else as text.
func TestControlErrorsCrossTheWire(t *testing.T) {
	for _, want := range []error{
		&game.SlotTakenError{Slot: 1, Free: []int{0, 3}}, game.ErrRoomFull, game.ErrClosed, game.ErrStarted,
		game.ErrNotSeated, game.ErrNotExpected, game.ErrInvalidSlot, errors.New("lobby: something else"),
	} {
		got := replyErr(want).err(ctlMsg{Slot: 1})
		if got.Error() != want.Error() && !errors.Is(got, want) {
			t.Errorf("%v came back as %v", want, got)
		}
		var taken *game.SlotTakenError
		if errors.As(want, &taken) {
			var back *game.SlotTakenError
			if !errors.As(got, &back) || !reflect.DeepEqual(back, taken) {
				t.Errorf("slot taken came back as %#v", got)
			}
		}
	}
	if err := replyErr(&game.SlotTakenError{Slot: 0}).err(ctlMsg{Slot: 0}); !errors.Is(err, game.ErrRoomFull) {
		t.Errorf("a taken slot with none free is not a full room: %v", err)
	}
}
