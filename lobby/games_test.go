package lobby

import (
	"errors"
	"slices"
	"testing"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/game/tron"
)

// The ranked modes the tests play, as the pong catalogue entry names them.
const (
	RankedPong1v1  RankedMode = "pong-1v1"
	RankedPongFFA4 RankedMode = "pong-ffa4"
	RankedPong2v2  RankedMode = "pong-2v2"
)

// testModes are those modes with their table sizes.
var testModes = []struct {
	mode  RankedMode
	size  int
	pairs bool
}{{RankedPong1v1, 2, false}, {RankedPongFFA4, 4, false}, {RankedPong2v2, 4, true}}

func tableSize(m RankedMode) int {
	for _, tm := range testModes {
		if tm.mode == m {
			return tm.size
		}
	}
	return 0
}

// pongGames is the catalogue with Pong played to pc's configs (nil:
// defaults).
func pongGames(pc func(pong.Mode) pong.Config) game.Catalog {
	return game.Catalog{pong.Kind{Configure: pc}}
}

// The matchmaker runs a queue for each ranked mode of every game in the
// catalogue, sized and teamed as the mode says.
func TestMatchmakerQueuesFromCatalog(t *testing.T) {
	rooms := NewRooms(t.Context(), RoomsConfig{Games: game.Catalog{pong.Kind{}, tron.Kind{}}})
	mm, err := NewMatchmaker(rooms, &Cooldowns{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []RankedMode{RankedPong1v1, RankedPong2v2, RankedPongFFA4, "tron-ffa"}
	if !slices.Equal(mm.Modes(), want) {
		t.Fatalf("modes %v, want %v", mm.Modes(), want)
	}
	for _, tm := range testModes {
		q := mm.queues[tm.mode]
		if q.size != tm.size || q.pairs != tm.pairs {
			t.Errorf("%s: table %d pairs %v, want %d %v", tm.mode, q.size, q.pairs, tm.size, tm.pairs)
		}
	}
	if q := mm.queues["tron-ffa"]; q.size != 4 || q.pairs {
		t.Errorf("tron-ffa: table %d pairs %v", q.size, q.pairs)
	}
	if _, err := NewQueue("chess-1v1", 1, false); !errors.Is(err, ErrUnknownMode) {
		t.Errorf("NewQueue(a table of 1) err = %v, want ErrUnknownMode", err)
	}
	if _, err := NewQueue("x", 3, true); !errors.Is(err, ErrUnknownMode) {
		t.Errorf("NewQueue(pairs of 3) err = %v, want ErrUnknownMode", err)
	}
}

// Casual rooms are made for the catalogue's casual modes only.
func TestCreateNamesAGameAndMode(t *testing.T) {
	rooms := NewRooms(t.Context(), RoomsConfig{Games: game.Catalog{pong.Kind{}, tron.Kind{}}})
	r, err := rooms.Create("tron", "tron", false)
	if err != nil {
		t.Fatal(err)
	}
	if r.Game.Name() != "tron" || r.Mode.Seats != 8 || ModeName(r) != "casual-tron" {
		t.Fatalf("room %s %+v %q", r.Game.Name(), r.Mode, ModeName(r))
	}
	if r, err := rooms.Create("pong", "2v2", true); err != nil || ModeName(r) != "casual-2v2" || r.Code == "" {
		t.Fatalf("pong 2v2: %v %v", r, err)
	}
	for _, bad := range [][2]string{{"tron", "tron-ffa"}, {"chess", "1v1"}, {"pong", "3v3"}} {
		if _, err := rooms.Create(bad[0], bad[1], false); !errors.Is(err, ErrNoMode) {
			t.Errorf("Create(%s, %s): %v, want ErrNoMode", bad[0], bad[1], err)
		}
	}
}
