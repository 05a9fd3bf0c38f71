package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/termarena/termarena/store"
)

// rated gives each named player the rating r (and games played) in
// pong-1v1, through match ends against a fresh opponent each time so
// nobody else's rating moves in the listed set.
func rated(t *testing.T, s store.Store, c *clock, ratings map[string]struct {
	r     float64
	games int
}) {
	t.Helper()
	for name, want := range ratings {
		login(t, s, name)
		for g := range want.games {
			opp := fmt.Sprintf("%s-o%d", name, g)
			if _, _, err := s.Login(bg, fp(opp), "ssh-ed25519", opp); err != nil {
				t.Fatal(err)
			}
			rate := func(cur []store.Rating) ([]store.Rating, error) {
				cur[0].Rating, cur[0].Games = want.r, cur[0].Games+1
				cur[0].Deviation = 60
				cur[1].Games++
				return cur, nil
			}
			m := duel(name, opp, c.now())
			if _, err := s.RecordMatch(bg, store.MatchEnd{Match: m, Rate: rate}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// The leaderboard: rating first (unrounded), then more games, then name;
// pages cut it anywhere and together make the whole.
func testLeaderboard(t *testing.T, b Backend) {
	s, c := open(t, b)
	rated(t, s, c, map[string]struct {
		r     float64
		games int
	}{
		"amy": {1600, 1}, "ben": {1600, 3}, "cal": {1600, 1}, "dot": {1600.25, 1}, "eve": {1400, 2},
	})
	var names []string
	for _, r := range must[[]store.Rating](t)(s.Standings(bg, "pong-1v1")) {
		if r.Name[len(r.Name)-3:len(r.Name)-1] == "-o" {
			continue // the opponents, all at 1500 bar what their losses did not move
		}
		names = append(names, r.Name)
	}
	if want := []string{"dot", "ben", "amy", "cal", "eve"}; !slices.Equal(names, want) {
		t.Errorf("standings %v, want %v", names, want)
	}
	all := must[[]store.Rating](t)(s.Standings(bg, "pong-1v1"))
	for _, size := range []int{1, 2, 3, 7} {
		var paged []store.Rating
		for off := 0; off < len(all)+size; off += size {
			page := must[[]store.Rating](t)(s.Leaderboard(bg, "pong-1v1", off, size))
			if len(page) > size {
				t.Fatalf("page of %d holds %d", size, len(page))
			}
			paged = append(paged, page...)
		}
		if len(paged) != len(all) {
			t.Fatalf("pages of %d hold %d ratings, standings %d", size, len(paged), len(all))
		}
		for i := range all {
			if paged[i].Fingerprint != all[i].Fingerprint || paged[i].Rating != all[i].Rating || paged[i].Name != all[i].Name {
				t.Errorf("pages of %d, row %d = %+v; standings %+v", size, i, paged[i], all[i])
			}
		}
	}
	if top := must[[]store.Rating](t)(s.Leaderboard(bg, "pong-1v1", 0, 0)); len(top) != min(20, len(all)) {
		t.Errorf("Leaderboard(limit 0) = %d rows, want the default 20", len(top))
	}
	if none := must[[]store.Rating](t)(s.Leaderboard(bg, "pong-2v2", 0, 10)); len(none) != 0 {
		t.Errorf("a mode nobody played lists %+v", none)
	}
	if neg := must[[]store.Rating](t)(s.Leaderboard(bg, "pong-1v1", -1, 1)); len(neg) != 1 || neg[0].Fingerprint != all[0].Fingerprint {
		t.Errorf("Leaderboard(offset -1) = %+v; want the first page", neg)
	}
	// A rename shows on the board at once: names are the players'.
	must[store.Player](t)(s.Rename(bg, fp("dot"), "dora", 0))
	if top := must[[]store.Rating](t)(s.Leaderboard(bg, "pong-1v1", 0, 1)); top[0].Name != "dora" {
		t.Errorf("after a rename the top row is %q", top[0].Name)
	}
}

// A player's rank is their place in the standings, and their rating in
// every mode reads back by key.
func testRanks(t *testing.T, b Backend) {
	s, c := open(t, b)
	rated(t, s, c, map[string]struct {
		r     float64
		games int
	}{"amy": {1700, 1}, "ben": {1650, 1}, "cal": {1200, 1}})
	rank := func(name string) int {
		for i, r := range must[[]store.Rating](t)(s.Standings(bg, "pong-1v1")) {
			if r.Fingerprint == fp(name) {
				return i + 1
			}
		}
		return 0
	}
	if a, b, c := rank("amy"), rank("ben"), rank("cal"); a != 1 || b != 2 || c <= b {
		t.Errorf("ranks amy %d, ben %d, cal %d", a, b, c)
	}
	if got := rank("nobody"); got != 0 {
		t.Errorf("an unrated player ranks %d", got)
	}
	r, found, err := s.Rating(bg, "pong-1v1", fp("ben"))
	if err != nil || !found || r.Rating != 1650 || r.Games != 1 || r.Name != "ben" || r.Mode != "pong-1v1" {
		t.Errorf("Rating(ben) = %+v, %v, %v", r, found, err)
	}
	none, found, err := s.Rating(bg, "pong-ffa4", fp("ben"))
	if err != nil || found || none.Rating != store.InitialRating || none.Deviation != store.InitialDeviation || none.Games != 0 {
		t.Errorf("Rating in an unplayed mode = %+v, %v, %v; want NewRating's", none, found, err)
	}
	// A second mode, then the profile that lists both.
	must[store.MatchRecord](t)(s.RecordMatch(bg, store.MatchEnd{Match: store.MatchRecord{Mode: "pong-2v2", Ranked: true,
		Start: c.now(), Duration: time.Minute, Players: []store.MatchPlayer{
			{Fingerprint: fp("ben"), Place: 1}, {Fingerprint: fp("amy"), Slot: 1, Place: 1},
			{Fingerprint: fp("cal"), Slot: 2, Team: 1, Place: 2}, {Fingerprint: fp("amy-o0"), Slot: 3, Team: 1, Place: 2}}},
		Rate: set(1510, 1510, 1490, 1490)}))
	modes := []string{}
	for _, r := range must[[]store.Rating](t)(s.Ratings(bg, fp("ben"))) {
		modes = append(modes, r.Mode)
	}
	if !slices.Equal(modes, []string{"pong-1v1", "pong-2v2"}) {
		t.Errorf("ben's modes %v", modes)
	}
	pr := must[store.Profile](t)(s.ProfileByName(bg, "Ben"))
	if pr.Player.Fingerprint != fp("ben") || len(pr.Ratings) != 2 || len(pr.Matches) != 2 || pr.Matches[0].Mode != "pong-2v2" {
		t.Errorf("ben's profile = %+v", pr)
	}
	if _, err := s.ProfileByName(bg, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ProfileByName(unknown) = %v; want ErrNotFound", err)
	}
}

// Replays: stored with a match or after it, read back whole, and pruned
// by age and by each player's newest few, their matches' flags cleared.
func testReplays(t *testing.T, b Backend) {
	s, c := open(t, b)
	login(t, s, "ann")
	login(t, s, "bob")
	login(t, s, "cat")
	var ids []uint64
	// Six matches a day apart, oldest first: ann plays all, bob the
	// first three, cat the last three.
	for i := range 6 {
		other := "bob"
		if i >= 3 {
			other = "cat"
		}
		m := duel("ann", other, c.now())
		m.Ranked, m.Mode = false, "casual-1v1"
		saved := must[store.MatchRecord](t)(s.RecordMatch(bg, store.MatchEnd{Match: m, Replay: []byte(fmt.Sprint("replay ", i))}))
		ids = append(ids, saved.ID)
		c.add(24 * time.Hour)
	}
	for i, id := range ids {
		if got := must[[]byte](t)(s.Replay(bg, id)); string(got) != fmt.Sprint("replay ", i) {
			t.Errorf("Replay(%d) = %q", id, got)
		}
	}
	// PutReplay replaces a replay and sets the flag of a match that had
	// none; an unknown match is refused.
	plain := must[store.MatchRecord](t)(s.RecordMatch(bg, store.MatchEnd{Match: store.MatchRecord{Mode: "casual-1v1", Start: c.now(),
		Players: []store.MatchPlayer{{Fingerprint: fp("cat"), Place: 1}}}}))
	if plain.Replay {
		t.Error("a match saved without a replay claims one")
	}
	if _, err := s.Replay(bg, plain.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Replay of a match without one = %v; want ErrNotFound", err)
	}
	must[struct{}](t)(struct{}{}, s.PutReplay(bg, plain.ID, []byte("late")))
	if m := must[store.MatchRecord](t)(s.Match(bg, plain.ID)); !m.Replay {
		t.Error("PutReplay did not set the match's flag")
	}
	if err := s.PutReplay(bg, 9999, []byte("x")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PutReplay(unknown match) = %v; want ErrNotFound", err)
	}
	// Keep each player's newest two and anything from the last 2.5
	// days: bob's newest two are 2 and 1, ann's 5 and 4, cat's the late
	// one and 5, and the days keep nothing older than 3; so 3 and 0 go.
	n, err := s.PruneReplays(bg, 2, 60*time.Hour, c.now())
	if err != nil || n != 2 {
		t.Fatalf("PruneReplays = %d, %v; want 2", n, err)
	}
	for i, id := range ids {
		gone := i == 0 || i == 3
		_, err := s.Replay(bg, id)
		m := must[store.MatchRecord](t)(s.Match(bg, id))
		if gone && (!errors.Is(err, store.ErrNotFound) || m.Replay) {
			t.Errorf("match %d: replay %v, flag %v; want pruned", i, err, m.Replay)
		}
		if !gone && (err != nil || !m.Replay) {
			t.Errorf("match %d: replay %v, flag %v; want kept", i, err, m.Replay)
		}
	}
	if n, err := s.PruneReplays(bg, 2, 60*time.Hour, c.now()); err != nil || n != 0 {
		t.Errorf("pruning again = %d, %v; want nothing", n, err)
	}
	if _, err := s.PruneReplays(bg, -1, 0, c.now()); err == nil {
		t.Error("a negative keep was accepted")
	}
	withReplays := must[[]store.MatchRecord](t)(s.RecentMatches(bg, 100, func(m store.MatchRecord) bool { return m.Replay }))
	if len(withReplays) != 5 || withReplays[0].ID != plain.ID {
		t.Errorf("RecentMatches(with replays) = %d, newest %d; want 5, newest %d", len(withReplays), withReplays[0].ID, plain.ID)
	}
}

// Leave strikes outlive the handle: written alone or with a match end,
// they are there after a reopen, and LoadLeaves drops the stale ones.
func testLeaves(t *testing.T, b Backend) {
	s, c := open(t, b)
	login(t, s, "ann")
	login(t, s, "bob")
	fresh := store.Leaves{Strikes: 2, Last: c.now(), Until: c.now().Add(30 * time.Minute)}
	old := store.Leaves{Strikes: 1, Last: c.now().Add(-48 * time.Hour), Until: c.now().Add(-47 * time.Hour)}
	must[struct{}](t)(struct{}{}, s.PutLeaves(bg, fp("cat"), fresh))
	must[struct{}](t)(struct{}{}, s.PutLeaves(bg, fp("dan"), old))
	m := duel("ann", "bob", c.now())
	m.Players[1].Left = true
	must[store.MatchRecord](t)(s.RecordMatch(bg, store.MatchEnd{Match: m, Rate: shift(3, -3),
		Leaves: map[string]store.Leaves{fp("bob"): {Strikes: 1, Last: c.now(), Until: c.now().Add(5 * time.Minute)}}}))

	s = again(t, b, s)
	stale := func(l store.Leaves) bool { return c.now().Sub(l.Last) > 24*time.Hour }
	got := must[map[string]store.Leaves](t)(s.LoadLeaves(bg, stale))
	if len(got) != 2 || got[fp("cat")].Strikes != 2 || !got[fp("cat")].Until.Equal(fresh.Until) || got[fp("bob")].Strikes != 1 {
		t.Errorf("after a reopen LoadLeaves = %+v; want cat's and bob's", got)
	}
	if got := must[map[string]store.Leaves](t)(s.LoadLeaves(bg, nil)); len(got) != 2 {
		t.Errorf("the stale record is still stored: %+v", got)
	}
	if r, _, _ := s.Rating(bg, "pong-1v1", fp("bob")); r.Games != 1 {
		t.Errorf("bob's rating after a reopen: %+v", r)
	}
	if err := s.PutLeaves(bg, "", fresh); err == nil {
		t.Error("a leave record without a key was stored")
	}
}
