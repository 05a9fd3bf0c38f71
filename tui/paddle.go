package tui

import (
	"time"

	"github.com/termarena/termarena/game"
)

// keyEvent is what the session hands the room screen's goroutine: a
// player's key (key), which the game's view maps there, or a direction
// or action already mapped (tests, and the mapping's result), or a poke.
type keyEvent struct {
	key     string // a player's key as the terminal named it; "" once mapped
	dir     int8   // -1 up/left, +1 down/right
	release bool
	repeat  bool
	poke    bool // no key: a new size or palette is waiting
	whole   bool // with poke: the terminal was handed over: paint it all
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
	// tap: the press is a tap's (a lone press), which the room carries
	// out (see inputs.keyTap), not a held key's.
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

// tapState follows a tap from the press until the room has carried it
// out. The game's view measures the tap (gameview.Steered.Tap): the
// action that moves the piece one cell, which the room carries out tick
// for tick and ends by itself, and where the piece then stands (to), where
// prediction draws it at once and until a frame shows the room done.
type tapState struct {
	clamp    bool // prediction draws the piece at to
	dir      int8
	seq      uint32 // the tap's input
	to       int32
	last     int32  // confirmed position at lastTick
	lastTick uint64 // 0: no frame seen since the room applied the tap
	began    time.Time
}

// keyTap starts a tap after a key press that is one (control.tap) and
// sends it; a held key, or the release of the tap's key, takes over from
// a tap: the piece moves as the key says from now on.
func (in *inputs) keyTap(press bool) {
	if !in.ctl.tap {
		in.tap.clamp = false
		return
	}
	if !press {
		return // another key's release: the tap goes on
	}
	dir, at := in.ctl.dir, in.ctl.at
	// The room ends the tap itself: nothing is held, and nothing must
	// be sent to stop it.
	in.ctl.dir, in.ctl.tap, in.ctl.sentDir = 0, false, 0
	in.tap = tapState{dir: dir, began: in.now()}
	if in.steer == nil || in.fr == nil {
		return
	}
	action, to := in.steer.Tap(in.fr.State, in.slot, dir)
	if action == 0 || !in.sendInput(action, at) {
		return // against the wall, or the room's buffer is full
	}
	in.tap.clamp, in.tap.to, in.tap.seq = true, to, in.seq
}

// tapDone ends the tap's prediction once fr shows the room has carried it
// out: the piece stands at the tap's end, or has stopped short of it (a
// wall, a pause), or the frames stopped coming.
func (in *inputs) tapDone(fr *game.Frame, ack uint32) {
	t := &in.tap
	if !t.clamp || ack < t.seq {
		return
	}
	pos, ok := in.steer.Pos(fr.State, in.slot)
	there := (t.dir > 0 && pos >= t.to) || (t.dir < 0 && pos <= t.to)
	stuck := t.lastTick != 0 && fr.Tick > t.lastTick && pos == t.last
	if fr.Tick != t.lastTick {
		t.last, t.lastTick = pos, fr.Tick
	}
	if !ok || there || stuck || in.now().Sub(t.began) > tapMax {
		t.clamp = false
	}
}
