package view

import (
	"strconv"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/screen"
)

// base is where the tests put the view's styles, past a few of the room
// screen's own, as a session does.
const base screen.Style = 5

func newScreen(p colorprofile.Profile, w, h int) (*Screen, *screen.Screen) {
	specs := make([]screen.Spec, int(base)+int(NumStyles))
	copy(specs[base:], Specs(p))
	return NewScreen(base, p), screen.New(w, h, screen.NewPalette(p, specs))
}

// match is a match of mode with every seat taken, after ticks.
func match(t *testing.T, mode pong.Mode, ticks int) *pong.Game {
	t.Helper()
	g := pong.New(pong.DefaultConfig(mode), 42)
	for i := range g.Slots() {
		if err := g.Join(i); err != nil {
			t.Fatal(err)
		}
	}
	for range ticks {
		g.Step(nil)
	}
	return g
}

func snap(g *pong.Game) *pong.Snapshot { return g.Snapshot().(*pong.Snapshot) }

// Paddles on the left and right go up and down, those on the top and
// bottom sideways; a key of the other axis is not a key of that side's,
// and a watcher steers nothing.
func TestKeysFollowTheSide(t *testing.T) {
	s, _ := newScreen(colorprofile.ANSI256, 80, 24)
	for _, c := range []struct {
		key  string
		seat int
		dir  int8
		ok   bool
	}{
		{"w", pong.Left, -1, true}, {"down", pong.Right, 1, true}, {"a", pong.Left, 0, false},
		{"a", pong.Top, -1, true}, {"right", pong.Bottom, 1, true}, {"s", pong.Top, 0, false},
		{"w", -1, 0, false}, {"x", pong.Left, 0, false},
	} {
		dir, ok := s.Action(c.key, c.seat)
		if ok != c.ok || (ok && dir != c.dir) {
			t.Errorf("Action(%q, seat %d) = %d, %v; want %d, %v", c.key, c.seat, dir, ok, c.dir, c.ok)
		}
	}
	if s.KeyHelp(pong.Left) != "w/s ↑/↓ move" || s.KeyHelp(pong.Top) != "a/d ←/→ move" {
		t.Errorf("key help: %q, %q", s.KeyHelp(pong.Left), s.KeyHelp(pong.Top))
	}
}

// The court is played at 1:1 or larger: the least region is its 1:1
// size, a region that size shows it exactly, and a larger one scales it
// up, centred.
func TestCourtFitsAtOneToOneAndScalesUp(t *testing.T) {
	s, _ := newScreen(colorprofile.ANSI256, 80, 24)
	sn := snap(match(t, pong.OneVOne, 0))
	ww, wh, mw, mh := s.Size(sn)
	if ww != int(sn.Width) || wh != (int(sn.Height)+1)/2 || mw != ww || mh != wh {
		t.Fatalf("Size = %d×%d, least %d×%d; court %d×%d units", ww, wh, mw, mh, sn.Width, sn.Height)
	}
	if x, y, w, h, ok := s.Fit(sn, ww, wh); !ok || x != 0 || y != 0 || w != ww || h != wh {
		t.Fatalf("Fit at 1:1 = %d,%d %d×%d %v", x, y, w, h, ok)
	}
	if _, _, _, _, ok := s.Fit(sn, ww-1, wh); ok {
		t.Fatal("the court fits a region narrower than 1:1")
	}
	x, y, w, h, ok := s.Fit(sn, 200, 48)
	if !ok || w <= ww || h <= wh || x != (200-w)/2 || y < 0 || y+h > 48 {
		t.Fatalf("Fit in 200×48 = %d,%d %d×%d %v: not scaled up and centred", x, y, w, h, ok)
	}
}

// cells counts the region's cells that are not blank.
func cells(scr *screen.Screen) int {
	w, h := scr.Size()
	n := 0
	for y := range h {
		for x := range w {
			if c := scr.Get(x, y); c.R != ' ' && c.R != 0 {
				n++
			}
		}
	}
	return n
}

// The court is drawn in the region with half blocks, and only there.
func TestPaintDrawsTheCourtInItsRegion(t *testing.T) {
	s, scr := newScreen(colorprofile.ANSI256, 100, 30)
	sn := snap(match(t, pong.OneVOne, 30))
	now := time.Unix(1000, 0)
	s.Paint(scr, 10, 3, 76, 22, sn, gameview.Viewer{Seat: 0, Now: now, FrameAt: now, TickRate: 60, Live: true})
	if cells(scr) == 0 {
		t.Fatal("nothing painted")
	}
	w, h := scr.Size()
	for y := range h {
		for x := range w {
			if c := scr.Get(x, y); c.R != ' ' && c.R != 0 && (x < 10 || x >= 86 || y < 3 || y >= 25) {
				t.Fatalf("cell %d,%d (%q) is outside the region", x, y, c.R)
			}
		}
	}
	if got := s.Drawn(); got == ([4]int32{}) {
		t.Fatal("the own paddle was not recorded as drawn")
	}
}

// The own paddle is drawn where the player's unconfirmed press takes it,
// at once; a tap is drawn where it will stop.
func TestOwnPaddleIsPredicted(t *testing.T) {
	s, scr := newScreen(colorprofile.ANSI256, 80, 24)
	sn := snap(match(t, pong.OneVOne, 10))
	now := time.Unix(1000, 0)
	vw := gameview.Viewer{Seat: pong.Left, Now: now, FrameAt: now, TickRate: 60, Live: true}
	s.Paint(scr, 0, 1, 80, 22, sn, vw)
	rest := s.Drawn()
	if !s.CanMove(sn, pong.Left, 1) {
		t.Fatal("a press down from mid-court cannot move the paddle")
	}
	vw.Pending = []gameview.Pending{{Action: 1, At: now}}
	vw.Now = now.Add(100 * time.Millisecond)
	s.Paint(scr, 0, 1, 80, 22, sn, vw)
	moved := s.Drawn()
	if moved[1] <= rest[1] {
		t.Fatalf("an unconfirmed press down did not move the own paddle: %v → %v", rest, moved)
	}
	action, to := s.Tap(sn, pong.Left, 1)
	if want := s.Rect(pong.Left, to, sn.Paddles[pong.Left].Len); want[1]-rest[1] != 2 {
		t.Fatalf("a tap from %v stops at %v: not one cell (two pixels) down", rest, want)
	}
	if n := pong.TapTicks(action); n == 0 || sn.Config.MovePaddle(sn.Paddles[pong.Left].Pos, 1, n, pong.Left) != to {
		t.Fatalf("the tap's action %d (%d ticks) does not take the paddle to %d", action, n, to)
	}
	vw = gameview.Viewer{Seat: pong.Left, Now: now.Add(time.Second), FrameAt: now, TickRate: 60, Live: true,
		Pending: []gameview.Pending{{Action: 1, At: now}}, Tap: true, TapDir: 1, TapTo: to}
	s.Paint(scr, 0, 1, 80, 22, sn, vw)
	if got, want := s.Drawn(), s.Rect(pong.Left, to, sn.Paddles[pong.Left].Len); got != want {
		t.Fatalf("a tap is drawn at %v, want where it stops, %v", got, want)
	}
}

// Without colour the own paddle is shaded, and in 2v2 the teammate's
// differently, so four paddles do not look alike.
func TestNoColourMarksOwnAndTeammate(t *testing.T) {
	s, scr := newScreen(colorprofile.Ascii, 80, 24)
	sn := snap(match(t, pong.TwoVTwo, 10))
	now := time.Unix(1000, 0)
	s.Paint(scr, 0, 1, 80, 22, sn, gameview.Viewer{Seat: pong.Top, Now: now, FrameAt: now, TickRate: 60})
	found := map[rune]bool{}
	w, h := scr.Size()
	for y := range h {
		for x := range w {
			found[scr.Get(x, y).R] = true
		}
	}
	if !found['▓'] || !found['▒'] {
		t.Fatalf("no colour: own (▓) %v, teammate (▒) %v", found['▓'], found['▒'])
	}
}

// The header's score: points, a free-for-all's lives or "out", and a
// start's score for a seat that changed hands after the match.
func TestScoreText(t *testing.T) {
	s, _ := newScreen(colorprofile.ANSI256, 80, 24)
	sn := snap(match(t, pong.OneVOne, 0))
	sn.Scores[1] = 3
	if got := s.ScoreText(sn, 1, false); got != " 3" {
		t.Errorf("1v1: %q", got)
	}
	if got := s.ScoreText(sn, 1, true); got != " 0" {
		t.Errorf("1v1, a new player in the seat: %q", got)
	}
	ffa := snap(match(t, pong.FFA4, 0))
	ffa.Lives[2] = 2
	if got := s.ScoreText(ffa, 2, false); got != " ♥2" {
		t.Errorf("free-for-all: %q", got)
	}
	if got := s.ScoreText(ffa, 2, true); got != " ♥"+strconv.Itoa(ffa.Config.Lives) {
		t.Errorf("free-for-all, a new player in the seat: %q", got)
	}
	ffa.Paddles[3].Out = true
	if got := s.ScoreText(ffa, 3, false); got != " out" {
		t.Errorf("free-for-all, out: %q", got)
	}
	if got := s.FollowText(ffa, 2, false); got != "2 lives · 0 hits" {
		t.Errorf("follow text: %q", got)
	}
	if s.Teams(sn) != nil || len(s.Teams(snap(match(t, pong.TwoVTwo, 0)))) != 2 {
		t.Error("teams: only 2v2 has them")
	}
}

// Who scored shows between the point and the next serve, not before the
// first point or once the ball is back in play.
func TestScoredUntilTheNextServe(t *testing.T) {
	s, _ := newScreen(colorprofile.ANSI256, 80, 24)
	g := match(t, pong.OneVOne, 0)
	if by := s.Scored(snap(g)); by != -1 {
		t.Fatalf("before any point: %d", by)
	}
	for i := 0; i < 60*60; i++ {
		g.Step([]game.Input{{Slot: pong.Left, Action: -1}, {Slot: pong.Right, Action: -1}}) // both hide in a corner
		if sn := snap(g); sn.LastPointAgainst >= 0 {
			if by, want := s.Scored(sn), 1-int(sn.LastPointAgainst); by != want {
				t.Fatalf("just after side %d scored: %d", want, by)
			}
			for range pointShown {
				g.Step(nil)
			}
			if by := s.Scored(snap(g)); by != -1 {
				t.Fatalf("%d ticks after the point: %d", pointShown, by)
			}
			return
		}
	}
	t.Fatal("no point was scored in a minute")
}

// Another player's tap is drawn stopping where the room will stop it,
// not carried on by extrapolation until the next frame says so.
func TestOthersTapIsNotExtrapolatedPastItsEnd(t *testing.T) {
	s, scr := newScreen(colorprofile.ANSI256, 80, 24)
	g := match(t, pong.OneVOne, 10)
	g.Step([]game.Input{{Slot: pong.Left, Action: pong.TapAction(1, 3)}})
	sn := snap(g)
	if sn.Paddles[pong.Left].Tap != 2 {
		t.Fatalf("after one of three ticks the snapshot says %d ticks left", sn.Paddles[pong.Left].Tap)
	}
	now := time.Unix(1000, 0)
	// A watcher drawing 200 ms (12 ticks) after the frame.
	s.Paint(scr, 0, 1, 80, 22, sn, gameview.Viewer{Seat: -1, Now: now.Add(200 * time.Millisecond), FrameAt: now, TickRate: 60, Live: true})
	want := s.Rect(pong.Left, sn.Config.MovePaddle(sn.Paddles[pong.Left].Pos, 1, 2, pong.Left), sn.Paddles[pong.Left].Len)
	got := s.bd.dyn[0] // the paddles as drawn, in side order
	if [4]int32{got.x0, got.y0, got.x1, got.y1} != want {
		t.Fatalf("the left paddle drawn at %+v, want where its tap ends, %v", got, want)
	}
}
