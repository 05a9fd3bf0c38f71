package lobby

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/game/tron"
	"github.com/termarena/termarena/spectator"
	"github.com/termarena/termarena/store/bolt"
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

// A light-cycle room from the catalogue plays a match to its end through
// the same lobby machinery as Pong (casual history, a replay), and the
// replay, whose turns are events rather than held states, plays back to
// the recorded result.
func TestLightCycleMatchThroughTheLobby(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	small := func(m tron.Mode) tron.Config {
		c := tron.DefaultConfig(m)
		c.Width, c.Height, c.RoundsToWin, c.PauseTicks, c.ReadyTicks, c.MoveEvery = 24, 16, 2, 6, 6, 1
		return c
	}
	games := game.Catalog{pong.Kind{}, tron.Kind{Configure: small}}
	svc, err := Start(st, Config{Rooms: RoomsConfig{Room: game.RoomConfig{Countdown: -1}, Games: games}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop(); st.Close() })
	r, err := svc.Rooms.Create("tron", "tron", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	players := []game.Player{{ID: "SHA256:aaa", Name: "ann"}, {ID: "SHA256:bbb", Name: "ben"}, {ID: "SHA256:ccc", Name: "cy"}}
	for _, p := range players {
		if _, _, err := st.Login(context.Background(), string(p.ID), "ssh-ed25519", p.Name); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Join(ctx, p, -1); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range players {
		if err := r.SetReady(ctx, p.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	// Ann turns now and then (a turn onto her own trail is ignored by the
	// rules, so any direction will do): the replay must hold her turns.
	var seq uint32
	waitFor(t, "the light-cycle match to end", func() bool {
		seq++
		r.Submit("SHA256:aaa", game.Input{Slot: 0, Seq: seq, Action: int8(seq%4 + 1)})
		fr, _ := r.Latest()
		return fr.Phase == game.Finished
	})
	waitFor(t, "the result to be saved", func() bool { o := r.Outcome(); return o != nil && o.MatchID != 0 })
	ms, err := st.Matches(context.Background(), "SHA256:aaa", 10)
	if err != nil || len(ms) != 1 || ms[0].Mode != "casual-tron" || len(ms[0].Players) != 3 {
		t.Fatalf("history: %+v %v", ms, err)
	}
	data, err := st.Replay(context.Background(), ms[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := spectator.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if rp.Game != "tron" || rp.Slots != 8 || !slices.ContainsFunc(rp.Inputs, func(in spectator.InputChange) bool { return in.Slot == 0 }) {
		t.Fatalf("replay of %s with %d slots and inputs %v", rp.Game, rp.Slots, rp.Inputs)
	}
	pb, err := spectator.NewPlayback(rp, games)
	if err != nil {
		t.Fatal(err)
	}
	if err := pb.Seek(rp.Ticks); err != nil || !pb.Done() {
		t.Fatalf("playback to the end: %v (done %v)", err, pb.Done())
	}
}

// A lone rider in a casual light-cycle room warms up: ready alone, the
// match runs (Frame.WarmUp), a crash only starts another round, and
// nothing is recorded; a second rider sitting down ends the warm-up (back
// to waiting, the first still ready), and the match of two that follows
// is the one recorded.
func TestLightCycleLoneWarmUp(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	small := func(m tron.Mode) tron.Config {
		c := tron.DefaultConfig(m)
		c.Width, c.Height, c.RoundsToWin, c.PauseTicks, c.ReadyTicks, c.MoveEvery = 24, 16, 1, 6, 6, 1
		return c
	}
	svc, err := Start(st, Config{Rooms: RoomsConfig{Room: game.RoomConfig{Countdown: -1}, Games: game.Catalog{tron.Kind{Configure: small}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop(); st.Close() })
	r, err := svc.Rooms.Create("tron", "tron", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ann, ben := game.Player{ID: "SHA256:aaa", Name: "ann"}, game.Player{ID: "SHA256:bbb", Name: "ben"}
	if _, err := r.Join(ctx, ann, -1); err != nil {
		t.Fatal(err)
	}
	if err := r.SetReady(ctx, ann.ID, true); err != nil {
		t.Fatalf("ready alone: %v", err)
	}
	waitFor(t, "ann's third round alone", func() bool {
		fr, _ := r.Latest()
		s, ok := fr.State.(*tron.Snapshot)
		return fr.Phase == game.Playing && fr.WarmUp && ok && s.Round >= 3
	})
	if fr, _ := r.Latest(); fr.Phase != game.Playing || !fr.WarmUp || fr.Result != nil {
		t.Fatalf("a lone rider's crashes ended the warm-up: %v %+v", fr.Phase, fr.Result)
	}
	if _, err := r.Join(ctx, ben, -1); err != nil {
		t.Fatal(err)
	}
	fr, _ := r.Latest()
	if fr.Phase != game.Waiting || fr.WarmUp || !fr.Seats[0].Ready || fr.Seats[1].Ready {
		t.Fatalf("ben sat down: %v warm-up %v seats %+v; want waiting, ann ready", fr.Phase, fr.WarmUp, fr.Seats[:2])
	}
	if err := r.SetReady(ctx, ben.ID, true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the match of two to end", func() bool { fr, _ := r.Latest(); return fr.Phase == game.Finished })
	waitFor(t, "the result to be saved", func() bool { o := r.Outcome(); return o != nil && o.MatchID != 0 })
	ms, err := st.RecentMatches(context.Background(), 10, nil)
	if err != nil || len(ms) != 1 || len(ms[0].Players) != 2 {
		t.Fatalf("recorded %+v (%v); want the one match of ann and ben", ms, err)
	}
}
