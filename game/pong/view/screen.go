// Package view paints a Pong match (game/pong) for one viewer into a
// session's cell grid (screen): the game's half of the plug-in seam
// (gameview), next to the rules. It owns the court's layout (scaled to the
// region it is given, never below 1:1), the half-block drawing, the own
// paddle's prediction and the length of a tap, the keys of each side, and
// what the header says of each seat; the room screen (tui) owns the rest.
//
// A frame costs what moved: walls are painted once per layout, and each
// frame repaints only the cells that the paddles and the ball left or
// entered, allocating nothing. Measured at 80×24 (BENCHMARKS.md, "Game
// screen render"): about 1 µs and 54 B a frame, 1.09× the ideal cell diff.
package view

import (
	"fmt"
	"strconv"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/screen"
)

const (
	// maxAhead caps extrapolation, so a stalled room freezes the picture
	// rather than letting objects drift away.
	maxAhead = 250 * time.Millisecond
	// pressLead is how many ticks ahead an unconfirmed press is drawn.
	pressLead = 2
	// pointShown is how long (ticks) "point: NAME" stays over the court.
	pointShown = 45
)

// Screen is the Pong view as the room screen hosts it. Like the screen it
// paints on, it belongs to the session's frame loop: not safe for
// concurrent use, except Action and KeyHelp, which read nothing of it.
type Screen struct {
	colour bool
	bd     board
	// laid: bd is laid out for region reg and a court of court units.
	laid  bool
	reg   [4]int
	court [2]int32
	// valid: the court's cells on the screen are as bd last painted them.
	valid  bool
	follow int
	// The own paddle as last painted: its position and pixels.
	ownPos  int32
	ownRect prect
	// The header asks for every seat's score each frame; the text is
	// made only when the score changes, so frames allocate nothing.
	scores   [4]scoreText
	followed scoreText
	teams    [][]int // 2v2's, for Teams; callers only read it
}

// scoreText is a score's text and the figures it was made from.
type scoreText struct {
	made bool
	key  [3]int32
	text string
}

// get returns the text for key, making it with f when key changed.
func (c *scoreText) get(key [3]int32, f func() string) string {
	if !c.made || c.key != key {
		c.made, c.key, c.text = true, key, f()
	}
	return c.text
}

// NewScreen returns the hosted view, its styles from base in the session's
// palette.
func NewScreen(base screen.Style, p colorprofile.Profile) *Screen {
	s := &Screen{follow: -1, teams: pong.Teams2v2()}
	s.bd.base = base
	s.SetProfile(p)
	return s
}

// Styles are the view's NumStyles style specs for profile p.
func (s *Screen) Styles(p colorprofile.Profile) []screen.Spec { return Specs(p) }

// SetProfile switches colour profile: without colour the own paddle and a
// teammate's are shaded so the four paddles do not look alike.
func (s *Screen) SetProfile(p colorprofile.Profile) {
	s.colour = p >= colorprofile.ANSI
	s.valid = false
}

// Invalidate makes the next Paint redraw the whole court.
func (s *Screen) Invalidate() { s.valid = false }

// Restore repaints the court's cells within x, y, w, h as last painted
// (gameview.Restorer): an overlay's cells, a few dozen, rather than the
// whole court. Before the court was painted, or once it is invalid, the
// next Paint redraws it all anyway.
func (s *Screen) Restore(scr *screen.Screen, x, y, w, h int) {
	if !s.laid || !s.valid {
		return
	}
	s.bd.restore(scr, x, y, w, h)
}

func snapOf(snap any) *pong.Snapshot {
	p, _ := snap.(*pong.Snapshot)
	return p
}

// Size is the court at 1:1 (one unit a column and a half row): the least
// region it can be played in, and the one it is whole in; larger regions
// show it scaled up.
func (s *Screen) Size(snap any) (wholeW, wholeH, minW, minH int) {
	p := snapOf(snap)
	if p == nil {
		return 1, 1, 1, 1
	}
	w, h := int(p.Width), (int(p.Height)+1)/2
	return w, h, w, h
}

// ResultScore labels a free-for-all's score, which is lives left ("♥1
// left", "out"); a 1v1's or 2v2's is points, the bare number.
func (s *Screen) ResultScore(snap any, score int) string {
	if p := snapOf(snap); p == nil || p.Mode != pong.FFA4 {
		return strconv.Itoa(score)
	}
	if score <= 0 {
		return "out"
	}
	return fmt.Sprintf("♥%d left", score)
}

// MinSize is the court of mode's default config at one cell per unit:
// Pong's board scales down no further (76×20 for 1v1, 44×22 for 2v2 and
// free-for-all).
func (s *Screen) MinSize(mode string) (w, h int, ok bool) {
	m, err := pong.ParseMode(mode)
	if err != nil {
		return 0, 0, false
	}
	c := pong.DefaultConfig(m)
	return int(c.Width), (int(c.Height) + 1) / 2, true
}

// Fit is where the court goes in a region of cols × rows: scaled as large
// as it fits in quarter steps, centred.
func (s *Screen) Fit(snap any, cols, rows int) (x, y, w, h int, ok bool) {
	p := snapOf(snap)
	if p == nil {
		return 0, 0, 0, 0, false
	}
	var b board
	if !b.layout(cols, rows, 0, p.Width, p.Height) {
		return 0, 0, 0, 0, false
	}
	x, y, w, h = b.cellRect()
	return x, y, w, h, true
}

// Paint draws the court in the region for v: the paddles and the ball
// extrapolated to v.Now while the match is in play, the viewer's own
// paddle where their keys are taking it, a followed player's paddle
// highlighted.
func (s *Screen) Paint(scr *screen.Screen, x, y, w, h int, snap any, v gameview.Viewer) {
	p := snapOf(snap)
	if p == nil {
		return
	}
	if reg, court := [4]int{x, y, w, h}, [2]int32{p.Width, p.Height}; !s.laid || reg != s.reg || court != s.court {
		if !s.bd.layout(w, h, y, p.Width, p.Height) {
			s.laid = false
			return
		}
		s.bd.col0 += x
		s.bd.walls = nil
		s.laid, s.reg, s.court, s.valid = true, reg, court, false
	}
	marks := s.bd.setMarks(s.colour, v.Seat, p.Mode)
	if walls := s.bd.setWalls(p); walls || marks || !s.valid {
		s.bd.paintAll(scr)
		s.valid = true
	}
	ahead := v.Now.Sub(v.FrameAt)
	if !v.Live || ahead < 0 {
		ahead = 0
	}
	ahead = min(ahead, maxAhead)
	rate := max(v.TickRate, 1)
	var objs [5]prect
	n := 0
	for side := range 4 {
		pd := p.Paddles[side]
		if !pd.Present {
			continue
		}
		pos := pd.Pos
		switch {
		case side == v.Seat && v.Live:
			pos = predictedPaddle(p, v, rate)
		case v.Live:
			n := int32(int64(ahead) * int64(rate) / int64(time.Second))
			if pd.Tap > 0 {
				n = min(n, pd.Tap) // the room stops a tap by itself
			}
			pos = p.Config.MovePaddle(pos, pd.Dir, n, side)
		}
		objs[n] = s.bd.paddleRect(side, pos, pd.Len)
		if side == v.Seat {
			s.ownPos, s.ownRect = pos, objs[n]
		}
		if s.follow == side {
			objs[n].c = pxBall // the followed player's paddle stands out
		}
		n++
	}
	bx, by := p.BallAt(pong.FracTicks(ahead, rate))
	objs[n] = s.bd.ballRect(bx, by)
	n++
	s.bd.move(scr, objs[:n])
}

// Look: a watcher has no camera to move; the court is always whole.
func (s *Screen) Look(string) bool { return false }

// Follow is the slot a watcher follows (-1: none): its paddle is drawn in
// the ball's colour.
func (s *Screen) Follow(slot int) { s.follow = slot }

// Seat describes slot: no letter (paddles are told apart by their side),
// its side's colour, its points (lives in a free-for-all), and whether it
// is out of a free-for-all.
func (s *Screen) Seat(snap any, slot int) (mark rune, st screen.Style, score int, out bool) {
	p := snapOf(snap)
	if p == nil || slot < 0 || slot >= 4 {
		return ' ', 0, 0, false
	}
	score = int(p.Scores[slot])
	if p.Mode == pong.FFA4 {
		score = int(p.Lives[slot])
	}
	return ' ', s.bd.base + stSeat0 + screen.Style(slot), score, p.Paddles[slot].Out
}

// SeatLabel is the side a slot plays, padded to line up.
func (s *Screen) SeatLabel(_ any, slot int) string {
	return fmt.Sprintf("%-7s", pong.SideNames(4)[slot%4])
}

// Status: Pong's header has no match line.
func (s *Screen) Status(any) string { return "" }

// Over reports whether the match in snap has ended.
func (s *Screen) Over(snap any) bool {
	p := snapOf(snap)
	return p != nil && p.Over
}

// LookHelp: a watcher has no camera keys.
func (s *Screen) LookHelp() string { return "" }

// Teams are 2v2's: left and right against top and bottom. The header
// asks every frame, so the view hands out the one list it made.
func (s *Screen) Teams(snap any) [][]int {
	if p := snapOf(snap); p != nil && p.Mode == pong.TwoVTwo {
		return s.teams
	}
	return nil
}

// ScoreText is slot's score for the header: points, or a free-for-all's
// lives (" out" once they are gone). fresh: the seat changed hands after
// the match, so it shows a start's score, not the match's.
func (s *Screen) ScoreText(snap any, slot int, fresh bool) string {
	p := snapOf(snap)
	if p == nil || slot < 0 || slot >= 4 {
		return ""
	}
	score, lives, out := p.Scores[slot], p.Lives[slot], p.Paddles[slot].Out
	if fresh {
		score, lives, out = 0, 0, false
		if p.Config != nil {
			lives = int32(p.Config.Lives)
		}
	}
	if p.Mode != pong.FFA4 {
		return s.scores[slot].get([3]int32{0, score}, func() string { return fmt.Sprintf(" %d", score) })
	}
	if out {
		return " out"
	}
	return s.scores[slot].get([3]int32{1, lives}, func() string { return fmt.Sprintf(" ♥%d", lives) })
}

// FollowText is a followed player's match so far.
func (s *Screen) FollowText(snap any, slot int, fresh bool) string {
	p := snapOf(snap)
	if p == nil || slot < 0 || slot >= 4 {
		return ""
	}
	score, lives, hits := p.Scores[slot], p.Lives[slot], p.Hits[slot]
	if fresh {
		score = 0
		if p.Config != nil {
			lives = int32(p.Config.Lives)
		}
	}
	if p.Mode == pong.FFA4 {
		return s.followed.get([3]int32{1, lives, hits}, func() string { return fmt.Sprintf("%d lives · %d hits", lives, hits) })
	}
	return s.followed.get([3]int32{0, score, hits}, func() string { return fmt.Sprintf("%d points · %d hits", score, hits) })
}

// Scored is the side credited with the point just played, for the
// moment before the next serve; -1 for none.
func (s *Screen) Scored(snap any) int {
	p := snapOf(snap)
	if p == nil || p.Ball.Live || p.LastPointAgainst < 0 || p.Tick-p.LastPointTick >= pointShown {
		return -1
	}
	return int(p.LastPointBy)
}

// The room screen finds these by type assertion: a change to the contract
// must fail here, not at run time.
var (
	_ gameview.View       = (*Screen)(nil)
	_ gameview.Steered    = (*Screen)(nil)
	_ gameview.Scaled     = (*Screen)(nil)
	_ gameview.Scoreboard = (*Screen)(nil)
)
