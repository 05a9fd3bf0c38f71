package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/termarena/termarena/store"
)

// A ranked match end writes the record, both ratings, the replay and the
// leaver's strikes, and returns what it wrote: the ratings before and
// after and the games played, which a read afterwards agrees with.
func testMatchEndIsWhole(t *testing.T, b Backend) {
	s, c := open(t, b)
	login(t, s, "ann")
	login(t, s, "bob")
	m := duel("ann", "bob", c.now().Add(-2*time.Minute))
	m.Players[1].Left = true
	strike := store.Leaves{Strikes: 1, Last: c.now(), Until: c.now().Add(5 * time.Minute)}
	replay := []byte("the replay's bytes")
	saved, err := s.RecordMatch(bg, store.MatchEnd{Match: m, Rate: shift(12.5, -12.5), Replay: replay,
		Leaves: map[string]store.Leaves{fp("bob"): strike}})
	if err != nil {
		t.Fatalf("RecordMatch: %v", err)
	}
	if saved.ID == 0 || !saved.Replay {
		t.Errorf("saved ID %d, Replay %v; want an id and the replay flag", saved.ID, saved.Replay)
	}
	for i, want := range []struct {
		name          string
		before, after float64
	}{{"ann", store.InitialRating, store.InitialRating + 12.5}, {"bob", store.InitialRating, store.InitialRating - 12.5}} {
		p := saved.Players[i]
		if p.Name != want.name || p.RatingBefore != want.before || p.RatingAfter != want.after || p.GamesAfter != 1 ||
			p.DeviationBefore != store.InitialDeviation || p.DeviationAfter != store.InitialDeviation-50 {
			t.Errorf("seat %d returned %+v; want %s %v→%v, 1 game, deviation %v→%v", i, p, want.name, want.before, want.after,
				store.InitialDeviation, store.InitialDeviation-50)
		}
		r, found, err := s.Rating(bg, "pong-1v1", fp(want.name))
		if err != nil || !found || r.Rating != want.after || r.Games != 1 || r.Name != want.name || !r.Updated.Equal(c.now()) {
			t.Errorf("Rating(%s) = %+v, %v, %v; want %v after 1 game, updated %v", want.name, r, found, err, want.after, c.now())
		}
	}
	if got := must[store.MatchRecord](t)(s.Match(bg, saved.ID)); !equalMatch(got, saved) {
		t.Errorf("Match(%d) = %+v\nRecordMatch returned %+v", saved.ID, got, saved)
	}
	if got := must[[]byte](t)(s.Replay(bg, saved.ID)); string(got) != string(replay) {
		t.Errorf("Replay = %q, want %q", got, replay)
	}
	leaves := must[map[string]store.Leaves](t)(s.LoadLeaves(bg, nil))
	if l := leaves[fp("bob")]; l.Strikes != 1 || !l.Until.Equal(strike.Until) || !l.Last.Equal(strike.Last) {
		t.Errorf("bob's strikes = %+v, want %+v", l, strike)
	}
	for _, who := range []string{"ann", "bob"} {
		if ms := must[[]store.MatchRecord](t)(s.Matches(bg, fp(who), 10)); len(ms) != 1 || ms[0].ID != saved.ID {
			t.Errorf("Matches(%s) = %+v, want the one match", who, ms)
		}
	}
}

// equalMatch compares records as stored: times by instant.
func equalMatch(a, b store.MatchRecord) bool {
	return a.ID == b.ID && a.Mode == b.Mode && a.Ranked == b.Ranked && a.Aborted == b.Aborted && a.Forfeit == b.Forfeit &&
		a.Room == b.Room && a.Start.Equal(b.Start) && a.Duration == b.Duration && a.Replay == b.Replay &&
		slices.Equal(a.Players, b.Players)
}

// checkUntouched fails t if anything of a match between ann and bob was
// written: no match, no history, ratings as they were, no replay, no
// strikes.
func checkUntouched(t *testing.T, s store.Store, before map[string]store.Rating) {
	t.Helper()
	if ms := must[[]store.MatchRecord](t)(s.RecentMatches(bg, 10, nil)); len(ms) != 0 {
		t.Errorf("a failed match end left matches: %+v", ms)
	}
	for _, who := range []string{"ann", "bob"} {
		if ms := must[[]store.MatchRecord](t)(s.Matches(bg, fp(who), 10)); len(ms) != 0 {
			t.Errorf("a failed match end left %s a history: %+v", who, ms)
		}
		r, _, err := s.Rating(bg, "pong-1v1", fp(who))
		if err != nil || r.Rating != before[who].Rating || r.Games != before[who].Games {
			t.Errorf("after a failed match end %s's rating is %+v, %v; want %+v", who, r, err, before[who])
		}
	}
	if _, err := s.Replay(bg, 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Replay(1) after a failed match end: %v; want ErrNotFound", err)
	}
	if l := must[map[string]store.Leaves](t)(s.LoadLeaves(bg, nil)); len(l) != 0 {
		t.Errorf("a failed match end left strikes: %+v", l)
	}
}

func ratingsOf(t *testing.T, s store.Store) map[string]store.Rating {
	out := map[string]store.Rating{}
	for _, who := range []string{"ann", "bob"} {
		r, _, err := s.Rating(bg, "pong-1v1", fp(who))
		if err != nil {
			t.Fatal(err)
		}
		out[who] = r
	}
	return out
}

// A rate that fails, one that breaks the contract, a bad leave record:
// each stops the match end with nothing of it written, not even the
// match or the replay that come before the ratings.
func testMatchEndFailureWritesNothing(t *testing.T, b Backend) {
	s, c := open(t, b)
	login(t, s, "ann")
	login(t, s, "bob")
	before := ratingsOf(t, s)
	injected := errors.New("injected mid-way")
	for _, tc := range []struct {
		name string
		end  store.MatchEnd
	}{
		{"rate fails", store.MatchEnd{Rate: func([]store.Rating) ([]store.Rating, error) { return nil, injected }}},
		{"rate returns too few", store.MatchEnd{Rate: func(cur []store.Rating) ([]store.Rating, error) { return cur[:1], nil }}},
		{"rate returns NaN", store.MatchEnd{Rate: func(cur []store.Rating) ([]store.Rating, error) {
			cur[1].Rating = cur[1].Rating * 0 / zero()
			return cur, nil
		}}},
		{"ranked without rate", store.MatchEnd{}},
		{"bad leave record", store.MatchEnd{Rate: shift(1, -1), Leaves: map[string]store.Leaves{"": {Strikes: 1}}}},
	} {
		end := tc.end
		end.Match = duel("ann", "bob", c.now())
		end.Replay = []byte("replay")
		if _, err := s.RecordMatch(bg, end); err == nil {
			t.Errorf("%s: RecordMatch succeeded", tc.name)
		} else if tc.name == "rate fails" && !errors.Is(err, injected) {
			t.Errorf("%s: %v does not wrap the rate's error", tc.name, err)
		}
		checkUntouched(t, s, before)
	}
}

func zero() float64 { return 0 }

// A context cancelled while the match end is under way (from inside
// Rate: after the ratings were read, before anything is committed)
// leaves nothing of it; one cancelled before it starts does not start.
func testMatchEndCancelledWritesNothing(t *testing.T, b Backend) {
	s, c := open(t, b)
	login(t, s, "ann")
	login(t, s, "bob")
	before := ratingsOf(t, s)
	ctx, cancel := context.WithCancel(bg)
	rate := shift(5, -5)
	_, err := s.RecordMatch(ctx, store.MatchEnd{Match: duel("ann", "bob", c.now()), Replay: []byte("replay"),
		Leaves: map[string]store.Leaves{fp("bob"): {Strikes: 1, Last: c.now(), Until: c.now().Add(time.Minute)}},
		Rate: func(cur []store.Rating) ([]store.Rating, error) {
			cancel()
			return rate(cur)
		}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("RecordMatch with its context cancelled mid-way: %v; want context.Canceled", err)
	}
	checkUntouched(t, s, before)
	if _, err := s.RecordMatch(ctx, store.MatchEnd{Match: duel("ann", "bob", c.now()), Rate: shift(5, -5)}); !errors.Is(err, context.Canceled) {
		t.Errorf("RecordMatch with a cancelled context: %v; want context.Canceled", err)
	}
	checkUntouched(t, s, before)
}

// A four-player free-for-all rates every seat from its own current
// rating, in seat order.
func testMatchEndRatesEverySeat(t *testing.T, b Backend) {
	s, c := open(t, b)
	names := []string{"ann", "bob", "cat", "dan"}
	for _, n := range names {
		login(t, s, n)
	}
	ffa := func() store.MatchRecord {
		m := store.MatchRecord{Mode: "pong-ffa4", Ranked: true, Start: c.now(), Duration: time.Minute}
		for i, n := range names {
			m.Players = append(m.Players, store.MatchPlayer{Fingerprint: fp(n), Slot: i, Team: i, Place: i + 1})
		}
		return m
	}
	must[store.MatchRecord](t)(s.RecordMatch(bg, store.MatchEnd{Match: ffa(), Rate: shift(30, 10, -10, -30)}))
	var seen []store.Rating
	saved := must[store.MatchRecord](t)(s.RecordMatch(bg, store.MatchEnd{Match: ffa(), Rate: func(cur []store.Rating) ([]store.Rating, error) {
		seen = slices.Clone(cur)
		return shift(1, 2, 3, 4)(cur)
	}}))
	for i, n := range names {
		if seen[i].Fingerprint != fp(n) || seen[i].Mode != "pong-ffa4" || seen[i].Games != 1 {
			t.Errorf("rate saw seat %d as %+v; want %s's rating after one game", i, seen[i], n)
		}
		want := store.InitialRating + []float64{30, 10, -10, -30}[i] + float64(i+1)
		if p := saved.Players[i]; p.RatingBefore != seen[i].Rating || p.RatingAfter != want || p.GamesAfter != 2 {
			t.Errorf("seat %d returned %+v; want %v→%v after 2 games", i, p, seen[i].Rating, want)
		}
		if r := must[[]store.Rating](t)(s.Ratings(bg, fp(n))); len(r) != 1 || r[0].Rating != want || r[0].Games != 2 {
			t.Errorf("Ratings(%s) = %+v; want %v after 2 games", n, r, want)
		}
	}
}

// An unranked or aborted match changes no rating and never calls Rate;
// a guest may play an unranked one and gets no history.
func testUnrankedMatchEnd(t *testing.T, b Backend) {
	s, c := open(t, b)
	login(t, s, "ann")
	login(t, s, "bob")
	never := func([]store.Rating) ([]store.Rating, error) {
		t.Error("Rate called for a match that is not rated")
		return nil, errors.New("not rated")
	}
	casual := store.MatchRecord{Mode: "casual-1v1", Start: c.now(), Duration: time.Minute, Players: []store.MatchPlayer{
		{Fingerprint: fp("ann"), Place: 1}, {Name: "guest-1a2b", Slot: 1, Place: 2}}}
	saved := must[store.MatchRecord](t)(s.RecordMatch(bg, store.MatchEnd{Match: casual, Rate: never}))
	if saved.Players[0].Name != "ann" || saved.Players[1].Name != "guest-1a2b" || saved.Players[0].RatingAfter != store.InitialRating {
		t.Errorf("casual match saved as %+v", saved.Players)
	}
	aborted := duel("ann", "bob", c.now())
	aborted.Aborted = true
	must[store.MatchRecord](t)(s.RecordMatch(bg, store.MatchEnd{Match: aborted, Rate: never}))
	if r, found, err := s.Rating(bg, "pong-1v1", fp("ann")); err != nil || found || r.Rating != store.InitialRating {
		t.Errorf("after an aborted match ann's rating is %+v, found %v, %v; want none", r, found, err)
	}
	if ms := must[[]store.MatchRecord](t)(s.Matches(bg, fp("ann"), 10)); len(ms) != 2 || ms[0].ID <= ms[1].ID {
		t.Errorf("ann's history = %+v; want both matches, newest first", ms)
	}
	if _, err := s.Match(bg, 999); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Match(999) = %v; want ErrNotFound", err)
	}
}

// Match ends between the same two players from many goroutines at once
// each see the rating the one before wrote: none is lost.
func testConcurrentMatchEnds(t *testing.T, b Backend) {
	s, c := open(t, b)
	login(t, s, "ann")
	login(t, s, "bob")
	const n = 20
	var wg sync.WaitGroup
	ids := make([]uint64, n)
	for i := range n {
		wg.Go(func() {
			m, err := s.RecordMatch(bg, store.MatchEnd{Match: duel("ann", "bob", c.now()), Rate: shift(1, -1)})
			if err != nil {
				t.Errorf("RecordMatch %d: %v", i, err)
			}
			ids[i] = m.ID
		})
	}
	wg.Wait()
	if r, _, err := s.Rating(bg, "pong-1v1", fp("ann")); err != nil || r.Rating != store.InitialRating+n || r.Games != n || r.Wins != n {
		t.Errorf("ann after %d concurrent wins: %+v, %v", n, r, err)
	}
	if r, _, err := s.Rating(bg, "pong-1v1", fp("bob")); err != nil || r.Rating != store.InitialRating-n || r.Games != n || r.Losses != n {
		t.Errorf("bob after %d concurrent losses: %+v, %v", n, r, err)
	}
	slices.Sort(ids)
	if len(slices.Compact(slices.Clone(ids))) != n || ids[0] == 0 {
		t.Errorf("match ids %v: want %d distinct", ids, n)
	}
	if ms := must[[]store.MatchRecord](t)(s.Matches(bg, fp("ann"), 100)); len(ms) != n {
		t.Errorf("ann's history holds %d matches, want %d", len(ms), n)
	}
}

// Writers of every kind at once: logins, match ends, bans, mutes,
// audit entries and strikes all land.
func testConcurrentWriters(t *testing.T, b Backend) {
	s, c := open(t, b)
	login(t, s, "ann")
	login(t, s, "bob")
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			who := fmt.Sprintf("p%d", i)
			if _, _, err := s.Login(bg, fp(who), "ssh-ed25519", who); err != nil {
				t.Errorf("login %s: %v", who, err)
			}
		})
		wg.Go(func() {
			if _, err := s.RecordMatch(bg, store.MatchEnd{Match: duel("ann", "bob", c.now()), Rate: shift(1, -1)}); err != nil {
				t.Errorf("match %d: %v", i, err)
			}
		})
		wg.Go(func() {
			if _, err := s.AddBan(bg, store.Ban{Fingerprint: fp(fmt.Sprintf("x%d", i)), Actor: "root"}); err != nil {
				t.Errorf("ban %d: %v", i, err)
			}
		})
		wg.Go(func() {
			if err := s.SetMute(bg, store.Mute{Fingerprint: fp(fmt.Sprintf("m%d", i)), Actor: "root"}); err != nil {
				t.Errorf("mute %d: %v", i, err)
			}
		})
		wg.Go(func() {
			if err := s.PutLeaves(bg, fp(fmt.Sprintf("l%d", i)), store.Leaves{Strikes: i + 1, Last: c.now()}); err != nil {
				t.Errorf("leaves %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if got := must[int](t)(s.CountPlayers(bg)); got != n+2 {
		t.Errorf("CountPlayers = %d, want %d", got, n+2)
	}
	if r, _, _ := s.Rating(bg, "pong-1v1", fp("ann")); r.Games != n {
		t.Errorf("ann played %d, want %d", r.Games, n)
	}
	if bans := must[[]store.Ban](t)(s.Bans(bg, true)); len(bans) != n {
		t.Errorf("%d bans, want %d", len(bans), n)
	}
	if mutes := must[[]store.Mute](t)(s.Mutes(bg)); len(mutes) != n {
		t.Errorf("%d mutes, want %d", len(mutes), n)
	}
	if l := must[map[string]store.Leaves](t)(s.LoadLeaves(bg, nil)); len(l) != n {
		t.Errorf("%d leave records, want %d", len(l), n)
	}
	if log := must[[]store.AuditEntry](t)(s.AuditLog(bg, time.Time{}, 1000)); len(log) != 2*n {
		t.Errorf("%d audit entries, want %d (a ban's and a mute's each)", len(log), 2*n)
	}
}

// A match end with a key (a cluster's room id and seed) is stored and
// rated once however many times, and from however many handles, it is
// recorded at once: two nodes that both finished a resumed match. Every
// caller gets the record stored first; a different key is another match.
func testKeyedMatchEnd(t *testing.T, b Backend) {
	s, c := open(t, b)
	login(t, s, "ann")
	login(t, s, "bob")
	handles := []store.Store{s}
	if !b.Exclusive {
		handles = append(handles, b.Again(t, s))
	}
	const n = 6
	var wg sync.WaitGroup
	got := make([]store.MatchRecord, n)
	for i := range n {
		h := handles[i%len(handles)]
		wg.Go(func() {
			m, err := h.RecordMatch(bg, store.MatchEnd{Match: duel("ann", "bob", c.now()), Rate: shift(10, -10), Key: "r3@n1/42"})
			if err != nil {
				t.Errorf("RecordMatch %d: %v", i, err)
			}
			got[i] = m
		})
	}
	wg.Wait()
	for i, m := range got {
		if m.ID == 0 || m.ID != got[0].ID || !equalMatch(m, got[0]) {
			t.Fatalf("caller %d got %+v, caller 0 %+v: want the one stored record", i, m, got[0])
		}
	}
	if p := got[0].Players[0]; p.RatingBefore != store.InitialRating || p.RatingAfter != store.InitialRating+10 {
		t.Errorf("ann's change as stored: %v → %v, want one win's", p.RatingBefore, p.RatingAfter)
	}
	if r, _, err := s.Rating(bg, "pong-1v1", fp("ann")); err != nil || r.Rating != store.InitialRating+10 || r.Games != 1 {
		t.Errorf("ann after %d records of one match: %+v, %v; want it rated once", n, r, err)
	}
	if ms := must[[]store.MatchRecord](t)(s.Matches(bg, fp("bob"), 100)); len(ms) != 1 {
		t.Errorf("bob's history holds %d matches, want 1", len(ms))
	}
	other := must[store.MatchRecord](t)(s.RecordMatch(bg, store.MatchEnd{Match: duel("ann", "bob", c.now()), Rate: shift(10, -10), Key: "r3@n1/43"}))
	if other.ID == got[0].ID {
		t.Errorf("another key was taken for the same match (id %d)", other.ID)
	}
	if r, _, _ := s.Rating(bg, "pong-1v1", fp("ann")); r.Games != 2 {
		t.Errorf("ann played %d after a second keyed match, want 2", r.Games)
	}
}
