package rating

import (
	"errors"
	"math"
	"testing"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.10g, want %.10g (±%g)", what, got, want, tol)
	}
}

// The paper's worked example (Glickman, "Example of the Glicko-2 system",
// 2013 revision): a 1500 ± 200, σ 0.06 player beats a 1400 ± 30, loses to
// a 1550 ± 100 and to a 1700 ± 300, τ = 0.5. Every intermediate figure the
// paper prints is pinned at the precision it prints it.
var paperPlayer = Player{Rating: 1500, Deviation: 200, Volatility: 0.06}

var paperGames = []Game{
	{Opponent: Player{Rating: 1400, Deviation: 30, Volatility: 0.06}, Score: 1},
	{Opponent: Player{Rating: 1550, Deviation: 100, Volatility: 0.06}, Score: 0},
	{Opponent: Player{Rating: 1700, Deviation: 300, Volatility: 0.06}, Score: 0},
}

func TestGlicko2PaperIntermediates(t *testing.T) {
	near(t, "φ", paperPlayer.Deviation/scale, 1.1513, 5e-5)
	wantMu := []float64{-0.5756, 0.2878, 1.1513}
	wantPhi := []float64{0.1727, 0.5756, 1.7269}
	wantG := []float64{0.9955, 0.9531, 0.7242}
	wantE := []float64{0.639, 0.432, 0.303}
	var vinv, sum float64
	for i, g := range paperGames {
		muj, phij := (g.Opponent.Rating-Initial)/scale, g.Opponent.Deviation/scale
		near(t, "μj", muj, wantMu[i], 5e-5)
		near(t, "φj", phij, wantPhi[i], 5e-5)
		near(t, "g(φj)", gPhi(phij), wantG[i], 5e-5)
		e := expect(0, muj, phij)
		near(t, "E", e, wantE[i], 5e-4)
		near(t, "Expected", Expected(paperPlayer, g.Opponent), e, 1e-15)
		vinv += gPhi(phij) * gPhi(phij) * e * (1 - e)
		sum += gPhi(phij) * (g.Score - e)
	}
	// The paper carries E rounded to three places into v and Δ, so its
	// v = 1.7785 and Δ = −0.4834 are the exact 1.77898 and −0.48393 to
	// within that rounding (1e-3); the exact figures are pinned too.
	v := 1 / vinv
	near(t, "v (paper)", v, 1.7785, 5e-4)
	near(t, "v", v, 1.778977, 5e-6)
	delta := v * sum
	near(t, "Δ (paper)", delta, -0.4834, 1e-3)
	near(t, "Δ", delta, -0.483933, 5e-6)
	sigma := Paper.volatility(200/scale, 0.06, v, delta)
	near(t, "σ' (paper)", sigma, 0.05999, 1e-5)
	near(t, "σ'", sigma, 0.0599960, 5e-7)
	phiStar := math.Sqrt(math.Pow(200/scale, 2) + sigma*sigma)
	near(t, "φ* (paper)", phiStar, 1.152862, 1e-5)
}

func TestGlicko2PaperExample(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    Config
		p      Player
		games  []Game
		period float64
		want   Player
		tol    [3]float64
	}{
		// The paper's result: r' = 1464.06, RD' = 151.52, σ' = 0.05999,
		// printed from intermediates rounded as above; without that
		// rounding it is 1464.0507, 151.5165, 0.0599960 (as other
		// implementations of the paper also get), within 0.01 of it.
		{"paper's example", Paper, paperPlayer, paperGames, 1, Player{1464.06, 151.52, 0.05999}, [3]float64{0.01, 0.005, 1e-5}},
		{"paper's example, exact", Paper, paperPlayer, paperGames, 1, Player{1464.0507, 151.5165, 0.0599960}, [3]float64{5e-5, 5e-5, 5e-7}},
		// Lichess's bounds change nothing here (45 ≤ RD ≤ 500, σ ≤ 0.1).
		{"paper's example, bounded", Config{Tau: 0.5, Bounded: true}, paperPlayer, paperGames, 1, Player{1464.0507, 151.5165, 0.0599960}, [3]float64{5e-5, 5e-5, 5e-7}},
		// Step 6 alone for one who did not compete: RD' = √(φ² + σ²) on
		// the Glicko-2 scale, 173.7178·√(1.1513² + 0.06²) = 200.27.
		{"no games, one period", Paper, paperPlayer, nil, 1, Player{1500, 200.27, 0.06}, [3]float64{0, 0.005, 0}},
		{"no games, no time", Paper, paperPlayer, nil, 0, paperPlayer, [3]float64{0, 0, 0}},
		// Four periods: √(1.1513² + 4·0.06²)·173.7178 = 201.08.
		{"no games, four periods", Paper, paperPlayer, nil, 4, Player{1500, 201.08, 0.06}, [3]float64{0, 0.005, 0}},
		// A newcomer never gets less known than one: capped at 500.
		{"newcomer idle a year", Lichess, New(), nil, Periods(365), New(), [3]float64{0, 0, 0}},
	} {
		got, err := tc.cfg.Update(tc.p, tc.period, tc.games)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		near(t, tc.name+": rating", got.Rating, tc.want.Rating, tc.tol[0])
		near(t, tc.name+": deviation", got.Deviation, tc.want.Deviation, tc.tol[1])
		near(t, tc.name+": volatility", got.Volatility, tc.want.Volatility, tc.tol[2])
	}
}

// Lichess's settings as they meet a newcomer: two fresh players, one game.
// Each is 1500 ± 500 (φ = 2.878, g = 0.5331), so E = ½, v = 14.07 and
// r' = 1500 ± φ'²·g/2·173.7 — the winner 1500 + 241.5 and the deviation
// falls from 500 to 396.7, computed from the paper's formulas by hand.
func TestGlicko2LichessNewcomers(t *testing.T) {
	a, b := New(), New()
	got, err := Lichess.UpdatePlacements([]Player{a, b}, []int{1, 2}, []float64{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	phi := InitialDeviation / scale
	g := gPhi(phi)
	v := 1 / (g * g / 4)
	phiNew := 1 / math.Sqrt(1/(phi*phi)+1/v)
	gain := phiNew * phiNew * g / 2 * scale
	near(t, "winner", got[0].Rating, 1500+gain, 1e-9)
	near(t, "loser", got[1].Rating, 1500-gain, 1e-9)
	near(t, "winner (rounded)", got[0].Rating, 1741.5, 0.5)
	near(t, "deviation", got[0].Deviation, phiNew*scale, 1e-9)
	near(t, "deviation (rounded)", got[0].Deviation, 396.7, 0.5)
	if got[0].Deviation != got[1].Deviation {
		t.Errorf("equal players, unequal deviations: %v vs %v", got[0].Deviation, got[1].Deviation)
	}
	if !Provisional(got[0].Deviation) || Display(got[0].Rating, got[0].Deviation) != "1741?" {
		t.Errorf("after one game: %s, want 1741? (provisional)", Display(got[0].Rating, got[0].Deviation))
	}
}

// Ten wins over established 1500s take a newcomer off "?" (RD < 110), as
// Lichess's "about ten games"; the deviation floor is 45.
func TestGlicko2ProvisionalClears(t *testing.T) {
	p := New()
	opp := Player{Rating: 1500, Deviation: 60, Volatility: 0.06}
	games := 0
	for ; Provisional(p.Deviation); games++ {
		s := float64(games % 2) // alternate: a fair record
		var err error
		if p, err = Lichess.Update(p, 0, []Game{{Opponent: opp, Score: s}}); err != nil {
			t.Fatal(err)
		}
		if games > 30 {
			t.Fatalf("still provisional after %d games: %+v", games, p)
		}
	}
	if games < 8 || games > 14 {
		t.Errorf("provisional cleared after %d games, want about 10", games)
	}
	for range 300 {
		p, _ = Lichess.Update(p, 0, []Game{{Opponent: opp, Score: 0.5}})
	}
	near(t, "floor", p.Deviation, MinDeviation, 1e-9)
}

func TestGlicko2Display(t *testing.T) {
	for _, tc := range []struct {
		r, d float64
		want string
		pm   string
	}{
		{1500, 500, "1500?", "1500? ± 500"},
		{1611.6, 48.2, "1612", "1612 ± 48"},
		{1612, 110, "1612?", "1612? ± 110"},
		{1612, 109.9, "1612", "1612 ± 110"},
		{-0.4, 50, "0", "0 ± 50"},
	} {
		if got := Display(tc.r, tc.d); got != tc.want {
			t.Errorf("Display(%v, %v) = %q, want %q", tc.r, tc.d, got, tc.want)
		}
		if got := DisplayDeviation(tc.r, tc.d); got != tc.pm {
			t.Errorf("DisplayDeviation(%v, %v) = %q, want %q", tc.r, tc.d, got, tc.pm)
		}
	}
}

// A free-for-all is each player's pairwise results rated as one period:
// exactly Update with those games, the winner beating three, the last
// losing to three, and a tie a draw.
func TestGlicko2FFAIsPairwise(t *testing.T) {
	ps := []Player{
		{1500, 200, 0.06}, {1400, 30, 0.06}, {1550, 100, 0.06}, {1700, 300, 0.06},
	}
	places := []int{3, 1, 4, 2}
	got, err := Paper.UpdatePlacements(ps, places, []float64{1, 1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	// Player 0 (3rd) beat player 2 (4th) and lost to 1 and 3.
	want, _ := Paper.Update(ps[0], 1, []Game{{ps[1], 0}, {ps[2], 1}, {ps[3], 0}})
	if got[0] != want {
		t.Errorf("3rd of four = %+v, want %+v", got[0], want)
	}
	if !(got[1].Rating > ps[1].Rating && got[2].Rating < ps[2].Rating) {
		t.Errorf("winner %v→%v, last %v→%v", ps[1].Rating, got[1].Rating, ps[2].Rating, got[2].Rating)
	}
	// Order does not matter.
	rev, _ := Paper.UpdatePlacements([]Player{ps[3], ps[2], ps[1], ps[0]}, []int{2, 4, 1, 3}, []float64{1, 1, 1, 1})
	if rev[3] != got[0] || rev[0] != got[3] {
		t.Errorf("order changed the result: %+v vs %+v", rev, got)
	}
	// A two-way tie for first is a draw between them.
	tie, _ := Lichess.UpdatePlacements([]Player{New(), New()}, []int{1, 1}, []float64{0, 0})
	if tie[0].Rating != Initial || tie[1].Rating != Initial {
		t.Errorf("a draw between equals moved them: %+v", tie)
	}
}

// 2v2: each member against the other team's composite, expected to do what
// the team is; the newcomer moves more than the veteran beside them.
func TestGlicko2Teams(t *testing.T) {
	vet := Player{1800, 50, 0.06}
	rookie := New()
	b := []Player{{1650, 60, 0.06}, {1650, 80, 0.06}}
	zero := []float64{0, 0}
	na, nb, err := Lichess.UpdateTeams([]Player{vet, rookie}, b, 1, zero, zero)
	if err != nil {
		t.Fatal(err)
	}
	dv, dr := na[0].Rating-vet.Rating, na[1].Rating-rookie.Rating
	if !(dv > 0 && dr > dv*5) {
		t.Errorf("winners: veteran %+.1f, rookie %+.1f; want both up, the rookie far more", dv, dr)
	}
	if !(nb[0].Rating < 1650 && nb[1].Rating < 1650 && nb[1].Rating < nb[0].Rating) {
		t.Errorf("losers %+v; want both down, the less known one more", nb)
	}
	// The teams average 1650 each: the expectation is even, so the
	// rookie gains exactly what a win over an even 1500 would give.
	comp := Player{Rating: 1500, Deviation: math.Sqrt((60*60 + 80*80) / 2.0), Volatility: 0.06}
	one, _ := Lichess.Update(rookie, 0, []Game{{comp, 1}})
	near(t, "rookie", na[1].Rating, one.Rating, 1e-9)
	// A draw between even teams moves nobody's rating.
	da, _, _ := Lichess.UpdateTeams([]Player{vet, rookie}, b, 0.5, zero, zero)
	near(t, "draw, veteran", da[0].Rating, vet.Rating, 1e-9)
	near(t, "draw, rookie", da[1].Rating, rookie.Rating, 1e-9)
}

func TestGlicko2InvalidInput(t *testing.T) {
	nan := Player{math.NaN(), 50, 0.06}
	for name, err := range map[string]error{
		"one player":     second(Lichess.UpdatePlacements([]Player{New()}, []int{1}, []float64{0})),
		"places short":   second(Lichess.UpdatePlacements([]Player{New(), New()}, []int{1}, []float64{0, 0})),
		"place zero":     second(Lichess.UpdatePlacements([]Player{New(), New()}, []int{0, 1}, []float64{0, 0})),
		"NaN rating":     second(Lichess.UpdatePlacements([]Player{nan, New()}, []int{1, 2}, []float64{0, 0})),
		"zero deviation": second(Lichess.Update(Player{1500, 0, 0.06}, 0, nil)),
		"score 2":        second(Lichess.Update(New(), 0, []Game{{New(), 2}})),
		"empty team":     third(Lichess.UpdateTeams(nil, []Player{New()}, 1, nil, []float64{0})),
		"team score":     third(Lichess.UpdateTeams([]Player{New()}, []Player{New()}, 1.5, []float64{0}, []float64{0})),
	} {
		if !errors.Is(err, ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", name, err)
		}
	}
}

func second[T any](_ T, err error) error        { return err }
func third[T, U any](_ T, _ U, err error) error { return err }
