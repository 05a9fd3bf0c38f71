package lobby

import (
	"errors"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// fixedPairing is a cluster's matchmaker held by a node named holder.
type fixedPairing struct{ holder string }

func (p fixedPairing) Holder() string           { return p.holder }
func (p fixedPairing) Elsewhere(RankedMode) int { return 3 }

// A matchmaker whose pairing is handed to a cluster runs no waves of its
// own: two players who fit wait, listed by Waiting, until a match comes
// back through Apply. A match naming a player who left is refused and
// leaves the other queued; a fitting one seats both in one ranked room.
func TestPairElsewhere(t *testing.T) {
	rooms := NewRooms(t.Context(), RoomsConfig{Games: game.Catalog{pong.Kind{}}, Node: "n2"})
	mm, err := NewMatchmaker(rooms, &Cooldowns{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	go mm.Run(t.Context())
	if mm.Pairer() != "" {
		t.Fatalf("Pairer on a single node = %q, want none", mm.Pairer())
	}
	mm.PairElsewhere(fixedPairing{"n1"})
	if node, elsewhere, shared := mm.Scope(RankedPong1v1); mm.Pairer() != "n1" || node != "n2" || elsewhere != 3 || !shared {
		t.Fatalf("Pairer %q, Scope %q %d %v", mm.Pairer(), node, elsewhere, shared)
	}
	_, changed := mm.Waiting()
	ann, err := mm.Join(RankedPong1v1, "ann", "ann", 1500)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	default:
		t.Fatal("Waiting's channel not closed by a join")
	}
	bob, err := mm.Join(RankedPong1v1, "bob", "bob", 1500)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * WaveInterval) // a wave or two, had it paired them itself
	waiting, _ := mm.Waiting()
	if es := waiting[RankedPong1v1]; len(es) != 2 || es[0].ID != "ann" || es[1].ID != "bob" {
		t.Fatalf("waiting %+v, want ann and bob still queued", es)
	}

	mm.Leave("bob")
	m := Match{Mode: RankedPong1v1, Formed: time.Now(), Players: waiting[RankedPong1v1]}
	if err := mm.Apply(m); !errors.Is(err, ErrStaleMatch) {
		t.Fatalf("Apply with bob gone: %v, want ErrStaleMatch", err)
	}
	if waiting, _ = mm.Waiting(); len(waiting[RankedPong1v1]) != 1 {
		t.Fatalf("after a refused match, waiting %+v, want ann alone", waiting[RankedPong1v1])
	}
	select {
	case r := <-bob.Room():
		t.Fatalf("bob, who left, got room %v", r)
	case r := <-ann.Room():
		t.Fatalf("ann got room %v from a refused match", r)
	default:
	}

	bob, err = mm.Join(RankedPong1v1, "bob", "bob", 1500)
	if err != nil {
		t.Fatal(err)
	}
	waiting, _ = mm.Waiting()
	if err := mm.Apply(Match{Mode: RankedPong1v1, Formed: time.Now(), Players: waiting[RankedPong1v1]}); err != nil {
		t.Fatal(err)
	}
	ra, rb := <-ann.Room(), <-bob.Room()
	if ra == nil || ra != rb || ra.Ranked != RankedPong1v1 {
		t.Fatalf("ann in %v, bob in %v: want one ranked room", ra, rb)
	}
	if waiting, _ = mm.Waiting(); len(waiting[RankedPong1v1]) != 0 {
		t.Fatalf("after the match, waiting %+v", waiting[RankedPong1v1])
	}
}
