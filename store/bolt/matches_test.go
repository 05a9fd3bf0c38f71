package bolt

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

const (
	fpAlice = "SHA256:alice"
	fpBob   = "SHA256:bob"
	fpCarol = "SHA256:carol"
)

// openPlayers opens a fresh store with alice, bob and carol logged in.
func openPlayers(t *testing.T, opts Options) *Store {
	t.Helper()
	s := openTest(t, dbPath(t), opts)
	for _, fp := range []string{fpAlice, fpBob, fpCarol} {
		mustLogin(t, s, fp, strings.TrimPrefix(fp, "SHA256:"))
	}
	return s
}

// duel is a ranked 1v1 that a beats b 11–7.
func duel(a, b string) store.MatchRecord {
	return store.MatchRecord{
		Mode:     "pong-1v1",
		Ranked:   true,
		Room:     "r1",
		Start:    time.Date(2025, 3, 1, 13, 0, 0, 0, time.FixedZone("CET", 3600)),
		Duration: 3*time.Minute + 250*time.Millisecond,
		Players: []store.MatchPlayer{
			{Fingerprint: a, Slot: 0, Place: 1, Score: 11},
			{Fingerprint: b, Slot: 1, Place: 2, Score: 7},
		},
	}
}

// shift is a rate func that moves player i by deltas[i] and counts the
// game as a win, loss or draw by the sign of the move.
func shift(deltas ...float64) func([]store.Rating) ([]store.Rating, error) {
	return func(cur []store.Rating) ([]store.Rating, error) {
		for i := range cur {
			cur[i].Rating += deltas[i]
			cur[i].Games++
			switch {
			case deltas[i] > 0:
				cur[i].Wins++
			case deltas[i] < 0:
				cur[i].Losses++
			default:
				cur[i].Draws++
			}
		}
		return cur, nil
	}
}

func noRate(t *testing.T) func([]store.Rating) ([]store.Rating, error) {
	return func([]store.Rating) ([]store.Rating, error) {
		t.Error("rate called for a match that must not change ratings")
		return nil, errors.New("unexpected rate call")
	}
}

func mustRecord(t *testing.T, s *Store, m store.MatchRecord, rate func([]store.Rating) ([]store.Rating, error)) store.MatchRecord {
	t.Helper()
	saved, err := s.RecordMatch(ctx, store.MatchEnd{Match: m, Rate: rate})
	if err != nil {
		t.Fatalf("RecordMatch: %v", err)
	}
	return saved
}

func mustRating(t *testing.T, s *Store, mode, fp string) store.Rating {
	t.Helper()
	r, _, err := s.Rating(ctx, mode, fp)
	if err != nil {
		t.Fatalf("Rating(%s, %s): %v", mode, fp, err)
	}
	return r
}

// dump copies every key and value of the buckets RecordMatch writes, so a
// test can prove a failed call changed none of them.
func dump(t *testing.T, s *Store) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	err := s.DB().View(func(tx *bbolt.Tx) error {
		for _, name := range []string{bucketMatches, bucketPlayerMatches, bucketRatings, bucketPlayers} {
			m := map[string]string{}
			err := tx.Bucket([]byte(name)).ForEach(func(k, v []byte) error {
				m[string(k)] = string(v)
				return nil
			})
			if err != nil {
				return err
			}
			out[name] = m
		}
		return nil
	})
	if err != nil {
		t.Fatalf("dump: %v", err)
	}
	return out
}

func matchIDs(ms []store.MatchRecord) []uint64 {
	ids := make([]uint64, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids
}

func TestRecordMatchFailureWritesNothing(t *testing.T) {
	boom := errors.New("disk on fire")
	for _, stage := range []string{stageMatch, stageIndex, stageRatings, "rate"} {
		t.Run(stage, func(t *testing.T) {
			s := openPlayers(t, Options{})
			first := mustRecord(t, s, duel(fpAlice, fpBob), shift(16, -16))
			before := dump(t, s)
			alice, bob := mustRating(t, s, "pong-1v1", fpAlice), mustRating(t, s, "pong-1v1", fpBob)

			var seen []string
			s.failAfter = func(st string) error {
				seen = append(seen, st)
				if st == stage {
					return boom
				}
				return nil
			}
			rate := shift(10, -10)
			if stage == "rate" {
				rate = func([]store.Rating) ([]store.Rating, error) { return nil, boom }
			}
			_, err := s.RecordMatch(ctx, store.MatchEnd{Match: duel(fpAlice, fpBob), Rate: rate})
			if !errors.Is(err, boom) {
				t.Fatalf("RecordMatch err = %v, want it to wrap the injected failure", err)
			}
			if !strings.HasPrefix(err.Error(), "store: ") {
				t.Errorf("err = %q, want the store: prefix", err)
			}
			if stage == stageRatings && !slices.Equal(seen, []string{stageMatch, stageIndex, stageRatings}) {
				t.Errorf("stages reached = %v: the failure must come after every write", seen)
			}

			if after := dump(t, s); !reflect.DeepEqual(after, before) {
				t.Errorf("failed RecordMatch changed the file:\nbefore %q\nafter  %q", before, after)
			}
			if got := mustRating(t, s, "pong-1v1", fpAlice); got != alice {
				t.Errorf("alice after failure = %+v, want %+v", got, alice)
			}
			if got := mustRating(t, s, "pong-1v1", fpBob); got != bob {
				t.Errorf("bob after failure = %+v, want %+v", got, bob)
			}
			for _, fp := range []string{fpAlice, fpBob} {
				ms, err := s.Matches(ctx, fp, 0)
				if err != nil || !slices.Equal(matchIDs(ms), []uint64{first.ID}) {
					t.Errorf("Matches(%s) = %v, %v; want only match %d", fp, matchIDs(ms), err, first.ID)
				}
			}

			// The store stays usable and the next match goes through whole.
			s.failAfter = nil
			next := mustRecord(t, s, duel(fpAlice, fpBob), shift(10, -10))
			if next.Players[0].RatingBefore != alice.Rating || next.Players[0].RatingAfter != alice.Rating+10 {
				t.Errorf("next match alice %v → %v, want %v → %v",
					next.Players[0].RatingBefore, next.Players[0].RatingAfter, alice.Rating, alice.Rating+10)
			}
			if got, err := s.Match(ctx, next.ID); err != nil || !reflect.DeepEqual(got, next) {
				t.Errorf("Match(%d) = %+v, %v; want %+v", next.ID, got, err, next)
			}
		})
	}
}

func TestRecordMatchValidation(t *testing.T) {
	ranked := func(edit func(*store.MatchRecord)) store.MatchRecord {
		m := duel(fpAlice, fpBob)
		if edit != nil {
			edit(&m)
		}
		return m
	}
	editRate := func(edit func([]store.Rating) []store.Rating) func([]store.Rating) ([]store.Rating, error) {
		return func(cur []store.Rating) ([]store.Rating, error) {
			cur, _ = shift(5, -5)(cur)
			return edit(cur), nil
		}
	}
	manyGuests := make([]store.MatchPlayer, store.MaxMatchPlayers+1)
	for i := range manyGuests {
		manyGuests[i].Name = fmt.Sprintf("guest-%04d", i)
	}
	tests := []struct {
		name    string
		m       store.MatchRecord
		rate    func([]store.Rating) ([]store.Rating, error)
		wantErr string
	}{
		{"empty mode", ranked(func(m *store.MatchRecord) { m.Mode = "" }), shift(5, -5), "invalid mode"},
		{"mode with zero byte", ranked(func(m *store.MatchRecord) { m.Mode = "pong\x001v1" }), shift(5, -5), "invalid mode"},
		{"mode too long", ranked(func(m *store.MatchRecord) { m.Mode = strings.Repeat("m", store.MaxModeLen+1) }), shift(5, -5), "invalid mode"},
		{"no players", ranked(func(m *store.MatchRecord) { m.Players = nil }), shift(), "no players"},
		{"too many players", store.MatchRecord{Mode: "casual-ffa4", Players: manyGuests}, nil, "at most"},
		{"duplicate fingerprint", ranked(func(m *store.MatchRecord) { m.Players[1].Fingerprint = fpAlice }), shift(5, -5), "both " + fpAlice},
		{"bad fingerprint", ranked(func(m *store.MatchRecord) { m.Players[1].Fingerprint = "SHA256:a b" }), shift(5, -5), "invalid fingerprint"},
		{"id preset", ranked(func(m *store.MatchRecord) { m.ID = 7 }), shift(5, -5), "assigns ids"},
		{"guest in ranked", ranked(func(m *store.MatchRecord) { m.Players[1].Fingerprint = "" }), shift(5, -5), "guest"},
		{"ranked without rate", ranked(nil), nil, "needs a rate func"},
		{"rate result too short", ranked(nil), editRate(func(r []store.Rating) []store.Rating { return r[:1] }), "returned 1 ratings for 2 players"},
		{"rate result too long", ranked(nil), editRate(func(r []store.Rating) []store.Rating { return append(r, r[0]) }), "returned 3 ratings for 2 players"},
		{"rate result reordered", ranked(nil), editRate(func(r []store.Rating) []store.Rating { r[0], r[1] = r[1], r[0]; return r }), "want \"" + fpAlice + "\""},
		{"rate result other mode", ranked(nil), editRate(func(r []store.Rating) []store.Rating { r[1].Mode = "pong-ffa4"; return r }), "mode \"pong-ffa4\""},
		{"rate NaN", ranked(nil), editRate(func(r []store.Rating) []store.Rating { r[0].Rating = math.NaN(); return r }), "not a finite number"},
		{"rate +Inf", ranked(nil), editRate(func(r []store.Rating) []store.Rating { r[1].Rating = math.Inf(1); return r }), "not a finite number"},
		{"rate -Inf", ranked(nil), editRate(func(r []store.Rating) []store.Rating { r[1].Rating = math.Inf(-1); return r }), "not a finite number"},
		{"rate negative games", ranked(nil), editRate(func(r []store.Rating) []store.Rating { r[0].Games = -1; return r }), "negative count"},
	}
	s := openPlayers(t, Options{})
	empty := dump(t, s)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.RecordMatch(ctx, store.MatchEnd{Match: tt.m, Rate: tt.rate})
			if err == nil {
				t.Fatal("RecordMatch accepted it")
			}
			if !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "store: ") {
				t.Errorf("err = %q, want store: … %q", err, tt.wantErr)
			}
			if after := dump(t, s); !reflect.DeepEqual(after, empty) {
				t.Errorf("rejected match changed the file: %q", after)
			}
		})
	}
}

func TestAbortedRankedMatchKeepsRatings(t *testing.T) {
	clock := newClock()
	s := openPlayers(t, Options{Now: clock.Now})
	mustRecord(t, s, duel(fpAlice, fpBob), shift(16, -16))
	alice, bob := mustRating(t, s, "pong-1v1", fpAlice), mustRating(t, s, "pong-1v1", fpBob)
	clock.Advance(time.Hour)

	for _, rate := range []func([]store.Rating) ([]store.Rating, error){noRate(t), nil} {
		m := duel(fpAlice, fpBob)
		m.Aborted = true
		saved := mustRecord(t, s, m, rate)
		if !saved.Aborted || !saved.Ranked {
			t.Errorf("saved Aborted=%v Ranked=%v, want both", saved.Aborted, saved.Ranked)
		}
		for i, want := range []float64{alice.Rating, bob.Rating} {
			if p := saved.Players[i]; p.RatingBefore != want || p.RatingAfter != want {
				t.Errorf("player %d rating %v → %v, want %v unchanged", i, p.RatingBefore, p.RatingAfter, want)
			}
		}
		if got := mustRating(t, s, "pong-1v1", fpAlice); got != alice {
			t.Errorf("alice after aborted match = %+v, want %+v", got, alice)
		}
		if got := mustRating(t, s, "pong-1v1", fpBob); got != bob {
			t.Errorf("bob after aborted match = %+v, want %+v", got, bob)
		}
		ms, err := s.Matches(ctx, fpBob, 1)
		if err != nil || len(ms) != 1 || !reflect.DeepEqual(ms[0], saved) {
			t.Errorf("Matches(bob, 1) = %+v, %v; want the aborted match %+v", ms, err, saved)
		}
	}
}

func TestCasualMatchKeepsRatings(t *testing.T) {
	s := openPlayers(t, Options{})
	mustRecord(t, s, duel(fpAlice, fpBob), shift(16, -16))
	before, err := s.Ratings(ctx, fpAlice)
	if err != nil {
		t.Fatal(err)
	}

	casual := store.MatchRecord{
		Mode:  "casual-1v1",
		Room:  "r9",
		Start: time.Date(2025, 3, 2, 9, 0, 0, 0, time.UTC),
		Players: []store.MatchPlayer{
			{Fingerprint: fpAlice, Slot: 0, Place: 2, Score: 3},
			{Name: "guest-1a2b", Slot: 1, Place: 1, Score: 11}, // a guest: no fingerprint
		},
	}
	saved := mustRecord(t, s, casual, noRate(t))
	if saved.Ranked || saved.ID == 0 {
		t.Errorf("saved = %+v", saved)
	}
	if saved.Players[0].Name != "alice" {
		t.Errorf("empty Name not filled from players: %q", saved.Players[0].Name)
	}
	if saved.Players[1].Name != "guest-1a2b" || saved.Players[1].Fingerprint != "" {
		t.Errorf("guest stored as %+v", saved.Players[1])
	}
	for i, p := range saved.Players {
		if p.RatingBefore != store.InitialRating || p.RatingAfter != store.InitialRating {
			t.Errorf("player %d rating %v → %v, want %v unchanged", i, p.RatingBefore, p.RatingAfter, store.InitialRating)
		}
	}
	if casual.Players[0].Name != "" || casual.Players[0].RatingBefore != 0 {
		t.Errorf("RecordMatch wrote into the caller's slice: %+v", casual.Players[0])
	}

	after, err := s.Ratings(ctx, fpAlice)
	if err != nil || !reflect.DeepEqual(after, before) {
		t.Errorf("Ratings after casual = %+v, %v; want %+v", after, err, before)
	}
	if _, found, err := s.Rating(ctx, "casual-1v1", fpAlice); found || err != nil {
		t.Errorf("casual match created a rating: found=%v err=%v", found, err)
	}
	if got, err := s.Match(ctx, saved.ID); err != nil || !reflect.DeepEqual(got, saved) {
		t.Errorf("Match = %+v, %v; want %+v", got, err, saved)
	}
	if ms, _ := s.Matches(ctx, fpAlice, 0); len(ms) != 2 || ms[0].ID != saved.ID {
		t.Errorf("Matches(alice) = %v, want the casual match first of 2", matchIDs(ms))
	}
	if n := len(dump(t, s)[bucketPlayerMatches]); n != 3 {
		t.Errorf("player_matches holds %d entries, want 3 (the guest gets none)", n)
	}
}

func TestRatingsAccumulateAndSurviveReopen(t *testing.T) {
	clock := newClock()
	path := dbPath(t)
	s, err := Open(path, Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	for _, fp := range []string{fpAlice, fpBob, fpCarol} {
		mustLogin(t, s, fp, strings.TrimPrefix(fp, "SHA256:"))
	}

	// A free-for-all first, so Ratings has two modes to sort.
	ffa := store.MatchRecord{Mode: "pong-ffa4", Ranked: true, Players: []store.MatchPlayer{
		{Fingerprint: fpCarol, Place: 1}, {Fingerprint: fpAlice, Place: 2}, {Fingerprint: fpBob, Place: 3},
	}}
	mustRecord(t, s, ffa, func(cur []store.Rating) ([]store.Rating, error) {
		cur, _ = shift(20, 0, -20)(cur)
		cur[0].Deviation, cur[0].Volatility = 321.5, 0.0625 // must survive the round trip
		return cur, nil
	})

	steps := []struct {
		winner, loser string
		delta         float64
	}{
		{fpAlice, fpBob, 20},
		{fpBob, fpAlice, 18.5},
		{fpAlice, fpBob, 19.25},
	}
	var lastMatch time.Time
	prev := map[string]float64{fpAlice: store.InitialRating, fpBob: store.InitialRating}
	for _, st := range steps {
		clock.Advance(10 * time.Minute)
		saved := mustRecord(t, s, duel(st.winner, st.loser), shift(st.delta, -st.delta))
		for _, p := range saved.Players {
			if p.RatingBefore != prev[p.Fingerprint] {
				t.Errorf("match %d %s before = %v, want %v", saved.ID, p.Fingerprint, p.RatingBefore, prev[p.Fingerprint])
			}
			prev[p.Fingerprint] = p.RatingAfter
		}
		lastMatch = clock.Now()
	}

	wantAlice := store.Rating{Mode: "pong-1v1", Fingerprint: fpAlice, Name: "alice", Rating: 1500 + 20 - 18.5 + 19.25,
		Deviation: store.InitialDeviation, Volatility: store.InitialVolatility, Games: 3, Wins: 2, Losses: 1, Updated: lastMatch}
	wantBob := store.Rating{Mode: "pong-1v1", Fingerprint: fpBob, Name: "bob", Rating: 1500 - 20 + 18.5 - 19.25,
		Deviation: store.InitialDeviation, Volatility: store.InitialVolatility, Games: 3, Wins: 1, Losses: 2, Updated: lastMatch}
	wantAliceFFA := store.Rating{Mode: "pong-ffa4", Fingerprint: fpAlice, Name: "alice", Rating: 1500,
		Deviation: store.InitialDeviation, Volatility: store.InitialVolatility, Games: 1, Draws: 1, Updated: newClock().Now()}

	check := func(when string) {
		t.Helper()
		for _, want := range []store.Rating{wantAlice, wantBob} {
			got, found, err := s.Rating(ctx, want.Mode, want.Fingerprint)
			if err != nil || !found || got != want {
				t.Errorf("%s: Rating(%s) = %+v, %v, %v; want %+v", when, want.Fingerprint, got, found, err, want)
			}
		}
		all, err := s.Ratings(ctx, fpAlice)
		if err != nil || !reflect.DeepEqual(all, []store.Rating{wantAlice, wantAliceFFA}) {
			t.Errorf("%s: Ratings(alice) = %+v, %v; want %+v", when, all, err, []store.Rating{wantAlice, wantAliceFFA})
		}
		carol, _, err := s.Rating(ctx, "pong-ffa4", fpCarol)
		if err != nil || carol.Deviation != 321.5 || carol.Volatility != 0.0625 || carol.Rating != 1520 {
			t.Errorf("%s: carol ffa4 = %+v, %v", when, carol, err)
		}
	}
	check("before reopen")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openTest(t, path, Options{Now: clock.Now})
	check("after reopen")
	if ms, err := s.Matches(ctx, fpAlice, 0); err != nil || len(ms) != 4 {
		t.Errorf("after reopen Matches(alice) = %d, %v; want 4", len(ms), err)
	}
}

func TestRatingWithoutGames(t *testing.T) {
	s := openPlayers(t, Options{})
	r, found, err := s.Rating(ctx, "pong-2v2", fpCarol)
	want := store.Rating{Mode: "pong-2v2", Fingerprint: fpCarol, Name: "carol", Rating: store.InitialRating,
		Deviation: store.InitialDeviation, Volatility: store.InitialVolatility}
	if err != nil || found || r != want {
		t.Errorf("Rating = %+v, %v, %v; want %+v, false, nil", r, found, err, want)
	}
	if r, found, err := s.Rating(ctx, "pong-1v1", "SHA256:stranger"); err != nil || found || r.Rating != store.InitialRating || r.Name != "" {
		t.Errorf("unknown player: %+v, %v, %v", r, found, err)
	}
	if all, err := s.Ratings(ctx, fpCarol); err != nil || len(all) != 0 {
		t.Errorf("Ratings of an unrated player = %+v, %v", all, err)
	}
	for _, bad := range [][2]string{{"", fpCarol}, {"pong 1v1", fpCarol}, {"pong-1v1", ""}, {"pong-1v1", "a\x00b"}} {
		if _, _, err := s.Rating(ctx, bad[0], bad[1]); err == nil {
			t.Errorf("Rating(%q, %q) accepted", bad[0], bad[1])
		}
	}
	if _, err := s.Ratings(ctx, "a\x00b"); err == nil {
		t.Error("Ratings accepted a zero byte")
	}
}

func TestConcurrentRecordMatchLosesNoUpdate(t *testing.T) {
	s := openPlayers(t, Options{})
	const n = 20
	saved := make([]store.MatchRecord, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			m, err := s.RecordMatch(ctx, store.MatchEnd{Match: duel(fpAlice, fpBob), Rate: shift(1, -1)})
			if err != nil {
				t.Errorf("RecordMatch %d: %v", i, err)
				return
			}
			saved[i] = m
		})
	}
	wg.Wait()

	for fp, want := range map[string]float64{fpAlice: store.InitialRating + n, fpBob: store.InitialRating - n} {
		r := mustRating(t, s, "pong-1v1", fp)
		if r.Games != n || r.Rating != want {
			t.Errorf("%s: Games %d, Rating %v; want %d, %v", fp, r.Games, r.Rating, n, want)
		}
	}
	// Serialised writes: each match saw exactly the one before it.
	var ids []uint64
	var befores []float64
	for _, m := range saved {
		ids = append(ids, m.ID)
		befores = append(befores, m.Players[0].RatingBefore)
	}
	slices.Sort(ids)
	slices.Sort(befores)
	for i := range n {
		if ids[i] != uint64(i+1) || befores[i] != store.InitialRating+float64(i) {
			t.Fatalf("ids %v, alice's befores %v: want 1..%d and %v..%v", ids, befores, n, store.InitialRating, store.InitialRating+n-1)
		}
	}
	if ms, err := s.Matches(ctx, fpBob, 100); err != nil || len(ms) != n {
		t.Errorf("Matches(bob) = %d, %v; want %d", len(ms), err, n)
	}
}

func TestMatchesNewestFirst(t *testing.T) {
	s := openPlayers(t, Options{})
	const fpAl = "SHA256:al" // a prefix of alice's fingerprint
	mustLogin(t, s, fpAl, "al")

	var aliceIDs, bobIDs, carolIDs []uint64
	for i := range 6 {
		opp := fpBob
		if i%2 == 1 {
			opp = fpCarol
		}
		m := mustRecord(t, s, duel(fpAlice, opp), shift(1, -1))
		aliceIDs = append(aliceIDs, m.ID)
		if opp == fpBob {
			bobIDs = append(bobIDs, m.ID)
		} else {
			carolIDs = append(carolIDs, m.ID)
		}
	}
	alOnly := mustRecord(t, s, duel(fpAl, fpCarol), shift(1, -1))
	carolIDs = append(carolIDs, alOnly.ID)
	for _, ids := range [][]uint64{aliceIDs, bobIDs, carolIDs} {
		slices.Reverse(ids)
	}

	tests := []struct {
		fp    string
		limit int
		want  []uint64
	}{
		{fpAlice, 0, aliceIDs},
		{fpAlice, 2, aliceIDs[:2]},
		{fpAlice, 100, aliceIDs},
		{fpBob, 0, bobIDs},
		{fpCarol, 0, carolIDs},
		{fpCarol, 1, []uint64{alOnly.ID}},
		{fpAl, 0, []uint64{alOnly.ID}},
		{"SHA256:nobody", 0, nil},
	}
	for _, tt := range tests {
		ms, err := s.Matches(ctx, tt.fp, tt.limit)
		if err != nil || !slices.Equal(matchIDs(ms), tt.want) {
			t.Errorf("Matches(%s, %d) = %v, %v; want %v", tt.fp, tt.limit, matchIDs(ms), err, tt.want)
		}
		for _, m := range ms {
			if !slices.ContainsFunc(m.Players, func(p store.MatchPlayer) bool { return p.Fingerprint == tt.fp }) {
				t.Errorf("Matches(%s) returned match %d without them", tt.fp, m.ID)
			}
		}
	}
	if _, err := s.Matches(ctx, "SHA256:al\x00", 0); err == nil {
		t.Error("Matches accepted a fingerprint with a zero byte")
	}
}

func TestMatchesDefaultLimit(t *testing.T) {
	s := openPlayers(t, Options{})
	for range store.DefaultListLimit + 3 {
		mustRecord(t, s, duel(fpAlice, fpBob), shift(1, -1))
	}
	ms, err := s.Matches(ctx, fpAlice, 0)
	if err != nil || len(ms) != store.DefaultListLimit || ms[0].ID != store.DefaultListLimit+3 {
		t.Errorf("Matches(alice, 0) = %v, %v; want the newest %d", matchIDs(ms), err, store.DefaultListLimit)
	}
}

func TestMatchKeysSortByID(t *testing.T) {
	ids := []uint64{0, 1, 255, 256, 65535, 65536, 1 << 40, math.MaxUint64}
	for i := 1; i < len(ids); i++ {
		if bytes.Compare(matchKey(ids[i-1]), matchKey(ids[i])) >= 0 {
			t.Errorf("matchKey(%d) does not sort before matchKey(%d)", ids[i-1], ids[i])
		}
		if bytes.Compare(playerMatchKey(fpAlice, ids[i-1]), playerMatchKey(fpAlice, ids[i])) >= 0 {
			t.Errorf("playerMatchKey(%d) does not sort before playerMatchKey(%d)", ids[i-1], ids[i])
		}
	}
}

func TestMatchByID(t *testing.T) {
	s := openPlayers(t, Options{})
	m := duel(fpAlice, fpBob)
	m.Forfeit = true
	m.Players[1].Left = true
	m.Players[0].Name = "alice-then" // the name at match time is kept as given
	m.Start = time.Now()             // local zone and a monotonic reading
	saved := mustRecord(t, s, m, shift(12.5, -12.5))

	if saved.ID != 1 {
		t.Errorf("first match ID = %d, want 1", saved.ID)
	}
	if !saved.Start.Equal(m.Start) || saved.Start.Location() != time.UTC {
		t.Errorf("Start = %v, want %v in UTC", saved.Start, m.Start)
	}
	if saved.Players[0].Name != "alice-then" || saved.Players[1].Name != "bob" {
		t.Errorf("names = %q, %q", saved.Players[0].Name, saved.Players[1].Name)
	}
	want := store.MatchPlayer{Fingerprint: fpBob, Name: "bob", Slot: 1, Place: 2, Score: 7,
		RatingBefore: 1500, RatingAfter: 1487.5, Left: true, GamesAfter: 1,
		DeviationBefore: store.InitialDeviation, DeviationAfter: store.InitialDeviation} // kept for the provisional mark
	if saved.Players[1] != want {
		t.Errorf("bob = %+v, want %+v", saved.Players[1], want)
	}

	got, err := s.Match(ctx, saved.ID)
	if err != nil || !reflect.DeepEqual(got, saved) {
		t.Errorf("Match(%d) = %+v, %v; want %+v", saved.ID, got, err, saved)
	}
	for _, id := range []uint64{0, 2, math.MaxUint64} {
		if _, err := s.Match(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Match(%d) err = %v, want ErrNotFound", id, err)
		}
	}
}

// RecentMatches is the whole server's history, newest first, filtered and
// bounded.
func TestRecentMatchesNewestFirst(t *testing.T) {
	s := openPlayers(t, Options{})
	var ids []uint64
	for i := range 5 {
		opp := fpBob
		if i%2 == 1 {
			opp = fpCarol
		}
		ids = append(ids, mustRecord(t, s, duel(fpAlice, opp), shift(1, -1)).ID)
	}
	slices.Reverse(ids)
	odd := func(m store.MatchRecord) bool { return m.ID%2 == 1 }
	var oddIDs []uint64
	for _, id := range ids {
		if id%2 == 1 {
			oddIDs = append(oddIDs, id)
		}
	}
	for _, tt := range []struct {
		limit int
		keep  func(store.MatchRecord) bool
		want  []uint64
	}{
		{0, nil, ids},
		{2, nil, ids[:2]},
		{0, odd, oddIDs},
		{1, odd, oddIDs[:1]},
	} {
		ms, err := s.RecentMatches(ctx, tt.limit, tt.keep)
		if err != nil || !slices.Equal(matchIDs(ms), tt.want) {
			t.Errorf("RecentMatches(%d) = %v, %v; want %v", tt.limit, matchIDs(ms), err, tt.want)
		}
	}
	empty := openTest(t, dbPath(t), Options{})
	if ms, err := empty.RecentMatches(ctx, 0, nil); err != nil || len(ms) != 0 {
		t.Errorf("a fresh store: %v, %v", ms, err)
	}
}
