package view

import (
	"fmt"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game/tron"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/screen"
)

// Screen is the light-cycle view as the room screen hosts it (the room
// screen's plug-in view): it picks the camera for the viewer, turns keys
// into turns and camera moves, and describes seats and the match for the
// HUD the room screen draws around the board. Like View, it belongs to
// the session's frame loop.
type Screen struct {
	v      *View
	follow int  // the slot a watcher follows, -1 for the overview
	free   bool // a watcher's free camera, centred on fx, fy
	fx, fy int
	acts   []int8 // scratch: the viewer's pending turns
	// The match line as last made, and what it was made from.
	status     string
	statusKey  [5]int
	statusMade bool
}

// NewScreen returns the hosted view, its styles from base in the session's
// palette.
func NewScreen(base screen.Style, p colorprofile.Profile) *Screen {
	return &Screen{v: New(base, p), follow: -1}
}

// Styles are the view's NumStyles style specs for profile p.
func (s *Screen) Styles(p colorprofile.Profile) []screen.Spec { return Specs(p) }

// SetProfile switches colour profile.
func (s *Screen) SetProfile(p colorprofile.Profile) { s.v.SetProfile(p) }

// Invalidate makes the next Paint redraw the whole region.
func (s *Screen) Invalidate() { s.v.Invalidate() }

// leastW and leastH are the smallest board region worth playing in: a
// following camera shows 20 cells either way of the head, a second at
// full speed.
const leastW, leastH = 40, 10

// Size is the region that shows the whole arena with its border, and the
// least one a camera can be played in.
func (s *Screen) Size(snap any) (wholeW, wholeH, minW, minH int) {
	t, ok := snap.(*tron.Snapshot)
	if !ok {
		return leastW, leastH, leastW, leastH
	}
	wholeW, wholeH = WholeSize(t.Width, t.Height)
	return wholeW, wholeH, min(leastW, wholeW), min(leastH, wholeH)
}

// ResultScore is a rider's round wins.
func (s *Screen) ResultScore(_ any, score int) string {
	if score == 1 {
		return "1 round"
	}
	return fmt.Sprintf("%d rounds", score)
}

// MinSize is the least camera region, in every mode: a smaller terminal
// than the arena follows the rider.
func (s *Screen) MinSize(mode string) (w, h int, ok bool) {
	if _, err := tron.ParseMode(mode); err != nil {
		return 0, 0, false
	}
	return leastW, leastH, true
}

// Paint draws snap into the region for vw (Seat -1 for a watcher), with
// the seat's unconfirmed turns predicted. A rider sees the whole arena
// when the region holds it and follows their own cycle otherwise; a
// watcher sees what their camera keys chose.
func (s *Screen) Paint(scr *screen.Screen, x, y, w, h int, snap any, vw gameview.Viewer) {
	t, ok := snap.(*tron.Snapshot)
	if !ok {
		return
	}
	seat := vw.Seat
	s.acts = s.acts[:0]
	for _, p := range vw.Pending {
		s.acts = append(s.acts, p.Action)
	}
	pending := s.acts
	ww, wh := WholeSize(t.Width, t.Height)
	var cam Camera
	switch {
	case seat >= 0 && w >= ww && h >= wh:
		cam = Whole()
	case seat >= 0:
		cam = Follow(seat)
	case s.free:
		cam = Free(s.fx, s.fy)
	case s.follow >= 0:
		cam = Follow(s.follow)
	default:
		cam = Whole()
	}
	s.v.SetCamera(cam)
	s.v.Paint(scr, Rect{x, y, w, h}, t, Viewer{Slot: seat, Pending: pending})
	if s.free {
		s.fx, s.fy = s.v.Center() // panning goes on from a clamped centre
	}
}

// Action is the turn a player's key means, whatever their seat.
func (s *Screen) Action(key string, _ int) (int8, bool) { return Action(key) }

// pan is how far a watcher's arrow key moves the free camera, in cells.
const pan = 8

// Look takes a watcher's camera key: f switches the free camera on and
// off, arrows (or WASD) pan it, switching it on from wherever the view was
// centred, and 0 (the overview) switches it off.
func (s *Screen) Look(key string) bool {
	if key == "0" {
		s.free = false
		return true
	}
	if key == "f" {
		s.free = !s.free
		s.fx, s.fy = s.v.Center()
		return true
	}
	a, ok := Action(key)
	if !ok {
		return false
	}
	if !s.free {
		s.free = true
		s.fx, s.fy = s.v.Center()
	}
	dx, dy := tron.Delta(a)
	s.fx += pan * dx
	s.fy += pan * dy
	return true
}

// Follow is the slot the watcher follows (-1: none); following a rider
// ends the free camera.
func (s *Screen) Follow(slot int) {
	if slot != s.follow {
		s.follow = slot
		if slot >= 0 {
			s.free = false
		}
	}
}

// Seat describes slot for the HUD: its letter on a board without colour,
// the style of its name, its rounds won, and whether it is out of the
// round being ridden.
func (s *Screen) Seat(snap any, slot int) (mark rune, st screen.Style, score int, out bool) {
	t, ok := snap.(*tron.Snapshot)
	if !ok || slot < 0 || slot >= t.Slots {
		return ' ', 0, 0, false
	}
	c := &t.Cycles[slot]
	return Letter(slot), s.v.base + stName0 + screen.Style(slot), int(c.Wins), c.Left || (c.Rider && !c.Alive && !t.Over)
}

// SeatLabel is a seat's letter (its mark without colour) and number.
func (s *Screen) SeatLabel(_ any, slot int) string {
	return fmt.Sprintf("%c seat %d", Letter(slot), slot+1)
}

// Status is the match line: the round, the target and what the round is
// doing. The room screen asks every frame; the line is made only when it
// changes, so a frame allocates nothing.
func (s *Screen) Status(snap any) string {
	t, ok := snap.(*tron.Snapshot)
	if !ok {
		return ""
	}
	h := s.v.HUD(t)
	key := [5]int{int(h.Round), h.RoundsToWin, int(h.Phase), h.Seconds, h.Riding}
	if s.statusMade && key == s.statusKey {
		return s.status
	}
	line := fmt.Sprintf("round %d · first to %d", h.Round, h.RoundsToWin)
	switch txt := h.Text(); {
	case h.Phase == Play:
		line += fmt.Sprintf(" · %d riding", h.Riding)
	case h.Seconds > 0:
		line += fmt.Sprintf(" · %s %d", txt, h.Seconds)
	case txt != "":
		line += " · " + txt
	}
	s.status, s.statusKey, s.statusMade = line, key, true
	return line
}

// Over reports whether the match in snap has ended.
func (s *Screen) Over(snap any) bool {
	t, ok := snap.(*tron.Snapshot)
	return ok && t.Over
}

// KeyHelp is the riders' key line; LookHelp the watchers' camera keys.
func (s *Screen) KeyHelp(int) string { return KeyHelp }
func (s *Screen) LookHelp() string   { return "f/arrows camera" }

// Help is the riders' keys and the watchers' camera.
func (s *Screen) Help() string {
	return KeyHelp + " · watching: f free camera, 0 overview"
}

// The room screen hosts it through the gameview contract.
var _ gameview.View = (*Screen)(nil)
