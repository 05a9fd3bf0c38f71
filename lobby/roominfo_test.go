package lobby

import (
	"slices"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// One summary serves every list: what it says of a casual, a private and
// a ranked room, and which listing holds which.
func TestRoomInfoSummarisesEachRoomOnce(t *testing.T) {
	rooms := NewRooms(t.Context(), RoomsConfig{Games: game.Catalog{pong.Kind{}}})
	casual, err := rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	private, err := rooms.Create("pong", "ffa", true)
	if err != nil {
		t.Fatal(err)
	}
	ranked, err := rooms.CreateRanked(Match{Mode: RankedPong1v1, Players: []Entry{{ID: "SHA256:a", Name: "alice"}, {ID: "SHA256:b", Name: "bob"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := casual.Join(t.Context(), game.Player{ID: "SHA256:c", Name: "carol"}, 1); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(casual.Info().Players) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the seat never showed in the room's summary")
		}
		time.Sleep(5 * time.Millisecond)
	}

	ci := casual.Info()
	if ci.ID != casual.ID() || ci.Game != "pong" || ci.Mode != "1v1" || ci.Queue != "" || ci.Ranked || ci.Private ||
		!ci.Started || ci.Phase != game.Waiting || ci.Seats != 2 || ci.Label != "1v1 · casual" || ci.Filed() != "casual-1v1" {
		t.Errorf("casual room: %+v", ci)
	}
	if want := []SeatInfo{{Slot: 1, ID: "SHA256:c", Name: "carol", Connected: true}}; !slices.Equal(ci.Players, want) {
		t.Errorf("casual room's players = %+v, want %+v", ci.Players, want)
	}
	if want := []string{"carol"}; !slices.Equal(ci.Names(), want) {
		t.Errorf("names = %v, want %v", ci.Names(), want)
	}
	if pi := private.Info(); !pi.Private || pi.Ranked || pi.Names() == nil || len(pi.Names()) != 0 {
		t.Errorf("private room: %+v (names %#v)", pi, pi.Names())
	}
	ri := ranked.Info()
	if !ri.Ranked || !ri.Private || ri.Queue != RankedPong1v1 || ri.Label != "pong-1v1 · ranked" || ri.Filed() != "pong-1v1" {
		t.Errorf("ranked room: %+v", ri)
	}

	ids := func(l Listing) []string {
		var out []string
		for _, ri := range rooms.Infos(l) {
			out = append(out, ri.ID)
		}
		return out
	}
	for _, c := range []struct {
		l    Listing
		want []string
	}{
		{Public, []string{casual.ID()}},
		{Watchable, []string{casual.ID(), ranked.ID()}},
		{Every, []string{casual.ID(), private.ID(), ranked.ID()}},
	} {
		if got := ids(c.l); !slices.Equal(got, c.want) {
			t.Errorf("listing %d = %v, want %v", c.l, got, c.want)
		}
	}
}
