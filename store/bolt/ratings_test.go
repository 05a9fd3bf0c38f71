package bolt

import (
	"fmt"
	"reflect"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

// seedRatings gives each player exactly the rating and game count in want
// by recording ranked matches of up to store.MaxMatchPlayers seats.
func seedRatings(t *testing.T, s *Store, mode string, want []store.Rating) {
	t.Helper()
	for start := 0; start < len(want); start += store.MaxMatchPlayers {
		chunk := want[start:min(start+store.MaxMatchPlayers, len(want))]
		m := store.MatchRecord{Mode: mode, Ranked: true}
		for i, r := range chunk {
			m.Players = append(m.Players, store.MatchPlayer{Fingerprint: r.Fingerprint, Slot: i, Place: 1})
		}
		mustRecord(t, s, m, func(cur []store.Rating) ([]store.Rating, error) {
			for i := range cur {
				cur[i].Rating, cur[i].Games = chunk[i].Rating, chunk[i].Games
				if chunk[i].Deviation > 0 {
					cur[i].Deviation = chunk[i].Deviation
				}
			}
			return cur, nil
		})
	}
}

type standing struct {
	name   string
	rating float64
	games  int
}

func standings(rs []store.Rating) []standing {
	out := make([]standing, len(rs))
	for i, r := range rs {
		out[i] = standing{r.Name, r.Rating, r.Games}
	}
	return out
}

func TestLeaderboardOrder(t *testing.T) {
	s := openTest(t, dbPath(t), Options{})
	seed := []store.Rating{
		{Fingerprint: "SHA256:erin", Rating: 1400, Games: 1},
		{Fingerprint: "SHA256:dave", Rating: 1550, Games: 10},
		{Fingerprint: "SHA256:carol", Rating: 1550, Games: 3},
		{Fingerprint: "SHA256:bob", Rating: 1550, Games: 10},
		{Fingerprint: "SHA256:alice", Rating: 1600, Games: 5},
		{Fingerprint: "SHA256:frank", Rating: 1550.25, Games: 1}, // a fraction above the tie
		{Fingerprint: "SHA256:ghost", Rating: 1700, Games: 50},   // no player record: skipped
	}
	for _, r := range seed {
		if r.Fingerprint != "SHA256:ghost" {
			mustLogin(t, s, r.Fingerprint, r.Fingerprint[len("SHA256:"):])
		}
	}
	seedRatings(t, s, "pong-1v1", seed)
	// Another mode must not leak in.
	seedRatings(t, s, "pong-ffa4", []store.Rating{{Fingerprint: "SHA256:erin", Rating: 2000, Games: 9}})

	// Rating desc (unrounded), then more games, then name.
	want := []standing{
		{"alice", 1600, 5},
		{"frank", 1550.25, 1},
		{"bob", 1550, 10},
		{"dave", 1550, 10},
		{"carol", 1550, 3},
		{"erin", 1400, 1},
	}
	for _, limit := range []int{0, -1, 6, 100, store.MaxListLimit + 1} {
		got, err := s.Leaderboard(ctx, "pong-1v1", 0, limit)
		if err != nil || !reflect.DeepEqual(standings(got), want) {
			t.Errorf("Leaderboard(limit %d) = %+v, %v;\nwant %+v", limit, standings(got), err, want)
		}
	}
	got, err := s.Leaderboard(ctx, "pong-1v1", 0, 3)
	if err != nil || !reflect.DeepEqual(standings(got), want[:3]) {
		t.Errorf("Leaderboard(limit 3) = %+v, %v; want %+v", standings(got), err, want[:3])
	}
	if len(got) > 0 && (got[0].Mode != "pong-1v1" || got[0].Fingerprint != "SHA256:alice") {
		t.Errorf("first entry = %+v", got[0])
	}

	// Names are read at query time, so a rename re-sorts the tie.
	if _, err := s.Rename(ctx, "SHA256:dave", "aaron", 0); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Leaderboard(ctx, "pong-1v1", 0, 4)
	if names := []string{got[2].Name, got[3].Name}; !reflect.DeepEqual(names, []string{"aaron", "bob"}) {
		t.Errorf("after rename the 10-game tie reads %v, want [aaron bob]", names)
	}

	if got, err := s.Leaderboard(ctx, "pong-2v2", 0, 0); err != nil || len(got) != 0 {
		t.Errorf("Leaderboard of an unplayed mode = %+v, %v", got, err)
	}
	if _, err := s.Leaderboard(ctx, "", 0, 0); err == nil {
		t.Error("Leaderboard accepted an empty mode")
	}
}

func TestLeaderboardDefaultLimit(t *testing.T) {
	s := openTest(t, dbPath(t), Options{})
	var seed []store.Rating
	for i := range store.DefaultListLimit + 5 {
		fp := fmt.Sprintf("SHA256:p%02d", i)
		mustLogin(t, s, fp, fmt.Sprintf("p%02d", i))
		seed = append(seed, store.Rating{Fingerprint: fp, Rating: 1000 + float64(i), Games: 1})
	}
	seedRatings(t, s, "pong-ffa4", seed)
	got, err := s.Leaderboard(ctx, "pong-ffa4", 0, 0)
	if err != nil || len(got) != store.DefaultListLimit {
		t.Fatalf("Leaderboard(0) = %d entries, %v; want %d", len(got), err, store.DefaultListLimit)
	}
	if got[0].Name != fmt.Sprintf("p%02d", store.DefaultListLimit+4) || got[len(got)-1].Name != "p05" {
		t.Errorf("Leaderboard(0) runs %s … %s", got[0].Name, got[len(got)-1].Name)
	}
}

func TestClampLimit(t *testing.T) {
	for in, want := range map[int]int{-5: 20, 0: 20, 1: 1, 7: 7, 1000: 1000, 1001: 1000, 1 << 40: 1000} {
		if got := store.ClampLimit(in); got != want {
			t.Errorf("store.ClampLimit(%d) = %d, want %d", in, got, want)
		}
	}
}

func TestMigration2OnSchema1File(t *testing.T) {
	path := dbPath(t)
	s := openWithTest(t, path, migrations()[:1])
	alice := mustLogin(t, s, fpAlice, "alice")
	if v, err := s.SchemaVersion(ctx); err != nil || v != 1 {
		t.Fatalf("schema-1 file has version %d, %v", v, err)
	}
	err := s.DB().View(func(tx *bbolt.Tx) error {
		if tx.Bucket([]byte(bucketRatings)) != nil {
			t.Error("step 1 alone created the ratings bucket")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// Only steps 1 and 2: this test is about migration 2, and later steps
	// have their own upgrade tests.
	s = openWithTest(t, path, migrations()[:2])
	t.Cleanup(func() { _ = s.Close() })
	if v, err := s.SchemaVersion(ctx); err != nil || v != 2 {
		t.Errorf("SchemaVersion after upgrade = %d, %v; want 2", v, err)
	}
	err = s.DB().View(func(tx *bbolt.Tx) error {
		for _, b := range []string{bucketRatings, bucketMatches, bucketPlayerMatches} {
			if tx.Bucket([]byte(b)) == nil {
				t.Errorf("bucket %s missing after migration 2", b)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.PlayerByFingerprint(ctx, fpAlice); err != nil || got != alice {
		t.Errorf("alice after migration = %+v, %v; want %+v", got, err, alice)
	}
	if got, err := s.PlayerByName(ctx, "alice"); err != nil || got != alice {
		t.Errorf("name index after migration = %+v, %v", got, err)
	}
	checkIndex(t, s)

	mustLogin(t, s, fpBob, "bob")
	mustRecord(t, s, duel(fpAlice, fpBob), shift(16, -16))
	if r := mustRating(t, s, "pong-1v1", fpAlice); r.Rating != 1516 || r.Games != 1 || r.Name != "alice" {
		t.Errorf("rating on the upgraded file = %+v", r)
	}
}
