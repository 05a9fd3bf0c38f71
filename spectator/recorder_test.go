package spectator

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

func finished(f *game.Frame) bool { return f.Phase == game.Finished }

func sameResult(a, b game.Result) bool {
	return a.Forfeit == b.Forfeit && slices.Equal(a.Placements, b.Placements) &&
		slices.Equal(a.Places, b.Places) && slices.Equal(a.Scores, b.Scores)
}

// checkAgainstRoom compares what the recorder wrote with what the room
// showed at the end of the match.
func checkAgainstRoom(t *testing.T, a *arena, r *Replay, seed uint64) {
	t.Helper()
	f := a.frame()
	if r.Game != "pong" || r.Room != "r1" || r.Seed != seed || r.TickRate != 60 || r.Version != FormatVersion {
		t.Errorf("header: game %q room %q seed %d rate %d version %d", r.Game, r.Room, r.Seed, r.TickRate, r.Version)
	}
	if r.Ticks != f.Tick {
		t.Errorf("replay has %d ticks, room stepped %d", r.Ticks, f.Tick)
	}
	if f.Result == nil || !sameResult(r.Result, *f.Result) {
		t.Errorf("replay result %+v, room %+v", r.Result, f.Result)
	}
	for i, p := range f.Roster {
		if r.Seats[i] != p {
			t.Errorf("seat %d: replay %+v, room roster %+v", i, r.Seats[i], p)
		}
	}
	if err := r.Validate(); err != nil {
		t.Errorf("recorded replay does not validate: %v", err)
	}
}

func checkPlayback(t *testing.T, a *arena, r *Replay) {
	t.Helper()
	p := playAll(t, r, a.hashes)
	res, ok := p.g.Result()
	if !ok || !sameResult(res, r.Result) {
		t.Fatalf("playback result %+v (over %v), recorded %+v", res, ok, r.Result)
	}
	// Through the codec too: what is stored is what plays.
	b, err := Encode(r)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	d, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if diff := replayDiff(r, d); diff != "" {
		t.Fatalf("decoded replay differs: %s", diff)
	}
	playAll(t, d, a.hashes)
}

func TestRecordPlayback1v1(t *testing.T) {
	a := newArena(t, shortConfig(pong.OneVOne), game.RoomConfig{}, 11)
	a.join("a", -1)
	a.join("b", -1)
	a.ready("a", "b")
	a.playUntil(200_000, finished)
	r := a.replay()
	checkAgainstRoom(t, a, r, 11)
	// MatchStarted fires when the 3 s countdown ends.
	if at := r.Start.Sub(time.Unix(1_700_000_000, 0)); at < 3*time.Second || at > 3*time.Second+a.period+time.Millisecond {
		t.Errorf("start stamped %v into the room, want the end of the 3 s countdown", at)
	}
	if r.Result.Forfeit {
		t.Error("played to the end, yet a forfeit")
	}
	checkPlayback(t, a, r)
	t.Logf("1v1: %d ticks, %d input changes, %d hashes", r.Ticks, len(r.Inputs), len(r.Hashes))
}

// Late join (mid-rally, so the paddle is pending), a forfeit by Leave, a
// pause for a dropped player who comes back, and a grace period running out
// (a forfeit decided inside a tick): every way seats change mid-match.
func TestRecordPlaybackFFASeatChanges(t *testing.T) {
	pc := pong.DefaultConfig(pong.FFA4)
	pc.Lives = 1000
	a := newArena(t, pc, game.RoomConfig{AllowLateJoin: true, Grace: 2 * time.Second, Countdown: time.Second}, 5)
	a.join("a", -1)
	a.join("b", -1)
	a.join("c", -1)
	a.ready("a", "b", "c")
	a.playTicks(500)
	a.join("d", -1)
	a.playTicks(500)
	a.leave("b")
	a.playTicks(300)

	a.disconnect("c")
	a.drop("c")
	paused := a.frame().Tick
	for range 60 {
		a.tick()
	}
	if f := a.frame(); !f.Paused || f.Tick != paused {
		t.Fatalf("dropped player: paused %v, tick %d → %d", f.Paused, paused, f.Tick)
	}
	a.join("c", -1) // back within grace: resumes after a countdown
	a.playTicks(300)

	a.disconnect("c")
	a.drop("c")
	a.playUntil(10*60, func(f *game.Frame) bool { return !f.Seats[2].Taken })
	a.playTicks(300)
	a.leave("d")
	if !finished(a.frame()) {
		t.Fatalf("last opponent left, phase %v", a.frame().Phase)
	}

	r := a.replay()
	checkAgainstRoom(t, a, r, 5)
	if !r.Result.Forfeit || r.Result.Placements[0] != 0 {
		t.Errorf("result %+v, want a forfeit won by slot 0", r.Result)
	}
	var kinds []string
	for _, e := range r.SeatEvents {
		if e.Tick > 0 {
			kinds = append(kinds, fmt.Sprintf("%v%d", e.Kind, e.Slot))
		}
	}
	if want := []string{"join3", "leave1", "leave2", "leave3"}; !slices.Equal(kinds, want) {
		t.Errorf("mid-match seat events %v, want %v", kinds, want)
	}
	if last := r.SeatEvents[len(r.SeatEvents)-1]; last.Tick != r.Ticks {
		t.Errorf("the forfeit that ended the match is at tick %d, match ended at %d", last.Tick, r.Ticks)
	}
	checkPlayback(t, a, r)
}

// A seat left and taken again: the newcomer's first direction equals the
// leaver's last one, and must still be recorded, because Leave and Join
// stopped the paddle in between.
func TestRecordPlayback2v2SeatReuse(t *testing.T) {
	pc := shortConfig(pong.TwoVTwo)
	pc.PointsToWin = 1000
	a := newArena(t, pc, game.RoomConfig{AllowLateJoin: true, Countdown: -1}, 9)
	for _, id := range []string{"a", "b", "c", "d"} {
		a.join(id, -1)
	}
	a.ready("a", "b", "c", "d")
	a.playTicks(300)
	a.drop("a")
	if !a.room.Submit("a", game.Input{Slot: 0, Seq: 1000, Action: 1}) {
		t.Fatal("submit dropped")
	}
	a.tick()
	a.leave("a")
	a.playTicks(100)
	e := a.join("e", 0)
	e.dir = 1
	e.wait = 120
	e.send(a.room)
	a.tick()
	joinedAt := a.frame().Tick - 1
	a.playTicks(300)
	a.leave("b")
	a.leave("e")
	if !finished(a.frame()) {
		t.Fatal("team A left, match not over")
	}

	r := a.replay()
	checkAgainstRoom(t, a, r, 9)
	i := slices.IndexFunc(r.Inputs, func(in InputChange) bool { return in.Tick > joinedAt && in.Slot == 0 })
	if i < 0 || r.Inputs[i].Tick != joinedAt+1 || r.Inputs[i].Action != 1 {
		t.Fatalf("newcomer's first input not recorded as +1 at tick %d: %+v", joinedAt+1, r.Inputs[max(i, 0)])
	}
	checkPlayback(t, a, r)
}

func TestRecordRematch(t *testing.T) {
	a := newArena(t, shortConfig(pong.OneVOne), game.RoomConfig{Countdown: -1}, 21)
	a.join("a", -1)
	a.join("b", -1)
	a.ready("a", "b")
	a.playUntil(200_000, finished)
	first := a.replay()
	firstHashes := slices.Clone(a.hashes)
	a.ready("a", "b")
	a.playUntil(200_000, finished)
	second := a.replay()
	if second.Seed != game.NextSeed(first.Seed) {
		t.Fatalf("rematch seed %d, want NextSeed(%d)", second.Seed, first.Seed)
	}
	playAll(t, first, firstHashes)
	checkPlayback(t, a, second)
}

// A room closed mid-match, or a first countdown cancelled, produces nothing;
// a match that then plays in the same room records only itself.
func TestAbandonedMatchesProduceNothing(t *testing.T) {
	t.Run("closed", func(t *testing.T) {
		a := newArena(t, shortConfig(pong.OneVOne), game.RoomConfig{Countdown: -1}, 3)
		a.join("a", -1)
		a.join("b", -1)
		a.ready("a", "b")
		a.playTicks(200)
		a.cancel()
		<-a.room.Done()
		if len(a.replays) != 0 {
			t.Fatal("a closed room produced a replay")
		}
	})
	t.Run("cancelled countdown", func(t *testing.T) {
		a := newArena(t, shortConfig(pong.OneVOne), game.RoomConfig{}, 4)
		a.join("a", -1)
		a.join("b", -1)
		a.ready("a", "b")
		a.tick()
		a.leave("a") // before anything was played: back to waiting
		if f := a.frame(); f.Phase != game.Waiting {
			t.Fatalf("phase %v", f.Phase)
		}
		a.join("a", -1)
		a.ready("a", "b")
		a.playUntil(200_000, finished)
		r := a.replay()
		if len(a.replays) != 0 {
			t.Fatal("more than one replay")
		}
		checkAgainstRoom(t, a, r, 4)
		checkPlayback(t, a, r)
	})
}

// The size budget: three minutes of four-player FFA with inputs at human
// rates must fit in 10 KB.
func TestReplaySize3MinFFA(t *testing.T) {
	pc := pong.DefaultConfig(pong.FFA4)
	pc.Lives = 1 << 20 // nobody is knocked out: all four play the whole time
	a := newArena(t, pc, game.RoomConfig{}, 77)
	for _, id := range []string{"a", "b", "c", "d"} {
		a.join(id, -1)
	}
	a.ready("a", "b", "c", "d")
	a.playTicks(3 * 60 * 60)
	for _, id := range []string{"b", "c", "d"} {
		a.leave(id)
	}
	r := a.replay()
	checkAgainstRoom(t, a, r, 77)
	if r.Duration() < 3*time.Minute {
		t.Fatalf("match lasted %v", r.Duration())
	}
	b, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	raw := len(appendBody(nil, r))
	t.Logf("3-minute 4-player FFA: %d ticks, %d input changes (%.1f/s), %d hashes: %d bytes encoded (%d before zlib)",
		r.Ticks, len(r.Inputs), float64(len(r.Inputs))/r.Duration().Seconds(), len(r.Hashes), len(b), raw)
	if len(r.Inputs) < 4*3*60*2 {
		t.Fatalf("only %d input changes: the bots are not playing at human rates", len(r.Inputs))
	}
	if len(b) > 10*1024 {
		t.Fatalf("encoded replay is %d bytes, budget 10240", len(b))
	}
	checkPlayback(t, a, r)
}

// recordFFA records a short four-player match for the tests that only need
// some real replay.
func recordFFA(t *testing.T) (*Replay, []uint64) {
	t.Helper()
	pc := pong.DefaultConfig(pong.FFA4)
	pc.Lives = 1000
	a := newArena(t, pc, game.RoomConfig{Countdown: -1, AllowLateJoin: true}, 123)
	for _, id := range []string{"a", "b", "c"} {
		a.join(id, -1)
	}
	a.ready("a", "b", "c")
	a.playTicks(400)
	a.join("d", -1)
	a.playTicks(1600)
	for _, id := range []string{"b", "c", "d"} {
		a.leave(id)
	}
	return a.replay(), slices.Clone(a.hashes)
}

func cloneReplay(r *Replay) *Replay {
	c := *r
	c.Inputs = slices.Clone(r.Inputs)
	c.SeatEvents = slices.Clone(r.SeatEvents)
	c.Hashes = slices.Clone(r.Hashes)
	c.Seats = slices.Clone(r.Seats)
	return &c
}

// Flipping one recorded direction is caught at the first hash at or after
// it (the direction in force is part of the hash), and reported as match
// time.
func TestAlteredInputDiverges(t *testing.T) {
	r, _ := recordFFA(t)
	rng := rand.New(rand.NewPCG(1, 2))
	tried := 0
	for _, i := range rng.Perm(len(r.Inputs)) {
		in := r.Inputs[i]
		h := slices.IndexFunc(r.Hashes, func(th TickHash) bool { return th.Tick >= in.Tick })
		if h < 0 || in.Tick < 100 || in.Tick > 1500 {
			continue
		}
		hashTick := r.Hashes[h].Tick
		// The flip must still be in force at that hash: no later change or
		// seat event for the slot before it.
		if slices.ContainsFunc(r.Inputs[i+1:], func(o InputChange) bool { return o.Slot == in.Slot && o.Tick <= hashTick }) ||
			slices.ContainsFunc(r.SeatEvents, func(e SeatEvent) bool { return e.Tick >= in.Tick && e.Tick < hashTick }) {
			continue
		}
		bad := cloneReplay(r)
		bad.Inputs[i].Action = 1
		if in.Action == 1 {
			bad.Inputs[i].Action = -1
		}
		p, err := NewPlayback(bad, testGames)
		if err != nil {
			t.Fatal(err)
		}
		err = p.Seek(bad.Ticks)
		var div *DivergedError
		if !errors.As(err, &div) {
			t.Fatalf("flipped input %d (tick %d): Seek to the end gave %v, want a divergence", i, in.Tick, err)
		}
		if div.Tick != hashTick || p.Tick() != hashTick {
			t.Fatalf("flipped input at tick %d: diverged at %d (playback at %d), want the hash at %d", in.Tick, div.Tick, p.Tick(), hashTick)
		}
		s := hashTick / 60
		if want := fmt.Sprintf("replay diverged at %02d:%02d", s/60, s%60); err.Error() != want {
			t.Fatalf("message %q, want %q", err, want)
		}
		// Sticky until a seek back before it.
		if err2 := p.Step(); err2 != err {
			t.Fatalf("Step after divergence: %v", err2)
		}
		if err := p.Seek(in.Tick - 1); err != nil || p.Tick() != in.Tick-1 {
			t.Fatalf("Seek back before the flip: %v at tick %d", err, p.Tick())
		}
		if tried++; tried == 5 {
			break
		}
	}
	if tried == 0 {
		t.Fatal("no input change qualified for flipping")
	}

	// A wrong result or final state is caught at the end.
	bad := cloneReplay(r)
	bad.FinalHash++
	p, _ := NewPlayback(bad, testGames)
	var div *DivergedError
	if err := p.Seek(bad.Ticks); !errors.As(err, &div) || div.Tick != bad.Ticks {
		t.Fatalf("altered final hash: %v", err)
	}
	bad = cloneReplay(r)
	bad.Result.Scores = slices.Clone(r.Result.Scores)
	bad.Result.Scores[0]++
	p, _ = NewPlayback(bad, testGames)
	if err := p.Seek(bad.Ticks); !errors.As(err, &div) || div.Tick != bad.Ticks {
		t.Fatalf("altered result: %v", err)
	}
	// A recorded join the game refuses (slot 0 twice) is a divergence too.
	bad = cloneReplay(r)
	bad.SeatEvents = append([]SeatEvent{{Tick: 0, Slot: 0, Kind: SeatJoin}}, bad.SeatEvents...)
	p, _ = NewPlayback(bad, testGames)
	if err := p.Step(); !errors.As(err, &div) || div.Tick != 0 {
		t.Fatalf("double join: %v", err)
	}
}

func TestDivergedErrorMessage(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "replay diverged at 00:00"},
		{83*time.Second + 999*time.Millisecond, "replay diverged at 01:23"},
		{61 * time.Minute, "replay diverged at 61:00"},
	} {
		if got := (&DivergedError{At: c.d}).Error(); got != c.want {
			t.Errorf("%v: %q, want %q", c.d, got, c.want)
		}
	}
}

// Seeking anywhere, in any order, lands on the state straight play had.
func TestSeekMatchesStraightPlay(t *testing.T) {
	r, hashes := recordFFA(t)
	playAll(t, r, hashes)
	straight, _ := NewPlayback(r, testGames)
	want := map[uint64]any{0: straight.Snapshot()}
	for !straight.Done() {
		if err := straight.Step(); err != nil {
			t.Fatal(err)
		}
		if straight.Tick()%97 == 0 || straight.Done() {
			want[straight.Tick()] = straight.Snapshot()
		}
	}
	ticks := make([]uint64, 0, len(want))
	for k := range want {
		ticks = append(ticks, k)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	seeker, _ := NewPlayback(r, testGames)
	for round := range 3 {
		rng.Shuffle(len(ticks), func(i, j int) { ticks[i], ticks[j] = ticks[j], ticks[i] })
		for _, tk := range ticks {
			if err := seeker.Seek(tk); err != nil {
				t.Fatalf("round %d: Seek(%d): %v", round, tk, err)
			}
			if seeker.Tick() != tk || !reflect.DeepEqual(seeker.Snapshot(), want[tk]) {
				t.Fatalf("round %d: after Seek(%d) at tick %d the snapshot differs from straight play", round, tk, seeker.Tick())
			}
		}
	}
	if err := seeker.Seek(r.Ticks + 1); err == nil {
		t.Fatal("Seek past the end accepted")
	}
	if got := seeker.TickAt(10 * time.Second); got != 600 {
		t.Fatalf("TickAt(10s) = %d", got)
	}
	if got := seeker.TickAt(time.Hour); got != r.Ticks {
		t.Fatalf("TickAt(1h) = %d, want the end %d", got, r.Ticks)
	}
	if seeker.Duration() != r.Duration() || r.Duration() != time.Duration(r.Ticks)*time.Second/60 {
		t.Fatalf("durations %v, %v for %d ticks", seeker.Duration(), r.Duration(), r.Ticks)
	}
}

// The recorder's per-tick filtering, without a room: repeats and magnitude
// are not changes, a seat event resets what "a change" means.
func TestRecorderFiltersInputs(t *testing.T) {
	var got *Replay
	pc := shortConfig(pong.TwoVTwo)
	rc := pongRecorder(pc)
	rc.HashEvery, rc.OnReplay = 2, func(r *Replay) { got = r }
	rec, err := NewRecorder(rc)
	if err != nil {
		t.Fatal(err)
	}
	g := rec.Factory()(1)
	for s := range 4 {
		if err := g.Join(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Join(0); err == nil {
		t.Fatal("second join of slot 0 accepted")
	}
	rec.MatchStarted("r", 1, nil)
	step := func(in ...game.Input) {
		g.Step(in)
		rec.Ticked(g.(*recordedGame).steps, in, g)
	}
	step(game.Input{Slot: 0, Action: 0})                                  // 1: 0 is what it holds: nothing
	step(game.Input{Slot: 0, Action: 5}, game.Input{Slot: 1, Action: -3}) // 2: +1, -1
	step(game.Input{Slot: 0, Action: 1}, game.Input{Slot: 1, Action: -1}) // 3: repeats: nothing
	step(game.Input{Slot: 2, Action: 1}, game.Input{Slot: 2, Action: -1}) // 4: last wins: -1
	step(game.Input{Slot: 3, Action: 1}, game.Input{Slot: 3, Action: 0})  // 5: back to 0: nothing
	step(game.Input{Slot: 9, Action: 1}, game.Input{Slot: -1, Action: 1}) // 6: no such slot
	g.Leave(1)                                                            // after 6
	step(game.Input{Slot: 1, Action: -1})                                 // 7: after the reset: -1
	g.Leave(0)
	g.Leave(1) // team A gone: over
	res, over := g.Result()
	if !over {
		t.Fatal("not over")
	}
	rec.MatchEnded("r", res, []game.Seat{{Taken: true, Player: game.Player{ID: "x", Name: "X"}}, {}, {}, {}}, 7)
	if got == nil {
		t.Fatal("no replay")
	}
	want := []InputChange{{2, 0, 1, 0}, {2, 1, -1, 0}, {4, 2, -1, 0}, {7, 1, -1, 0}}
	if !slices.Equal(got.Inputs, want) {
		t.Fatalf("inputs %v, want %v", got.Inputs, want)
	}
	if len(got.Hashes) != 3 || got.Hashes[2].Tick != 6 {
		t.Fatalf("hashes every 2 ticks: %v", got.Hashes)
	}
	if got.Seats[0].ID != "x" || got.Seats[1] != (game.Player{}) {
		t.Fatalf("seats %v", got.Seats)
	}
	playAll(t, got, nil)

	// After the hand-off the recorder lets go of the match.
	rec.MatchEnded("r", res, nil, 7)
	rec.Ticked(8, nil, g)
}

// A tap acts anew each time: the recorder keeps a tap that repeats the
// one before (a held direction's repeat it drops), and the replay moves
// the paddle as the room did, hash for hash.
func TestRecorderKeepsRepeatedTaps(t *testing.T) {
	var got *Replay
	rc := pongRecorder(shortConfig(pong.OneVOne))
	rc.HashEvery, rc.OnReplay = 1, func(r *Replay) { got = r }
	rec, err := NewRecorder(rc)
	if err != nil {
		t.Fatal(err)
	}
	g := rec.Factory()(1)
	for s := range 2 {
		if err := g.Join(s); err != nil {
			t.Fatal(err)
		}
	}
	rec.MatchStarted("r", 1, nil)
	var hashes []uint64
	step := func(in ...game.Input) {
		g.Step(in)
		rec.Ticked(g.(*recordedGame).steps, in, g)
		hashes = append(hashes, g.Hash())
	}
	tap := pong.TapAction(1, 3)
	step(game.Input{Slot: 0, Action: tap}) // 1
	step()
	step()
	step()
	step(game.Input{Slot: 0, Action: tap}) // 5: the same tap again
	step()
	step(game.Input{Slot: 0, Action: 1}) // 7: held
	step(game.Input{Slot: 0, Action: 1}) // 8: a held repeat: not kept
	g.Leave(1)
	res, over := g.Result()
	if !over {
		t.Fatal("not over")
	}
	rec.MatchEnded("r", res, []game.Seat{{Taken: true, Player: game.Player{ID: "x", Name: "X"}}, {}}, 8)
	if got == nil {
		t.Fatal("no replay")
	}
	want := []InputChange{{1, 0, tap, 0}, {5, 0, tap, 0}, {7, 0, 1, 0}}
	if !slices.Equal(got.Inputs, want) {
		t.Fatalf("inputs %v, want %v", got.Inputs, want)
	}
	playAll(t, got, hashes)
}

func TestNewRecorderRejectsBadConfig(t *testing.T) {
	bad := pong.DefaultConfig(pong.OneVOne)
	bad.Width = 3
	if _, err := NewRecorder(pongRecorder(bad)); err == nil {
		t.Fatal("bad pong config accepted")
	}
	fast := pongRecorder(pong.DefaultConfig(pong.OneVOne))
	fast.TickRate = 5000
	if _, err := NewRecorder(fast); err == nil {
		t.Fatal("tick rate 5000 accepted")
	}
}

// A match played with lag compensation records the lag each input was
// judged with, and replays exactly from it, through the codec too; the same
// log without the lags no longer verifies, so the lags are what made the
// difference.
func TestRecordPlaybackWithLagCompensation(t *testing.T) {
	a := newArena(t, shortConfig(pong.OneVOne), game.RoomConfig{LagCompensation: 150 * time.Millisecond}, 23)
	a.join("a", -1).lag = 4
	a.join("b", -1).lag = 30 // beyond the cap: judged as 9 ticks
	a.ready("a", "b")
	a.playUntil(200_000, finished)
	r := a.replay()
	checkAgainstRoom(t, a, r, 23)
	lags := map[uint16]int{}
	for _, in := range r.Inputs {
		lags[in.Lag]++
	}
	// 0 until the bots' screens are that many ticks into the match.
	if lags[4] == 0 || lags[9] == 0 || len(lags)-min(lags[0], 1) != 2 {
		t.Fatalf("recorded lags %v, want 4 (slot 0) and 9 (slot 1, capped), or 0 at the start", lags)
	}
	checkPlayback(t, a, r)

	stripped := *r
	stripped.Inputs = slices.Clone(r.Inputs)
	for i := range stripped.Inputs {
		stripped.Inputs[i].Lag = 0
	}
	p, err := NewPlayback(&stripped, testGames)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Seek(r.Ticks); err == nil {
		t.Fatal("the match replays the same without its lags: compensation never mattered")
	}
	t.Logf("%d ticks, %d input changes, lags %v", r.Ticks, len(r.Inputs), lags)
}

// A match the room never finishes (the server stopping) is cut at the
// last hashed tick into an aborted replay: it survives encoding, and
// playback verifies every tick of it against the live game and ends
// there without a result.
func TestCutMatchIsAnAbortedReplay(t *testing.T) {
	a := newArena(t, shortConfig(pong.FFA4), game.RoomConfig{Countdown: -1, AllowLateJoin: true}, 9)
	a.join("a", -1)
	a.join("b", -1)
	a.join("c", -1)
	a.ready("a", "b", "c")
	a.playTicks(150)
	a.leave("c") // a seat change inside the cut
	a.playTicks(100)
	a.cancel()
	<-a.room.Done()
	if len(a.replays) != 0 {
		t.Fatal("a closed room handed over a replay by itself")
	}
	players := []game.Player{{ID: "a", Name: "name-a"}, {ID: "b", Name: "name-b"}, {ID: "c", Name: "name-c"}, {}}
	r := a.rec.Cut(players)
	if r == nil {
		t.Fatal("no replay of the match in progress")
	}
	if !r.Aborted || r.Ticks == 0 || r.Ticks%60 != 0 || uint64(len(a.hashes)) < r.Ticks || len(r.Result.Placements) != 0 {
		t.Fatalf("cut replay: aborted %v, %d ticks (live %d), result %+v", r.Aborted, r.Ticks, len(a.hashes), r.Result)
	}
	if a.rec.Cut(players) != nil {
		t.Fatal("a match was cut twice")
	}
	b, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := replayDiff(r, d); diff != "" {
		t.Fatalf("decoded replay differs: %s", diff)
	}
	playAll(t, d, a.hashes[:d.Ticks])
	// An altered input still diverges: the cut is verified, not trusted.
	bad := cloneReplay(d)
	bad.FinalHash ^= 1
	p, err := NewPlayback(bad, testGames)
	if err != nil {
		t.Fatal(err)
	}
	for err == nil && !p.Done() {
		err = p.Step()
	}
	var div *DivergedError
	if !errors.As(err, &div) {
		t.Fatalf("a cut replay with a wrong final hash: %v", err)
	}
}

// Nothing hashed yet, nothing to keep.
func TestCutBeforeTheFirstHashIsNothing(t *testing.T) {
	a := newArena(t, shortConfig(pong.OneVOne), game.RoomConfig{Countdown: -1}, 10)
	a.join("a", -1)
	a.join("b", -1)
	a.ready("a", "b")
	a.playTicks(30)
	a.cancel()
	<-a.room.Done()
	if r := a.rec.Cut(nil); r != nil {
		t.Fatalf("a cut of %d ticks", r.Ticks)
	}
}

// A 2v2 warm-up of one team that ends when its players leave
// (game.Result.WarmUp) hands over no replay: it was not a match.
func TestWarmUpProducesNoReplay(t *testing.T) {
	a := newArena(t, shortConfig(pong.TwoVTwo), game.RoomConfig{Countdown: -1}, 12)
	a.join("a", pong.Left)
	a.join("b", pong.Right)
	a.ready("a", "b")
	a.playTicks(300)
	a.leave("a")
	a.leave("b")
	if f := a.frame(); f.Phase == game.Playing || f.Phase == game.Countdown {
		t.Fatalf("phase %v after both left", f.Phase)
	}
	if len(a.replays) != 0 {
		t.Fatal("a warm-up produced a replay")
	}
}
