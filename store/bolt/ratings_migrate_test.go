package bolt

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/termarena/termarena/store"
)

// testdata/ratings-elo-dc7ddbc.db was written by the build at commit
// dc7ddbc (schema 4, Elo rating records "v":1) through its own RecordMatch
// with Elo K=40/20: alice beat bob 40 times in pong-1v1 from 2026-09-01
// 12:00 UTC, an hour apart; 30 days later carol beat dave 3 times in
// pong-1v1, then dave beat carol once in tron-1v1.
func TestEloFileMigratesToGlicko2(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "ratings-elo-dc7ddbc.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "termarena.db")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	s := openTest(t, path, Options{})
	if v, err := s.SchemaVersion(ctx); err != nil || v != 5 {
		t.Fatalf("schema after upgrade %d, %v; want 5", v, err)
	}
	first := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		mode, name string
		games      int
		rating     float64 // Elo's, kept
		deviation  float64 // eloDeviation(games)
		updated    time.Time
	}{
		{"pong-1v1", "alice", 40, 0, 54.6, first.Add(39 * time.Hour)},
		{"pong-1v1", "bob", 40, 0, 54.6, first.Add(39 * time.Hour)},
		{"pong-1v1", "carol", 3, 0, 186.2, first.Add(40*time.Hour + 30*24*time.Hour + 2*time.Hour)},
		{"tron-1v1", "dave", 1, 1520, 285.3, first.Add(40*time.Hour + 30*24*time.Hour + 3*time.Hour)},
		{"tron-1v1", "carol", 1, 1480, 285.3, first.Add(40*time.Hour + 30*24*time.Hour + 3*time.Hour)},
	} {
		p, err := s.PlayerByName(ctx, tc.name)
		if err != nil {
			t.Fatal(err)
		}
		r, found, err := s.Rating(ctx, tc.mode, p.Fingerprint)
		if err != nil || !found {
			t.Fatalf("%s %s: %+v %v %v", tc.mode, tc.name, r, found, err)
		}
		if r.Games != tc.games || !r.Updated.Equal(tc.updated) {
			t.Errorf("%s %s: %d games, updated %v; want %d, %v", tc.mode, tc.name, r.Games, r.Updated, tc.games, tc.updated)
		}
		if tc.rating != 0 && r.Rating != tc.rating {
			t.Errorf("%s %s: rating %v, want Elo's %v kept", tc.mode, tc.name, r.Rating, tc.rating)
		}
		if math.Abs(r.Deviation-tc.deviation) > 0.05 || r.Volatility != store.InitialVolatility {
			t.Errorf("%s %s: ± %v σ %v; want ± %v σ %v", tc.mode, tc.name, r.Deviation, r.Volatility, tc.deviation, store.InitialVolatility)
		}
	}
	// Elo's ratings are kept exactly: alice won 40 in a row, so she is
	// well above bob, and the two moved by the same amounts.
	a, _ := s.PlayerByName(ctx, "alice")
	b, _ := s.PlayerByName(ctx, "bob")
	ra, _, _ := s.Rating(ctx, "pong-1v1", a.Fingerprint)
	rb, _, _ := s.Rating(ctx, "pong-1v1", b.Fingerprint)
	if !(ra.Rating > 1700) || math.Abs(ra.Rating-1500-(1500-rb.Rating)) > 1e-9 {
		t.Errorf("alice %v, bob %v: want alice far above, the two mirrored about 1500", ra.Rating, rb.Rating)
	}
	// The old matches still read, without deviations (an Elo-era record).
	ms, err := s.Matches(ctx, a.Fingerprint, 0)
	if err != nil || len(ms) != 20 || ms[0].Players[0].DeviationAfter != 0 || ms[0].Players[0].RatingAfter != ra.Rating {
		t.Fatalf("alice's matches: %d, %v", len(ms), err)
	}
	// And a new match rates on from there, the file written as v2.
	saved := mustRecord(t, s, duel(a.Fingerprint, b.Fingerprint), func(cur []store.Rating) ([]store.Rating, error) {
		cur[0].Rating += 1
		cur[0].Deviation -= 1
		cur[1].Rating -= 1
		return cur, nil
	})
	if d := saved.Players[0]; d.DeviationBefore != ra.Deviation || d.DeviationAfter != ra.Deviation-1 {
		t.Errorf("new match's deviations %+v", saved.Players[0])
	}
}

func TestEloDeviation(t *testing.T) {
	for _, tc := range []struct {
		games int
		want  float64
	}{{0, 500}, {1, 285.3}, {3, 186.2}, {40, 54.6}, {10, 107.3}, {30, 62.9}, {59, 45.05}, {60, 45}, {1000, 45}, {-3, 500}} {
		if got := eloDeviation(tc.games); math.Abs(got-tc.want) > 0.05 {
			t.Errorf("eloDeviation(%d) = %.2f, want %v", tc.games, got, tc.want)
		}
	}
}
