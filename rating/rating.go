// Package rating owns termarena's rating maths: Elo with a FIDE-style K
// schedule, extended to four-player free-for-all (pairwise by placement) and
// to 2v2 (team averages). It is pure — no store, no clock, no globals — so
// every rule is pinned by table tests, and the store and the lobby only move
// numbers in and out.
//
// Ratings are kept as unrounded float64 and rounded only for display
// (Display). FIDE rounds once per rating period; we rate after every match,
// and rounding each time would drift: a K=10 player who beats someone 550
// points below gains 0.4 (rounded to 0) but loses 9.6 (rounded to 10), so
// strong players would deflate steadily; and with FFA's small K/3 shares
// the half-point rounding error would often outweigh the change itself.
// Keeping the float makes every match exactly the Elo formula, so no
// rounding accumulates.
package rating

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// The FIDE-style schedule. Each mode has its own rating and game count.
const (
	// Initial is every player's rating before their first rated game.
	Initial = 1500.0
	// ProvisionalGames is how many rated games a rating stays provisional,
	// and how long a newcomer moves with KNew.
	ProvisionalGames = 30
	// KNew lets a newcomer's rating travel quickly to where it belongs.
	KNew = 40.0
	// KStandard is for established players below TopRating.
	KStandard = 20.0
	// KTop is for anyone who has ever reached TopRating: FIDE keeps it at
	// 10 even after the rating falls back, so a top player cannot regain a
	// bigger K by dropping below the line.
	KTop = 10.0
	// TopRating is the threshold for KTop.
	TopRating = 2400.0
)

// ErrInput is wrapped by every error for a match that cannot be rated.
var ErrInput = errors.New("rating: invalid match")

// Player is one player's standing in one mode before a match.
type Player struct {
	Rating float64
	// Games is the number of rated games completed in this mode.
	Games int
	// Reached2400 is sticky: set once Rating has been at or above
	// TopRating, never cleared (see KTop).
	Reached2400 bool
}

// New is a player who has never played the mode.
func New() Player { return Player{Rating: Initial} }

// After is p once a rated game has moved their rating to r: one more game,
// and the 2400 mark remembered if r reached it.
func (p Player) After(r float64) Player {
	return Player{Rating: r, Games: p.Games + 1, Reached2400: p.Reached2400 || r >= TopRating}
}

// K is p's development coefficient. A newcomer keeps KNew for their first
// ProvisionalGames even if already above TopRating, as FIDE does, because
// their rating is still a guess.
func K(p Player) float64 {
	switch {
	case p.Games < ProvisionalGames:
		return KNew
	case p.Reached2400 || p.Rating >= TopRating:
		return KTop
	default:
		return KStandard
	}
}

// Expected is the score a player rated ra is expected to take from one
// rated rb: 1 is a certain win, 0.5 an even match.
func Expected(ra, rb float64) float64 {
	return 1 / (1 + math.Pow(10, (rb-ra)/400))
}

// Delta is the rating change for a player rated ra who scores score (1 win,
// 0.5 draw, 0 loss) against rb with coefficient k.
func Delta(k, ra, rb, score float64) float64 {
	return k * (score - Expected(ra, rb))
}

// Provisional reports whether a rating after games rated games is still
// provisional (shown with a "?").
func Provisional(games int) bool { return games < ProvisionalGames }

// Display is a rating as players see it: whole points, with a "?" while it
// is provisional ("1512?").
func Display(r float64, games int) string {
	// Adding 0 turns math.Round's -0 into 0 so nobody is shown "-0".
	s := strconv.FormatFloat(math.Round(r)+0, 'f', 0, 64)
	if Provisional(games) {
		s += "?"
	}
	return s
}

// UpdatePlacements rates a 1v1 or free-for-all match and returns each
// player's new rating, in the order given. places[i] is player i's 1-based
// place; tied players share a place (game.Result.Places, without the
// unseated zeros).
//
// Every pair of players is one game: the better place wins, equal places
// draw. Each player's K is divided by N−1 so that an N-player match moves a
// rating about as much as one 1v1 game rather than N−1 of them; with two
// players this is plain Elo. All expectations use the ratings from before
// the match, so the order of players does not matter.
func UpdatePlacements(players []Player, places []int) ([]float64, error) {
	n := len(players)
	if n < 2 {
		return nil, fmt.Errorf("%w: %d players, need at least 2", ErrInput, n)
	}
	if len(places) != n {
		return nil, fmt.Errorf("%w: %d players but %d places", ErrInput, n, len(places))
	}
	for i, p := range players {
		if places[i] < 1 {
			return nil, fmt.Errorf("%w: player %d has place %d, places start at 1", ErrInput, i, places[i])
		}
		if err := checkRating(p.Rating); err != nil {
			return nil, fmt.Errorf("player %d: %w", i, err)
		}
	}
	out := make([]float64, n)
	for i, p := range players {
		var sum float64
		for j, o := range players {
			if j == i {
				continue
			}
			sum += pairScore(places[i], places[j]) - Expected(p.Rating, o.Rating)
		}
		out[i] = p.Rating + K(p)/float64(n-1)*sum
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
// 0.5 draw, 0 loss. Each team is rated as the average of its members, and
// the one team-against-team result is applied to every member with that
// member's own K: a newcomer paired with a veteran moves faster than the
// veteran, as they would in 1v1.
func UpdateTeams(a, b []Player, scoreA float64) (newA, newB []float64, err error) {
	if len(a) == 0 || len(b) == 0 {
		return nil, nil, fmt.Errorf("%w: teams of %d and %d players", ErrInput, len(a), len(b))
	}
	if !(scoreA >= 0 && scoreA <= 1) {
		return nil, nil, fmt.Errorf("%w: team score %v outside [0, 1]", ErrInput, scoreA)
	}
	ra, err := average(a)
	if err != nil {
		return nil, nil, fmt.Errorf("team A: %w", err)
	}
	rb, err := average(b)
	if err != nil {
		return nil, nil, fmt.Errorf("team B: %w", err)
	}
	ea := Expected(ra, rb)
	newA = make([]float64, len(a))
	for i, p := range a {
		newA[i] = p.Rating + K(p)*(scoreA-ea)
	}
	newB = make([]float64, len(b))
	for i, p := range b {
		newB[i] = p.Rating + K(p)*((1-scoreA)-(1-ea))
	}
	return newA, newB, nil
}

func average(team []Player) (float64, error) {
	var sum float64
	for i, p := range team {
		if err := checkRating(p.Rating); err != nil {
			return 0, fmt.Errorf("player %d: %w", i, err)
		}
		sum += p.Rating
	}
	return sum / float64(len(team)), nil
}

// checkRating stops a corrupt stored value from spreading NaN into every
// opponent's rating.
func checkRating(r float64) error {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return fmt.Errorf("%w: rating %v is not a number", ErrInput, r)
	}
	return nil
}
