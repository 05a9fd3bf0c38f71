package tui

import (
	"time"
)

// keyEvent is a direction intent from the Bubble Tea program.
type keyEvent struct {
	dir     int8 // -1 up/left, +1 down/right
	release bool
	repeat  bool
	poke    bool // no key: a new size or palette is waiting
	at      time.Time
	// An event game's action (acted) or a watcher's camera key (look).
	act   int8
	acted bool
	look  string
}

// control turns key presses (and releases, when the terminal reports them)
// into the direction a Steered game's room should apply (a paddle's).
type control struct {
	dir       int8
	sentDir   int8
	holdUntil time.Time
	lastPress time.Time
	lastDir   int8
	releases  bool // the terminal reports key releases (kitty protocol)
	// at is when dir was chosen: the key's read time, or when the view
	// ended a hold or a tap for the player. The room judges the input
	// against what the player's screen showed then (seenTick).
	at time.Time
	// tap: dir is a tap's, which the view ends once the room has moved the
	// paddle one cell (see RoomView.checkTap), not a held key's.
	tap bool
}

func (c *control) press(e keyEvent) {
	repeat := e.repeat || (e.dir == c.lastDir && e.at.Sub(c.lastPress) < repeatGap)
	c.dir, c.lastPress, c.lastDir, c.at = e.dir, e.at, e.dir, e.at
	// With key releases the key is held until it is released.
	c.tap = !c.releases && !repeat
	if !c.releases && repeat {
		c.holdUntil = e.at.Add(holdRepeat)
	}
}

func (c *control) release(e keyEvent) {
	c.releases = true
	if c.dir == e.dir {
		c.dir, c.tap, c.at = 0, false, e.at
	}
}

func (c *control) expire(now time.Time) {
	if !c.releases && !c.tap && c.dir != 0 && now.After(c.holdUntil) {
		c.dir, c.at = 0, now
	}
}

// tapState follows a tap from the press until the room has applied its
// stop. The room moves the piece a whole number of ticks, so the game's
// view picks the first position, whole ticks away, where the piece is
// drawn one cell on (to: gameview.Steered.TapTo); the room screen sends
// the direction, and sends the stop as soon as a frame shows the piece
// there: the room applies it before its next tick.
type tapState struct {
	active   bool // the direction is in force; the stop is not sent yet
	clamp    bool // prediction stops at to: until the room applied the stop
	dir      int8
	seq      uint32 // the tap's direction input, 0 until sent
	stopSeq  uint32
	to       int32
	last     int32  // confirmed position at lastTick
	lastTick uint64 // 0: no frame seen since the room applied the tap
	began    time.Time
}

// keyTap updates the tap after a key press (or release) and reports
// whether a new tap has begun.
func (v *RoomView) keyTap(press bool) bool {
	if !v.ctl.tap {
		// A held key, or the release of the tap's key, takes over from
		// a tap: the paddle moves as the key says from now on.
		v.tap.active, v.tap.clamp = false, false
		v.tapTimer.Stop()
		return false
	}
	if !press {
		return false // another key's release: the tap goes on
	}
	v.tapTimer.Stop()
	dir := v.ctl.dir
	v.tap = tapState{active: true, dir: dir, began: v.cfg.Now()}
	if st := v.steered(); st != nil && v.fr != nil {
		if _, ok := st.Pos(v.fr.State, v.cfg.Slot); ok {
			v.tap.clamp = true
			v.tap.to = st.TapTo(v.fr.State, v.cfg.Slot, dir)
		}
	}
	return true
}

// checkTap runs when a room frame is due during a tap: once the room has
// moved the paddle to the tap's end, it sends the stop. It reports whether
// to look again at the next frame.
func (v *RoomView) checkTap() bool {
	t := &v.tap
	if !t.active {
		return false
	}
	v.poll()
	slot := v.cfg.Slot
	st := v.steered()
	var pos int32
	ok := st != nil && v.fr != nil
	if ok {
		pos, ok = st.Pos(v.fr.State, slot)
	}
	if !ok || !v.live() || v.cfg.Now().Sub(t.began) > tapMax {
		v.endTap()
		return false
	}
	if t.seq == 0 {
		if v.ctl.sentDir != t.dir {
			v.submit()
			return true // not sent yet (rate limit, full buffer)
		}
		t.seq = v.seq
	}
	if slot >= len(v.fr.Acks) || v.fr.Acks[slot] < t.seq {
		return true
	}
	tick := v.fr.Tick
	there := (t.dir > 0 && pos >= t.to) || (t.dir < 0 && pos <= t.to)
	stuck := t.lastTick != 0 && tick > t.lastTick && pos == t.last
	if tick != t.lastTick {
		t.last, t.lastTick = pos, tick
	}
	if there || stuck {
		v.endTap()
		return false
	}
	return true
}

// endTap stops the paddle: the stop goes out at once, whatever the submit
// gap, because the room's next tick would move the paddle past the cell.
func (v *RoomView) endTap() {
	v.tap.active = false
	v.ctl.tap = false
	if v.ctl.dir == v.tap.dir {
		v.ctl.dir, v.ctl.at = 0, v.cfg.Now()
	}
	if v.send(true) {
		v.tap.stopSeq = v.seq
	} else {
		v.tap.clamp = false // the stop goes out later: no prediction to hold
	}
}

// armTap sets the tap timer for when the room's next frame is due, and
// returns its channel.
func (v *RoomView) armTap() <-chan time.Time {
	period := time.Second / 60
	if v.fr != nil && v.fr.TickRate > 0 {
		period = time.Second / time.Duration(v.fr.TickRate)
	}
	d := v.frAt.Add(period + tapWakeLag).Sub(v.cfg.Now())
	d = min(max(d, time.Millisecond), 2*period)
	v.tapTimer.Reset(d)
	return v.tapTimer.C
}
