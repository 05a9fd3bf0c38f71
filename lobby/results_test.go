package lobby

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/spectator"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/bolt"
)

func testServices(t *testing.T) (*Services, *bolt.Store) {
	t.Helper()
	return testServicesPlaying(t, func(m pong.Mode) pong.Config {
		c := pong.DefaultConfig(m)
		c.PointsToWin, c.Lives = 1, 1
		return c
	})
}

// testServicesPlaying is testServices with Pong played to pc's configs.
func testServicesPlaying(t *testing.T, pc func(pong.Mode) pong.Config) (*Services, *bolt.Store) {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ fp, name string }{{"SHA256:aaa", "ann"}, {"SHA256:bbb", "ben"}} {
		if _, _, err := st.Login(context.Background(), p.fp, "ssh-ed25519", p.name); err != nil {
			t.Fatal(err)
		}
	}
	svc, err := Start(st, Config{Rooms: RoomsConfig{
		Room:  game.RoomConfig{Countdown: -1},
		Games: pongGames(pc),
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop(); st.Close() })
	return svc, st
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// matchUp queues ann and ben for ranked 1v1 and seats them in the room
// the matchmaker makes.
func matchUp(t *testing.T, svc *Services) *Room {
	t.Helper()
	ctx := context.Background()
	ta, err := svc.Matchmaker.Join(RankedPong1v1, "SHA256:aaa", "ann", 1500)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := svc.Matchmaker.Join(RankedPong1v1, "SHA256:bbb", "ben", 1500)
	if err != nil {
		t.Fatal(err)
	}
	r := <-ta.Room()
	if r2 := <-tb.Room(); r2 != r {
		t.Fatal("the two tickets got different rooms")
	}
	for id, name := range map[game.PlayerID]string{"SHA256:aaa": "ann", "SHA256:bbb": "ben"} {
		if _, err := r.Join(ctx, game.Player{ID: id, Name: name}, r.Seats[id]); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the ranked match to start", func() bool { fr, _ := r.Latest(); return fr.Phase == game.Playing })
	return r
}

func TestRankedLeaverLosesAndRepeatLeaversCoolDown(t *testing.T) {
	svc, st := testServices(t)
	ctx := context.Background()
	for round := 1; round <= 2; round++ {
		r := matchUp(t, svc)
		if err := r.Leave(ctx, "SHA256:aaa"); err != nil { // ann walks out
			t.Fatal(err)
		}
		waitFor(t, "the result to be saved", func() bool { o := r.Outcome(); return o != nil && o.MatchID != 0 })
		a, _, _ := st.Rating(context.Background(), string(RankedPong1v1), "SHA256:aaa")
		b, _, _ := st.Rating(context.Background(), string(RankedPong1v1), "SHA256:bbb")
		if a.Games != round || a.Losses != round || b.Wins != round || a.Rating >= b.Rating {
			t.Fatalf("round %d: leaver %+v, stayer %+v", round, a, b)
		}
		_ = r.Leave(ctx, "SHA256:bbb")
	}
	// The first walk-out is forgiven; the second costs a queue cooldown.
	_, err := svc.Matchmaker.Join(RankedPong1v1, "SHA256:aaa", "ann", 1400)
	var cd *CooldownError
	if !errors.Is(err, ErrCooldown) || !errors.As(err, &cd) || !cd.Until.After(time.Now()) {
		t.Fatalf("repeat leaver queued again: %v", err)
	}
	if _, err := svc.Matchmaker.Join(RankedPong1v1, "SHA256:bbb", "ben", 1600); err != nil {
		t.Fatalf("the player who stayed cannot queue: %v", err)
	}
}

func TestMatchInProgressAtShutdownIsAborted(t *testing.T) {
	svc, st := testServicesPlaying(t, nil) // 11 points: still playing when stopped
	r := matchUp(t, svc)
	waitFor(t, "two seconds of play", func() bool { fr, _ := r.Latest(); return fr.Tick > 120 })
	svc.Stop()
	ms, err := st.Matches(context.Background(), "SHA256:aaa", 10)
	if err != nil || len(ms) != 1 || !ms[0].Aborted || !ms[0].Ranked {
		t.Fatalf("matches after shutdown: %+v %v", ms, err)
	}
	// Its replay is kept, marked aborted, and plays to where it was cut.
	if !ms[0].Replay {
		t.Fatal("the aborted match kept no replay")
	}
	data, err := st.Replay(context.Background(), ms[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := spectator.Decode(data)
	if err != nil || !rep.Aborted || rep.Ticks < 120 {
		t.Fatalf("the aborted match's replay: %v, %+v", err, rep)
	}
	pb, err := spectator.NewPlayback(rep, svc.Rooms.Games())
	if err != nil {
		t.Fatal(err)
	}
	for !pb.Done() {
		if err := pb.Step(); err != nil {
			t.Fatalf("playing the aborted match's replay: %v", err)
		}
	}
	for _, fp := range []string{"SHA256:aaa", "SHA256:bbb"} {
		if r, found, _ := st.Rating(context.Background(), string(RankedPong1v1), fp); found || r.Games != 0 {
			t.Fatalf("an aborted match changed %s's rating: %+v", fp, r)
		}
	}
}

func TestCasualMatchIsHistoryNotRating(t *testing.T) {
	svc, st := testServices(t)
	ctx := context.Background()
	r, err := svc.Rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	players := []game.Player{{ID: "SHA256:aaa", Name: "ann"}, {ID: "guest:1234", Name: "guest-1234", Guest: true}}
	for _, p := range players {
		if _, err := r.Join(ctx, p, -1); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range players {
		if err := r.SetReady(ctx, p.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the casual match to end", func() bool { fr, _ := r.Latest(); return fr.Phase == game.Finished })
	waitFor(t, "the result to be saved", func() bool { o := r.Outcome(); return o != nil && o.MatchID != 0 })
	ms, err := st.Matches(context.Background(), "SHA256:aaa", 10)
	if err != nil || len(ms) != 1 || ms[0].Ranked || ms[0].Mode != "casual-1v1" || len(ms[0].Players) != 2 {
		t.Fatalf("casual history: %+v %v", ms, err)
	}
	if _, found, _ := st.Rating(context.Background(), "casual-1v1", "SHA256:aaa"); found {
		t.Fatal("a casual match created a rating")
	}
	if o := r.Outcome(); len(o.Changes) != 0 {
		t.Fatalf("casual outcome has rating changes: %+v", o)
	}
}

// TestTickStatsOutliveRooms: the server's tick counts and lateness
// histogram are totals: a room that ends keeps its part in them.
func TestTickStatsOutliveRooms(t *testing.T) {
	svc, _ := testServices(t)
	r := matchUp(t, svc)
	waitFor(t, "some ticks", func() bool { return r.Stats().Ticks > 10 })
	total := func() (ticks, late uint64) {
		for _, s := range svc.TickStats() {
			ticks += s.Ticks
			for _, n := range s.Lateness {
				late += n
			}
		}
		return
	}
	ticks0, _ := total()
	ctx := context.Background()
	_ = r.Leave(ctx, "SHA256:aaa")
	_ = r.Leave(ctx, "SHA256:bbb")
	waitFor(t, "the room to end", func() bool { return svc.Rooms.Count() == 0 })
	ticks1, late1 := total()
	if ticks1 < ticks0 || late1 != ticks1 {
		t.Fatalf("after the room ended: %d ticks (%d in the lateness histogram), before %d", ticks1, late1, ticks0)
	}
}

// A 2v2 with one team only is a warm-up: misses re-serve, nobody can win
// it, so it is not a match, and when its players leave nothing is recorded
// (no history, no replay, no profile line). A real match played next in the
// same room is recorded as usual.
func TestTwoVTwoWarmUpIsNotRecorded(t *testing.T) {
	svc, st := testServices(t)
	ctx := context.Background()
	r, err := svc.Rooms.Create("pong", "2v2", false)
	if err != nil {
		t.Fatal(err)
	}
	ann, ben := game.Player{ID: "SHA256:aaa", Name: "ann"}, game.Player{ID: "SHA256:bbb", Name: "ben"}
	// Left and right: the same team.
	for slot, p := range []game.Player{ann, ben} {
		if _, err := r.Join(ctx, p, slot); err != nil {
			t.Fatal(err)
		}
		if err := r.SetReady(ctx, p.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the warm-up to run", func() bool { fr, _ := r.Latest(); return fr.Phase == game.Playing && fr.Tick > 200 })
	for _, p := range []game.Player{ann, ben} {
		if err := r.Leave(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
	}
	// A second warm-up is still going when the server stops (below): not
	// recorded as an aborted match either.
	r3, err := svc.Rooms.Create("pong", "2v2", false)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []game.Player{ann, ben} {
		if _, err := r3.Join(ctx, p, []int{pong.Top, pong.Bottom}[i]); err != nil {
			t.Fatal(err)
		}
		if err := r3.SetReady(ctx, p.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the second warm-up to run", func() bool { fr, _ := r3.Latest(); return fr.Phase == game.Playing && fr.Tick > 100 })
	// Then a real match: ann on the left against ben on top.
	r2, err := svc.Rooms.Create("pong", "2v2", false)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []game.Player{ann, ben} {
		if _, err := r2.Join(ctx, p, []int{pong.Left, pong.Top}[i]); err != nil {
			t.Fatal(err)
		}
		if err := r2.SetReady(ctx, p.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the real match's result to be saved", func() bool { o := r2.Outcome(); return o != nil && o.MatchID != 0 })
	for _, fp := range []string{"SHA256:aaa", "SHA256:bbb"} {
		ms, err := st.Matches(context.Background(), fp, 10)
		if err != nil || len(ms) != 1 || ms[0].Room != r2.ID() {
			t.Fatalf("%s's history: %+v %v; want only the match in %s", fp, ms, err, r2.ID())
		}
	}
	recent, err := st.RecentMatches(context.Background(), 10, func(m store.MatchRecord) bool { return m.Replay })
	if err != nil || len(recent) != 1 || recent[0].Room != r2.ID() {
		t.Fatalf("replays: %+v %v; want only the match in %s", recent, err, r2.ID())
	}
	svc.Stop()
	if all, err := st.RecentMatches(context.Background(), 10, nil); err != nil || len(all) != 1 {
		t.Fatalf("after the server stopped during a warm-up: %+v %v; want only the match in %s", all, err, r2.ID())
	}
}

// TestResultThatCannotBeSavedIsSaidSo: on a store that takes no writes (a
// full disk) a finished match cannot be recorded; its players are told so
// in the outcome instead of waiting for ratings that never come, and
// nothing is half saved.
func TestResultThatCannotBeSavedIsSaidSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	st, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Login(context.Background(), "SHA256:aaa", "ssh-ed25519", "ann"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = bolt.Open(path, bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := Start(st, Config{Rooms: RoomsConfig{
		Room: game.RoomConfig{Countdown: -1},
		Games: pongGames(func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin, c.Lives = 1, 1
			return c
		}),
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop(); st.Close() })
	ctx := context.Background()
	r, err := svc.Rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	players := []game.Player{{ID: "SHA256:aaa", Name: "ann"}, {ID: "guest:1234", Name: "guest-1234", Guest: true}}
	for _, p := range players {
		if _, err := r.Join(ctx, p, -1); err != nil {
			t.Fatal(err)
		}
		if err := r.SetReady(ctx, p.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the players to be told the result was not saved", func() bool { o := r.Outcome(); return o != nil && o.Unsaved != "" })
	if o := r.Outcome(); o.MatchID != 0 || o.Unsaved != "result not saved: the server cannot save right now" {
		t.Errorf("outcome %+v", o)
	}
	if ms, err := st.Matches(context.Background(), "SHA256:aaa", 10); err != nil || len(ms) != 0 {
		t.Errorf("matches %+v, %v; want none", ms, err)
	}
}
