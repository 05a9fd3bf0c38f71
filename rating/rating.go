// Package rating owns termarena's rating maths: Glicko-2 (Mark Glickman,
// "Example of the Glicko-2 system", glicko.net/glicko/glicko2.pdf) with
// Lichess's settings, extended to free-for-all (the pairwise results of one
// rating period) and to 2v2 (each player against the opposing team, with
// the expectation taken from the team composites). It is pure — no store,
// no clock, no globals — so every rule is pinned by table tests, and the
// store and the lobby only move numbers in and out.
//
// Ratings are kept as unrounded float64 and rounded only for display
// (Display): rounding after every match would drift.
//
// Rating periods. Glicko-2 rates all of a period's games at once; like
// Lichess we rate after every match instead, and let time rather than a
// calendar decide how much a deviation grows: a rating unplayed for d days
// has lived through d × PeriodsPerDay periods (Lichess's 0.21436, one
// period ≈ 4.7 days), so its deviation becomes √(φ² + d·0.21436·σ²)
// before the match is rated. Two matches in a row therefore add no
// uncertainty between them, and a month away adds what six periods would.
package rating

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Lichess's settings.
const (
	// Initial is every player's rating before their first rated game.
	Initial = 1500.0
	// InitialDeviation is a newcomer's deviation: we know nothing yet.
	InitialDeviation = 500.0
	// InitialVolatility is a newcomer's volatility σ.
	InitialVolatility = 0.09
	// Tau (τ) constrains how fast volatility changes.
	Tau = 0.75
	// ProvisionalDeviation: a rating whose deviation is at least this is
	// provisional, shown with "?" and kept off leaderboards.
	ProvisionalDeviation = 110.0
	// MinDeviation and MaxDeviation bound the deviation as Lichess does:
	// the floor keeps an old rating able to move, the ceiling is where a
	// newcomer starts (inactivity never makes anyone less known than one).
	MinDeviation = 45.0
	MaxDeviation = InitialDeviation
	// MaxVolatility stops a run of upsets from blowing up σ (Lichess: 0.1).
	MaxVolatility = 0.1
	// PeriodsPerDay is how many rating periods a day of inactivity counts
	// as (Lichess's continuous-time figure).
	PeriodsPerDay = 0.21436
)

// scale converts between the Glicko scale (1500, 350) and Glicko-2's (0, 2.01).
const scale = 173.7178

// convergence is the paper's ε for the volatility iteration.
const convergence = 0.000001

// ErrInput is wrapped by every error for a match that cannot be rated.
var ErrInput = errors.New("rating: invalid match")

// Player is one player's standing in one mode before a match.
type Player struct {
	Rating     float64
	Deviation  float64 // RD, on the rating's scale
	Volatility float64 // σ
}

// New is a player who has never played the mode.
func New() Player {
	return Player{Rating: Initial, Deviation: InitialDeviation, Volatility: InitialVolatility}
}

// Provisional reports whether a rating with this deviation is still
// provisional (shown with a "?", not on leaderboards).
func Provisional(deviation float64) bool { return deviation >= ProvisionalDeviation }

// Display is a rating as players see it: whole points, with a "?" while it
// is provisional ("1512?").
func Display(r, deviation float64) string {
	// Adding 0 turns math.Round's -0 into 0 so nobody is shown "-0".
	s := strconv.FormatFloat(math.Round(r)+0, 'f', 0, 64)
	if Provisional(deviation) {
		s += "?"
	}
	return s
}

// DisplayDeviation is a rating with its deviation, as profiles show it:
// "1612 ± 48", or "1500? ± 500" while provisional.
func DisplayDeviation(r, deviation float64) string {
	return fmt.Sprintf("%s ± %.0f", Display(r, deviation), math.Round(deviation))
}

// Decay is p after periods rating periods without a game: the deviation
// grows as √(φ² + periods·σ²) (the paper's step 6 for a player who did not
// compete), capped at MaxDeviation.
func Decay(p Player, periods float64) Player {
	if !(periods > 0) {
		return p
	}
	phi := p.Deviation / scale
	p.Deviation = min(math.Sqrt(phi*phi+periods*p.Volatility*p.Volatility)*scale, MaxDeviation)
	return p
}

// Periods is how many rating periods d days of inactivity count as.
func Periods(days float64) float64 { return max(days, 0) * PeriodsPerDay }

// Game is one result within a rating period: the opponent as they stood
// before it, and the score (1 win, 0.5 draw, 0 loss).
type Game struct {
	Opponent Player
	Score    float64
}

// Config is the system constant and the bounds; Lichess is the default.
type Config struct {
	Tau float64
	// Bounded applies MinDeviation, MaxDeviation and MaxVolatility to the
	// result (Lichess's bounds; the paper has none).
	Bounded bool
}

// Lichess is the configuration termarena plays with.
var Lichess = Config{Tau: Tau, Bounded: true}

// Paper is the paper's worked example's configuration (τ = 0.5, no bounds).
var Paper = Config{Tau: 0.5}

// Update rates p over one rating period with games in it, following the
// paper's steps 2–8. periods is how many rating periods p's deviation grows
// by before the games (step 6's φ* = √(φ² + periods·σ'²)); the paper's
// example is 1, termarena's live play is Periods(days since p last played),
// so games in a row add no uncertainty between them. No games: the
// deviation only grows (Decay).
func (c Config) Update(p Player, periods float64, games []Game) (Player, error) {
	if err := check(p); err != nil {
		return Player{}, err
	}
	if len(games) == 0 {
		return c.bound(Decay(p, periods)), nil
	}
	mu, phi, sigma := (p.Rating-Initial)/scale, p.Deviation/scale, p.Volatility
	var vinv, sum float64
	for i, g := range games {
		if err := check(g.Opponent); err != nil {
			return Player{}, fmt.Errorf("opponent %d: %w", i, err)
		}
		if !(g.Score >= 0 && g.Score <= 1) {
			return Player{}, fmt.Errorf("%w: score %v outside [0, 1]", ErrInput, g.Score)
		}
		muj, phij := (g.Opponent.Rating-Initial)/scale, g.Opponent.Deviation/scale
		gj := gPhi(phij)
		e := expect(mu, muj, phij)
		vinv += gj * gj * e * (1 - e)
		sum += gj * (g.Score - e)
	}
	v := 1 / vinv
	delta := v * sum
	sigma = c.volatility(phi, sigma, v, delta)
	if c.Bounded {
		sigma = min(sigma, MaxVolatility)
	}
	phiStar := math.Sqrt(phi*phi + max(periods, 0)*sigma*sigma)
	phiNew := 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	muNew := mu + phiNew*phiNew*sum
	return c.bound(Player{Rating: muNew*scale + Initial, Deviation: phiNew * scale, Volatility: sigma}), nil
}

func (c Config) bound(p Player) Player {
	if c.Bounded {
		p.Deviation = min(max(p.Deviation, MinDeviation), MaxDeviation)
		p.Volatility = min(p.Volatility, MaxVolatility)
	}
	return p
}

// volatility is step 5, the Illinois algorithm of the paper's 2013 revision.
func (c Config) volatility(phi, sigma, v, delta float64) float64 {
	a := math.Log(sigma * sigma)
	tau2 := c.Tau * c.Tau
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi*phi + v + ex
		return ex*(delta*delta-phi*phi-v-ex)/(2*d*d) - (x-a)/tau2
	}
	A := a
	var B float64
	if delta*delta > phi*phi+v {
		B = math.Log(delta*delta - phi*phi - v)
	} else {
		k := 1.0
		for f(a-k*c.Tau) < 0 {
			k++
		}
		B = a - k*c.Tau
	}
	fA, fB := f(A), f(B)
	for i := 0; math.Abs(B-A) > convergence && i < 100; i++ {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	return math.Exp(A / 2)
}

func gPhi(phi float64) float64 { return 1 / math.Sqrt(1+3*phi*phi/(math.Pi*math.Pi)) }

func expect(mu, muj, phij float64) float64 { return 1 / (1 + math.Exp(-gPhi(phij)*(mu-muj))) }

// Expected is the score a is expected to take from b, Glicko-2's E with
// b's deviation (1 a certain win, 0.5 an even match).
func Expected(a, b Player) float64 {
	return expect((a.Rating-Initial)/scale, (b.Rating-Initial)/scale, b.Deviation/scale)
}

// UpdatePlacements rates a 1v1 or free-for-all match and returns each
// player's new standing, in the order given. places[i] is player i's 1-based
// place; tied players share a place (game.Result.Places, without the
// unseated zeros). periods[i] is how many rating periods player i sat out
// before it (Periods of the days since their last rated game).
//
// Decomposition: every pair of players is one game of one rating period —
// the better place wins, equal places draw — so a four-player free-for-all
// is three games for each player, rated together against the opponents'
// standings from before the match (the order of players does not matter).
// A full ranking of four does tell us about three comparisons; with two
// players this is plain Glicko-2.
func (c Config) UpdatePlacements(players []Player, places []int, periods []float64) ([]Player, error) {
	n := len(players)
	if n < 2 {
		return nil, fmt.Errorf("%w: %d players, need at least 2", ErrInput, n)
	}
	if len(places) != n || len(periods) != n {
		return nil, fmt.Errorf("%w: %d players but %d places and %d periods", ErrInput, n, len(places), len(periods))
	}
	for i := range players {
		if places[i] < 1 {
			return nil, fmt.Errorf("%w: player %d has place %d, places start at 1", ErrInput, i, places[i])
		}
	}
	out := make([]Player, n)
	for i, p := range players {
		games := make([]Game, 0, n-1)
		for j, o := range players {
			if j != i {
				games = append(games, Game{Opponent: o, Score: pairScore(places[i], places[j])})
			}
		}
		var err error
		if out[i], err = c.Update(p, periods[i], games); err != nil {
			return nil, fmt.Errorf("player %d: %w", i, err)
		}
	}
	return out, nil
}

func pairScore(mine, theirs int) float64 {
	switch {
	case mine < theirs:
		return 1
	case mine == theirs:
		return 0.5
	}
	return 0
}

// UpdateTeams rates a team match (2v2). scoreA is team A's result: 1 win,
// 0.5 draw, 0 loss; periodsA and periodsB are each member's rating periods
// sat out (see UpdatePlacements).
//
// Decomposition: each player plays one game against a composite opponent
// standing for the other team, placed so that the expectation is the
// teams' — the opponent's rating is the player's own plus the gap between
// the team averages, its deviation the root mean square of the other
// team's deviations. So a newcomer paired with a veteran is expected to do
// what their team is expected to do, and each member moves by their own
// deviation: the newcomer a lot, the veteran a little, as in 1v1.
func (c Config) UpdateTeams(a, b []Player, scoreA float64, periodsA, periodsB []float64) (newA, newB []Player, err error) {
	if len(a) == 0 || len(b) == 0 {
		return nil, nil, fmt.Errorf("%w: teams of %d and %d players", ErrInput, len(a), len(b))
	}
	if len(periodsA) != len(a) || len(periodsB) != len(b) {
		return nil, nil, fmt.Errorf("%w: periods for %d and %d players, teams of %d and %d", ErrInput, len(periodsA), len(periodsB), len(a), len(b))
	}
	if !(scoreA >= 0 && scoreA <= 1) {
		return nil, nil, fmt.Errorf("%w: team score %v outside [0, 1]", ErrInput, scoreA)
	}
	ca, err := composite(a)
	if err != nil {
		return nil, nil, fmt.Errorf("team A: %w", err)
	}
	cb, err := composite(b)
	if err != nil {
		return nil, nil, fmt.Errorf("team B: %w", err)
	}
	rate := func(team []Player, periods []float64, us, them Player, score float64) ([]Player, error) {
		out := make([]Player, len(team))
		for i, p := range team {
			opp := Player{Rating: p.Rating + them.Rating - us.Rating, Deviation: them.Deviation, Volatility: them.Volatility}
			var err error
			if out[i], err = c.Update(p, periods[i], []Game{{Opponent: opp, Score: score}}); err != nil {
				return nil, fmt.Errorf("player %d: %w", i, err)
			}
		}
		return out, nil
	}
	if newA, err = rate(a, periodsA, ca, cb, scoreA); err != nil {
		return nil, nil, fmt.Errorf("team A: %w", err)
	}
	if newB, err = rate(b, periodsB, cb, ca, 1-scoreA); err != nil {
		return nil, nil, fmt.Errorf("team B: %w", err)
	}
	return newA, newB, nil
}

// composite is a team as one player: mean rating, root-mean-square
// deviation (the variance of the mean of independent members' estimates
// would be smaller still, but the team's strength is no better known than
// its members' on average).
func composite(team []Player) (Player, error) {
	var r, d2, s float64
	for i, p := range team {
		if err := check(p); err != nil {
			return Player{}, fmt.Errorf("player %d: %w", i, err)
		}
		r += p.Rating
		d2 += p.Deviation * p.Deviation
		s += p.Volatility
	}
	n := float64(len(team))
	return Player{Rating: r / n, Deviation: math.Sqrt(d2 / n), Volatility: s / n}, nil
}

// check stops a corrupt stored value from spreading NaN into every
// opponent's rating.
func check(p Player) error {
	for _, x := range []float64{p.Rating, p.Deviation, p.Volatility} {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%w: rating %v ± %v (σ %v) is not a number", ErrInput, p.Rating, p.Deviation, p.Volatility)
		}
	}
	if !(p.Deviation > 0) || !(p.Volatility > 0) {
		return fmt.Errorf("%w: deviation %v and volatility %v must be positive", ErrInput, p.Deviation, p.Volatility)
	}
	return nil
}
