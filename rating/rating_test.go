package rating

import (
	"errors"
	"math"
	"testing"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.15g, want %.15g (±%g)", what, got, want, tol)
	}
}

func TestEloExpectedVector(t *testing.T) {
	near(t, "Expected(1500, 1600)", Expected(1500, 1600), 0.35993500019711, 1e-12)
	near(t, "Expected(1600, 1500)", Expected(1600, 1500), 1-0.35993500019711, 1e-12)
	near(t, "Expected(1500, 1500)", Expected(1500, 1500), 0.5, 1e-15)
	for _, d := range []float64{-800, -400, -1, 0, 1, 37.5, 400, 800} {
		near(t, "E(a,b)+E(b,a)", Expected(1500, 1500+d)+Expected(1500+d, 1500), 1, 1e-15)
	}
	// 400 points is the Elo scale: ten-to-one odds.
	near(t, "Expected(1900, 1500)", Expected(1900, 1500), 10.0/11, 1e-15)
}

// The textbook "32 × (1 − 0.36) = 20.48" rounds E to 0.36 first; the exact
// gain is 32 × 0.64006499980288512 = 20.482079993692324, which is 20.48 to
// two decimals but differs from 20.48 by 0.002 — so both are asserted, each
// with the tolerance it deserves.
func TestEloK32WinVector(t *testing.T) {
	gain := Delta(32, 1500, 1600, 1)
	near(t, "gain (exact)", gain, 20.482079993692, 1e-9)
	near(t, "gain (2 decimals)", math.Round(gain*100)/100, 20.48, 1e-9)
	loss := Delta(32, 1600, 1500, 0)
	near(t, "1600's loss", loss, -gain, 1e-12)
}

func TestRatingKSchedule(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Player
		want float64
	}{
		{"new player", Player{Rating: 1500, Games: 0}, 40},
		{"29 games", Player{Rating: 1500, Games: 29}, 40},
		{"30 games", Player{Rating: 1500, Games: 30}, 20},
		{"established 2399", Player{Rating: 2399, Games: 100}, 20},
		{"established 2399.99", Player{Rating: 2399.99, Games: 100}, 20},
		{"established at 2400", Player{Rating: 2400, Games: 100}, 10},
		{"reached 2400, now 2399", Player{Rating: 2399, Games: 100, Reached2400: true}, 10},
		{"reached 2400, now 1900", Player{Rating: 1900, Games: 100, Reached2400: true}, 10},
		{"newcomer above 2400 keeps 40", Player{Rating: 2450, Games: 29, Reached2400: true}, 40},
		{"zero value", Player{}, 40},
	} {
		if got := K(tc.p); got != tc.want {
			t.Errorf("%s: K(%+v) = %v, want %v", tc.name, tc.p, got, tc.want)
		}
	}
}

func TestRatingAfterRemembers2400(t *testing.T) {
	p := Player{Rating: 2390, Games: 50}
	p = p.After(2405)
	if p.Games != 51 || !p.Reached2400 || K(p) != KTop {
		t.Fatalf("after reaching 2400: %+v, K %v", p, K(p))
	}
	p = p.After(2380)
	if p.Games != 52 || !p.Reached2400 || K(p) != KTop {
		t.Fatalf("after dropping below 2400: %+v, K %v; K must stay 10", p, K(p))
	}
	if q := New(); q.Rating != 1500 || q.Games != 0 || q.Reached2400 {
		t.Fatalf("New() = %+v", q)
	}
}

func TestRatingDisplay(t *testing.T) {
	for _, tc := range []struct {
		r     float64
		games int
		want  string
	}{
		{1500, 0, "1500?"},
		{1512.4, 29, "1512?"},
		{1512.5, 29, "1513?"},
		{1512.4, 30, "1512"},
		{2400.49, 300, "2400"},
		{-0.3, 40, "0"},
		{-12.6, 40, "-13"},
	} {
		if got := Display(tc.r, tc.games); got != tc.want {
			t.Errorf("Display(%v, %d) = %q, want %q", tc.r, tc.games, got, tc.want)
		}
	}
	if Provisional(30) || !Provisional(29) || !Provisional(0) {
		t.Error("provisional must mean fewer than 30 games")
	}
}

func TestRating1v1ZeroSumWithEqualK(t *testing.T) {
	for _, tc := range []struct {
		a, b   Player
		places []int
	}{
		{Player{Rating: 1500, Games: 50}, Player{Rating: 1600, Games: 50}, []int{1, 2}},
		{Player{Rating: 1500, Games: 50}, Player{Rating: 1600, Games: 50}, []int{2, 1}},
		{Player{Rating: 1500, Games: 50}, Player{Rating: 1600, Games: 50}, []int{1, 1}},
		{Player{Rating: 1234.5, Games: 3}, Player{Rating: 1987.25, Games: 0}, []int{1, 2}},
		{Player{Rating: 2500, Games: 90, Reached2400: true}, Player{Rating: 2410, Games: 31}, []int{2, 1}},
	} {
		got, err := UpdatePlacements([]Player{tc.a, tc.b}, tc.places)
		if err != nil {
			t.Fatal(err)
		}
		da, db := got[0]-tc.a.Rating, got[1]-tc.b.Rating
		near(t, "sum of changes", da+db, 0, 1e-9)
		// Two players is plain Elo.
		score := pairScore(tc.places[0], tc.places[1])
		near(t, "1v1 is Delta", da, Delta(K(tc.a), tc.a.Rating, tc.b.Rating, score), 1e-12)
	}
	// The K=32-style vector at this schedule: a newcomer (K 40) beating 1600.
	got, err := UpdatePlacements([]Player{{Rating: 1500}, {Rating: 1600}}, []int{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "newcomer's win", got[0], 1500+40*(1-0.35993500019711488), 1e-9)
	near(t, "newcomer's loss", got[1], 1600-40*(1-0.35993500019711488), 1e-9)
}

func TestRatingFFA(t *testing.T) {
	four := func(r ...float64) []Player {
		ps := make([]Player, len(r))
		for i := range r {
			ps[i] = Player{Rating: r[i]} // newcomers: K 40, so K/(N−1) = 40/3
		}
		return ps
	}
	for _, tc := range []struct {
		name    string
		players []Player
		places  []int
		want    []float64
	}{
		// Equal ratings: E = 0.5 per pair, so first place scores 3 − 1.5 = 1.5
		// and gains 40/3 × 1.5 = 20.
		{"distinct places", four(1500, 1500, 1500, 1500), []int{1, 2, 3, 4},
			[]float64{1520, 1500 + 20.0/3, 1500 - 20.0/3, 1480}},
		{"order of players does not matter", four(1500, 1500, 1500, 1500), []int{3, 1, 4, 2},
			[]float64{1500 - 20.0/3, 1520, 1480, 1500 + 20.0/3}},
		// A tie for second: each of the tied pair loses to 1st, draws with the
		// other, beats 4th: 0 net.
		{"tie for second", four(1500, 1500, 1500, 1500), []int{1, 2, 2, 4},
			[]float64{1520, 1500, 1500, 1480}},
		{"everyone tied", four(1500, 1500, 1500, 1500), []int{1, 1, 1, 1},
			[]float64{1500, 1500, 1500, 1500}},
	} {
		got, err := UpdatePlacements(tc.players, tc.places)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i := range got {
			near(t, tc.name, got[i], tc.want[i], 1e-9)
		}
	}

	// Unequal ratings and Ks: each player's change is their K/3 times the
	// sum of their three pairwise (score − expected).
	ps := []Player{
		{Rating: 1700, Games: 100},                    // K 20
		{Rating: 1500, Games: 10},                     // K 40
		{Rating: 2450, Games: 200, Reached2400: true}, // K 10
		{Rating: 1350, Games: 40},                     // K 20
	}
	places := []int{2, 1, 2, 4}
	got, err := UpdatePlacements(ps, places)
	if err != nil {
		t.Fatal(err)
	}
	scores := [4][4]float64{ // scores[i][j]: i's result against j
		{0, 0, 0.5, 1},
		{1, 0, 1, 1},
		{0.5, 0, 0, 1},
		{0, 0, 0, 0},
	}
	for i, p := range ps {
		var sum float64
		for j, o := range ps {
			if i != j {
				sum += Delta(K(p)/3, p.Rating, o.Rating, scores[i][j])
			}
		}
		near(t, "pairwise FFA", got[i], p.Rating+sum, 1e-9)
	}
	// The 1500 who won gains, the 2450 held to a draw by a 1700 loses.
	if got[1] <= 1500 || got[2] >= 2450 {
		t.Errorf("FFA directions wrong: %v", got)
	}
	// With equal Ks an FFA is zero-sum too.
	eq := []Player{{Rating: 1400, Games: 40}, {Rating: 1550, Games: 40}, {Rating: 1600, Games: 40}, {Rating: 1900, Games: 40}}
	got, err = UpdatePlacements(eq, []int{3, 1, 4, 2})
	if err != nil {
		t.Fatal(err)
	}
	var total float64
	for i := range eq {
		total += got[i] - eq[i].Rating
	}
	near(t, "FFA sum of changes", total, 0, 1e-9)
}

func TestRatingTeams(t *testing.T) {
	// Unequal members with equal averages: E = 0.5, each moves by K/2.
	a := []Player{{Rating: 1600, Games: 30}, {Rating: 1400, Games: 5}} // K 20, K 40
	b := []Player{{Rating: 1500, Games: 40}, {Rating: 1500, Games: 40}}
	newA, newB, err := UpdateTeams(a, b, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1610, 1420, 1490, 1490}
	for i, g := range append(newA, newB...) {
		near(t, "2v2 equal averages", g, want[i], 1e-9)
	}

	// Unequal averages: A averages 1600 against 1500, so E_A is the vector
	// above and a draw costs A what it gives B.
	a = []Player{{Rating: 1700, Games: 100}, {Rating: 1500, Games: 100}}
	newA, newB, err = UpdateTeams(a, b, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	ea := 1 - 0.35993500019711488
	near(t, "A1 draw", newA[0], 1700+20*(0.5-ea), 1e-9)
	near(t, "A2 draw", newA[1], 1500+20*(0.5-ea), 1e-9)
	near(t, "B1 draw", newB[0], 1500+20*(ea-0.5), 1e-9)
	near(t, "B2 draw", newB[1], 1500+20*(ea-0.5), 1e-9)

	// A loss for A is B's win, member by member.
	newA, newB, err = UpdateTeams(a, b, 0)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "A1 loss", newA[0], 1700-20*ea, 1e-9)
	near(t, "B1 win", newB[0], 1500+20*ea, 1e-9)
}

func TestRatingInvalidInput(t *testing.T) {
	p := Player{Rating: 1500}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"one player", func() error { _, err := UpdatePlacements([]Player{p}, []int{1}); return err }()},
		{"places mismatch", func() error { _, err := UpdatePlacements([]Player{p, p}, []int{1}); return err }()},
		{"place 0", func() error { _, err := UpdatePlacements([]Player{p, p}, []int{1, 0}); return err }()},
		{"NaN rating", func() error {
			_, err := UpdatePlacements([]Player{p, {Rating: math.NaN()}}, []int{1, 2})
			return err
		}()},
		{"empty team", func() error { _, _, err := UpdateTeams(nil, []Player{p}, 1); return err }()},
		{"score above 1", func() error { _, _, err := UpdateTeams([]Player{p}, []Player{p}, 2); return err }()},
		{"NaN score", func() error { _, _, err := UpdateTeams([]Player{p}, []Player{p}, math.NaN()); return err }()},
		{"Inf in team", func() error {
			_, _, err := UpdateTeams([]Player{p}, []Player{{Rating: math.Inf(1)}}, 1)
			return err
		}()},
	} {
		if !errors.Is(tc.err, ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", tc.name, tc.err)
		}
	}
}
