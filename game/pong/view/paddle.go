package view

import (
	"time"

	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/gameview"
)

// predictedPaddle is where the viewer's paddle is now: the room's position
// at the last frame, moved by the direction in force, then by every input
// the room has not acknowledged yet from the moment it was sent. The same
// MovePaddle maths as the room makes it land where the room will.
func predictedPaddle(snap *pong.Snapshot, v gameview.Viewer, tickRate int) int32 {
	slot := v.Seat
	p := snap.Paddles[slot]
	pos, dir := p.Pos, p.Dir
	t := v.FrameAt
	ticks := func(from, to time.Time) int32 {
		d := min(to.Sub(from), maxAhead)
		if d <= 0 {
			return 0
		}
		return int32(int64(d) * int64(tickRate) / int64(time.Second))
	}
	for _, s := range v.Pending {
		if s.At.After(t) {
			pos = snap.Config.MovePaddle(pos, dir, ticks(t, s.At), slot)
			t = s.At
		}
		dir = s.Action
	}
	unconfirmed := len(v.Pending) > 0
	if v.Held != 0 {
		// A press not sent yet (submits are rate-limited) is drawn from
		// when it was pressed, as if it had gone out then.
		if v.HeldAt.After(t) {
			pos = snap.Config.MovePaddle(pos, dir, ticks(t, v.HeldAt), slot)
			t = v.HeldAt
		}
		dir, unconfirmed = v.Held, true
	}
	last := ticks(t, v.Now)
	if dir != 0 && unconfirmed && !v.Now.Before(t) {
		// A press the room has not confirmed yet shows at once: the
		// frame drawn for the key moves the paddle pressLead ticks (one
		// tick can stay inside a pixel), and real time catches up with
		// that lead within two ticks, so the motion goes on smoothly.
		// The room applies the press at its next tick or the one after,
		// so the lead is about where it will put the paddle.
		last = max(last, pressLead)
	}
	if v.Tap {
		// A tap is drawn where the room will stop it, at once: the cell
		// it moves is the whole answer to the key, and the room gets
		// there within a few ticks. Should a late stop have let the room
		// go further, it is drawn where the room has it.
		if p := snap.Paddles[slot].Pos; (v.TapDir > 0 && p > v.TapTo) || (v.TapDir < 0 && p < v.TapTo) {
			return p
		}
		return v.TapTo
	}
	return snap.Config.MovePaddle(pos, dir, last, slot)
}

// Action is the direction a key moves a side's paddle: paddles on the
// left and right go up and down with w/s or ↑/↓, those on the top and
// bottom left and right with a/d or ←/→. Watchers (seat -1) steer
// nothing.
func (s *Screen) Action(key string, seat int) (int8, bool) {
	if seat < 0 || seat >= 4 {
		return 0, false
	}
	vertical := seat == pong.Left || seat == pong.Right
	switch key {
	case "w", "up":
		return -1, vertical
	case "s", "down":
		return 1, vertical
	case "a", "left":
		return -1, !vertical
	case "d", "right":
		return 1, !vertical
	}
	return 0, false
}

// KeyHelp is the keys of a player in seat.
func (s *Screen) KeyHelp(seat int) string {
	if seat == pong.Left || seat == pong.Right {
		return "w/s ↑/↓ move"
	}
	return "a/d ←/→ move"
}

// Help is every side's keys, and what a tap and a held key do.
func (s *Screen) Help() string {
	return "w/s ↑/↓  move (a/d ←/→ top and bottom) · tap: a cell, hold: glide"
}

// Pos is the seat's paddle position in snap.
func (s *Screen) Pos(snap any, seat int) (int32, bool) {
	p := snapOf(snap)
	if p == nil || seat < 0 || seat >= 4 {
		return 0, false
	}
	return p.Paddles[seat].Pos, true
}

// Drawn is the own paddle's pixels as last painted.
func (s *Screen) Drawn() [4]int32 {
	r := s.ownRect
	return [4]int32{r.x0, r.y0, r.x1, r.y1}
}

// CanMove: a press in dir moves the seat's paddle, from where it was last
// painted, to other pixels (against a wall it does not).
func (s *Screen) CanMove(snap any, seat int, dir int8) bool {
	p := snapOf(snap)
	if p == nil || seat < 0 || seat >= 4 {
		return false
	}
	to := p.Config.MovePaddle(s.ownPos, dir, pressLead, seat)
	return s.bd.paddleRect(seat, to, p.Paddles[seat].Len) != s.ownRect
}

// Tap is a tap from the seat's paddle in snap: the room moves it for
// the ticks to the first position, a whole number of ticks away, at which
// the paddle is drawn one cell further (two pixels down a side, a
// half-row each; one across), or to the wall, then stops it
// (pong.TapAction); 0 when it is at the wall already.
func (s *Screen) Tap(snap any, seat int, dir int8) (action int8, to int32) {
	p := snapOf(snap)
	if p == nil || seat < 0 || seat >= 4 || dir == 0 {
		return 0, 0
	}
	pos := p.Paddles[seat].Pos
	vertical := seat == pong.Left || seat == pong.Right
	if !s.laid {
		// No layout yet: one cell at 1:1, which is how 80×24 draws.
		cell := pong.Sub
		if vertical {
			cell = 2 * pong.Sub
		}
		n := (cell + p.Config.PaddleSpeed - 1) / p.Config.PaddleSpeed
		return pong.TapAction(dir, n), p.Config.MovePaddle(pos, dir, n, seat)
	}
	cell, at := int32(1), func(r prect) int32 { return r.x0 }
	if vertical {
		cell, at = 2, func(r prect) int32 { return r.y0 }
	}
	plen := p.Paddles[seat].Len
	from := at(s.bd.paddleRect(seat, pos, plen))
	to = pos
	for n := int32(1); n <= 63; n++ {
		next := p.Config.MovePaddle(pos, dir, n, seat)
		if next == to {
			if n == 1 {
				return 0, pos // at the wall already
			}
			return pong.TapAction(dir, n-1), to // the wall stops it
		}
		to = next
		if d := at(s.bd.paddleRect(seat, to, plen)) - from; d >= cell || -d >= cell {
			return pong.TapAction(dir, n), to
		}
	}
	return pong.TapAction(dir, 63), to
}

// Rect is the pixels (x0, y0, x1, y1) a paddle of seat at pos, length
// long, is drawn on in the layout last painted.
func (s *Screen) Rect(seat int, pos, length int32) [4]int32 {
	r := s.bd.paddleRect(seat, pos, length)
	return [4]int32{r.x0, r.y0, r.x1, r.y1}
}
