package lobby

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/spectator"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/bolt"
)

// servicesWith is testServices with the room and pong config a test needs,
// and players p0…p(n-1) known to the store.
func servicesWith(t *testing.T, n int, rc game.RoomConfig, pc func(pong.Mode) pong.Config) (*Services, *bolt.Store) {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, _, err := st.Login(context.Background(), fmt.Sprintf("SHA256:p%d", i), "ssh-ed25519", fmt.Sprintf("p%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	svc, err := Start(st, Config{Rooms: RoomsConfig{Room: rc, Games: pongGames(pc)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop(); st.Close() })
	return svc, st
}

// seatRanked makes the ranked room for p0…p(n-1) in seat order, as the
// matchmaker would, and seats everyone.
func seatRanked(t *testing.T, svc *Services, mode RankedMode, n int) *Room {
	t.Helper()
	m := Match{Mode: mode}
	for i := range n {
		m.Players = append(m.Players, Entry{ID: fmt.Sprintf("SHA256:p%d", i), Name: fmt.Sprintf("p%d", i), Rating: 1500})
	}
	r, err := svc.Rooms.CreateRanked(m)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		p := game.Player{ID: game.PlayerID(fmt.Sprintf("SHA256:p%d", i)), Name: fmt.Sprintf("p%d", i)}
		if _, err := r.Join(context.Background(), p, i); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func rankedRating(t *testing.T, st *bolt.Store, mode RankedMode, i int) store.Rating {
	t.Helper()
	r, _, err := st.Rating(context.Background(), string(mode), fmt.Sprintf("SHA256:p%d", i))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// In a ranked 2v2 a player walks out, the teammate plays on and the other
// team goes too, so the leaver's team wins: the leaver still loses.
func TestRanked2v2LeaverLosesThoughTheTeamWon(t *testing.T) {
	svc, st := servicesWith(t, 4, game.RoomConfig{Countdown: -1}, nil)
	r := seatRanked(t, svc, RankedPong2v2, 4)
	waitFor(t, "the match to start", func() bool { fr, _ := r.Latest(); return fr.Phase == game.Playing })
	ctx := context.Background()
	for _, id := range []game.PlayerID{"SHA256:p0", "SHA256:p2", "SHA256:p3"} { // p0 leaves p1 alone; p2, p3 give up
		if err := r.Leave(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	fr, _ := r.Latest()
	o := r.AwaitOutcome(ctx, fr.Seed)
	ms, err := st.Matches(context.Background(), "SHA256:p0", 1)
	if err != nil || len(ms) != 1 {
		t.Fatalf("matches: %+v %v", ms, err)
	}
	for _, p := range ms[0].Players {
		if p.Slot == 0 && (p.Place != 2 || !p.Left) {
			t.Fatalf("the leaver is recorded %+v", p)
		}
		if p.Slot == 1 && (p.Place != 1 || p.Left) {
			t.Fatalf("the teammate who stayed is recorded %+v", p)
		}
	}
	leaver, mate := rankedRating(t, st, RankedPong2v2, 0), rankedRating(t, st, RankedPong2v2, 1)
	if leaver.Rating >= 1500 || leaver.Losses != 1 || leaver.Wins != 0 {
		t.Fatalf("the leaver gained: %+v", leaver)
	}
	if mate.Rating <= 1500 || mate.Wins != 1 {
		t.Fatalf("the teammate lost their win: %+v", mate)
	}
	if c := o.Changes[0]; !c.Left || c.After >= c.Before {
		t.Fatalf("outcome for the leaver %+v", c)
	}
}

// A leaver in a free-for-all who outlasted someone may not gain either.
func TestPlaceLeavers(t *testing.T) {
	ps := []store.MatchPlayer{{Place: 1, Left: true}, {Place: 1}, {Place: 2}}
	placeLeavers(ps)
	if ps[0].Place != 2 || ps[1].Place != 1 {
		t.Fatalf("places %+v", ps)
	}
	ps = []store.MatchPlayer{{Place: 1, Left: true}, {Place: 1}}
	placeLeavers(ps)
	if ps[0].Place != 2 {
		t.Fatalf("a leaver sharing a draw: %+v", ps)
	}
	ps = []store.MatchPlayer{{Place: 1}, {Place: 2, Left: true}, {Place: 3}}
	placeLeavers(ps)
	if ps[1].Place != 2 {
		t.Fatalf("a free-for-all leaver's place changed: %+v", ps)
	}
}

// Walking out of the opening countdown of a ranked match is a forfeit like
// walking out of play: recorded, rated, and a cooldown strike.
func TestRankedCountdownLeaveIsAForfeit(t *testing.T) {
	svc, st := servicesWith(t, 2, game.RoomConfig{Countdown: time.Minute}, nil)
	ctx := context.Background()
	for round := 1; round <= 2; round++ {
		r := seatRanked(t, svc, RankedPong1v1, 2)
		fr, _ := r.Latest()
		if fr.Phase != game.Countdown {
			t.Fatalf("phase %v", fr.Phase)
		}
		if err := r.Leave(ctx, "SHA256:p0"); err != nil {
			t.Fatal(err)
		}
		if fr, _ := r.Latest(); fr.Phase != game.Finished || fr.Result == nil || fr.Result.Places[1] != 1 {
			t.Fatalf("after the leave: phase %v result %+v", fr.Phase, fr.Result)
		}
		o := r.AwaitOutcome(ctx, fr.Seed)
		if o == nil || o.MatchID == 0 || !o.Changes[0].Left || o.Changes[0].After >= o.Changes[0].Before {
			t.Fatalf("outcome %+v", o)
		}
		// The replay of a match forfeited before play still plays back.
		data, err := st.Replay(context.Background(), o.MatchID)
		if err != nil {
			t.Fatalf("replay of the forfeited match: %v", err)
		}
		rp, err := spectator.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		pb, err := spectator.NewPlayback(rp, svc.Rooms.Games())
		if err != nil {
			t.Fatal(err)
		}
		for !pb.Done() {
			if err := pb.Step(); err != nil {
				t.Fatalf("playback: %v", err)
			}
		}
		a, b := rankedRating(t, st, RankedPong1v1, 0), rankedRating(t, st, RankedPong1v1, 1)
		if a.Losses != round || b.Wins != round || a.Rating >= b.Rating {
			t.Fatalf("round %d: leaver %+v, opponent %+v", round, a, b)
		}
		_ = r.Leave(ctx, "SHA256:p1")
	}
	_, err := svc.Matchmaker.Join(RankedPong1v1, "SHA256:p0", "p0", 1400)
	var cd *CooldownError
	if !errors.Is(err, ErrCooldown) || !errors.As(err, &cd) {
		t.Fatalf("a repeat countdown leaver queued again: %v", err)
	}
}

// A match the server stops mid-play is recorded with the score it had.
func TestAbortedMatchKeepsItsScore(t *testing.T) {
	svc, st := servicesWith(t, 2, game.RoomConfig{Countdown: -1}, func(m pong.Mode) pong.Config {
		c := pong.DefaultConfig(m)
		c.PointsToWin = 99
		return c
	})
	r := seatRanked(t, svc, RankedPong1v1, 2)
	waitFor(t, "a point", func() bool {
		fr, _ := r.Latest()
		s, ok := fr.State.(*pong.Snapshot)
		return ok && s.Scores[0]+s.Scores[1] > 0
	})
	svc.Stop()
	fr, _ := r.Latest()
	want := fr.State.(*pong.Snapshot).Scores
	ms, err := st.Matches(context.Background(), "SHA256:p0", 1)
	if err != nil || len(ms) != 1 || !ms[0].Aborted {
		t.Fatalf("matches: %+v %v", ms, err)
	}
	for _, p := range ms[0].Players {
		if p.Score != int(want[p.Slot]) {
			t.Fatalf("aborted match recorded %+v, the score was %v", ms[0].Players, want)
		}
	}
}

// A 2v2 leaver is struck the moment they leave, while the others play on,
// and the strike reaches the store; Start reads it back, so a restart
// forgives nobody.
func TestRankedLeaveStrikesAtOnceAndIsStored(t *testing.T) {
	svc, st := servicesWith(t, 4, game.RoomConfig{Countdown: -1}, nil)
	// p0 left a ranked match before (forgiven): this leave is the second.
	svc.Results.cooldowns.RecordLeave("SHA256:p0", time.Now().Add(-time.Hour))
	r := seatRanked(t, svc, RankedPong2v2, 4)
	waitFor(t, "the match to start", func() bool { fr, _ := r.Latest(); return fr.Phase == game.Playing })
	if err := r.Leave(context.Background(), "SHA256:p0"); err != nil {
		t.Fatal(err)
	}
	if fr, _ := r.Latest(); fr.Phase != game.Playing {
		t.Fatalf("the 2v2 is %v after one player left, want it played on", fr.Phase)
	}
	until, blocked := svc.Matchmaker.Cooldown("SHA256:p0")
	if !blocked || until.Sub(time.Now()) < 4*time.Minute {
		t.Fatalf("the leaver's cooldown while the match plays on: blocked %v until %v", blocked, until)
	}
	if _, err := svc.Matchmaker.Join(RankedPong1v1, "SHA256:p0", "p0", 1500); !errors.Is(err, ErrCooldown) {
		t.Fatalf("the leaver queued while the match they left plays on: %v", err)
	}
	waitFor(t, "the strike to be stored", func() bool {
		all, err := st.LoadLeaves(context.Background(), nil)
		return err == nil && all["SHA256:p0"].Strikes == 2 && all["SHA256:p0"].Until.Equal(until)
	})
	svc.Stop()
	svc2, err := Start(st, Config{Rooms: RoomsConfig{Games: pongGames(nil)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer svc2.Stop()
	if _, err := svc2.Matchmaker.Join(RankedPong1v1, "SHA256:p0", "p0", 1500); !errors.Is(err, ErrCooldown) {
		t.Fatalf("a restart forgave the leaver: %v", err)
	}
}

// A ranked 2v2 stopped by a shutdown after one player left is recorded as
// aborted (nobody's rating moves) with the leaver marked as having left.
func TestAbortedMatchMarksWhoLeftBeforeTheStop(t *testing.T) {
	svc, st := servicesWith(t, 4, game.RoomConfig{Countdown: -1}, nil)
	r := seatRanked(t, svc, RankedPong2v2, 4)
	waitFor(t, "the match to start", func() bool { fr, _ := r.Latest(); return fr.Phase == game.Playing })
	if err := r.Leave(context.Background(), "SHA256:p0"); err != nil {
		t.Fatal(err)
	}
	svc.Stop()
	ms, err := st.Matches(context.Background(), "SHA256:p1", 1)
	if err != nil || len(ms) != 1 || !ms[0].Aborted {
		t.Fatalf("matches: %+v %v", ms, err)
	}
	for _, p := range ms[0].Players {
		if p.Left != (p.Fingerprint == "SHA256:p0") {
			t.Fatalf("aborted match's players %+v: only p0 left", ms[0].Players)
		}
	}
}
