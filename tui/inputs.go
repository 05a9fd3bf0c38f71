package tui

import (
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/gameview"
)

// inputs is the player's side of a room screen: the room's latest frame
// the screen took, the keys turned into the game's inputs (a Steered
// game's held direction and taps, an event game's actions), the inputs
// sent that the room has not confirmed yet, which the board is drawn
// with (prediction), and the key being timed until a frame shows it.
// It belongs to the screen's goroutine.
type inputs struct {
	room  RoomHandle
	me    game.PlayerID
	slot  int // -1: no seat (a watcher, a replay)
	game  gameview.View
	steer gameview.Steered // the game's view, when it is steered (nil: not)
	now   func() time.Time
	rtt   func() time.Duration // nil: unknown

	fr       *game.Frame // the room's latest frame taken (poll)
	frAt     time.Time   // when the room published it
	ctl      control
	pending  []sent
	seq      uint32
	lastSent time.Time
	tap      tapState
	keyAt    time.Time          // read time of a move not yet shown in a written frame
	keyRect  [4]int32           // where a Steered game drew the own piece when that key came
	acts     []gameview.Pending // scratch for the viewer's pending inputs
}

type sent struct {
	seq    uint32
	action int8 // a direction, or a Steered game's tap, or an event
	at     time.Time
}

// shown ends the timing of the key being timed once the frame just
// written, at done, shows its move: a steered piece left its cells, or an
// event game drew the action in the frame made for it. m gets the key's
// input-to-frame time (done is zero without m).
func (in *inputs) shown(done time.Time, m FrameMetrics) {
	shown := !in.keyAt.IsZero()
	if st := in.steer; shown && st != nil {
		shown = st.Drawn() != in.keyRect
	}
	if m != nil && shown {
		m.InputToFrame(done.Sub(in.keyAt))
	}
	if shown {
		in.keyAt = time.Time{}
	}
}

// settled stops timing a key when the game is not in play: no frame
// will show its move.
func (in *inputs) settled() {
	if !in.live() {
		in.keyAt = time.Time{}
	}
}

// steerKey carries out a Steered game's key press or release: the control
// takes it and the room gets the new direction now; the next frame draws it.
func (in *inputs) steerKey(k keyEvent) {
	before := in.ctl.dir
	if k.release {
		in.ctl.release(k)
	} else {
		in.ctl.press(k)
	}
	// A key is timed until a frame shows the paddle move: only a press
	// that starts the paddle from rest towards where it can go. A key
	// during a pause or into a wall has no frame that shows it, and a
	// reversal may leave the paddle on the same pixels it was drawn on,
	// though it does change its course.
	if d := in.ctl.dir; d != 0 && before == 0 && in.keyAt.IsZero() && in.canMove(d) {
		in.keyAt, in.keyRect = k.at, in.steer.Drawn()
	}
	in.keyTap(!k.release)
	in.submit()
}

// submit sends the control's direction to the room when it changed, at
// most once per submitGap. A rejected submit (room buffer full, or too
// soon) is retried on the next frame.
func (in *inputs) submit() {
	if in.ctl.dir == in.ctl.sentDir || in.now().Sub(in.lastSent) < submitGap {
		return
	}
	if in.sendInput(in.ctl.dir, in.ctl.at) {
		in.ctl.sentDir = in.ctl.dir
	}
}

// sendInput submits action, chosen at `at`, as the player's next input,
// and keeps it for prediction until the room acknowledges it.
func (in *inputs) sendInput(action int8, at time.Time) bool {
	now := in.now()
	in.seq++
	input := game.Input{Slot: in.slot, Seq: in.seq, Action: action, Seen: in.seenTick(at, now)}
	if !in.room.Submit(in.me, input) {
		in.seq--
		return false
	}
	in.lastSent = now
	in.pending = append(in.pending, sent{in.seq, action, now})
	if len(in.pending) > 64 { // never grows without bound if acks stop
		in.pending = append(in.pending[:0], in.pending[len(in.pending)-64:]...)
	}
	return true
}

// seenTick is the room tick the player's screen showed at `at`, when they
// chose what the input says (game.Input.Seen): a frame written here reaches
// the screen half a round trip later and the key comes back in the other
// half, so the screen showed what this view drew a round trip before the
// key was read. The view draws the game extrapolated to the moment it
// writes, so that is the tick the room was at then. 0 (unknown) before a
// match has stepped.
func (in *inputs) seenTick(at, now time.Time) uint64 {
	fr := in.fr
	if fr == nil || fr.Tick == 0 || fr.TickRate <= 0 {
		return 0
	}
	if at.IsZero() || at.After(now) {
		at = now
	}
	if in.rtt != nil {
		if rtt := in.rtt(); rtt > 0 {
			at = at.Add(-rtt)
		}
	}
	// Bounded so the product cannot overflow; the room caps the lag far
	// below a minute anyway.
	d := min(max(at.Sub(in.frAt), -time.Minute), time.Minute)
	t := int64(fr.Tick) + int64(d)*int64(fr.TickRate)/int64(time.Second)
	return uint64(max(t, 1))
}

// setFrame shows fr, published at `at`: extrapolation runs from then.
func (in *inputs) setFrame(fr *game.Frame, at time.Time) {
	if fr == nil {
		return
	}
	if at.IsZero() {
		at = in.now()
	}
	in.fr, in.frAt = fr, at
	if in.slot >= 0 && in.slot < len(fr.Acks) {
		ack := fr.Acks[in.slot]
		i := 0
		for i < len(in.pending) && in.pending[i].seq <= ack {
			i++
		}
		in.pending = append(in.pending[:0], in.pending[i:]...)
		in.tapDone(fr, ack)
	}
}

// canMove: the game is in play and a press in direction dir moves the own
// piece, from where it was last drawn, to other cells (near a wall it may
// not: then no frame will show the key).
func (in *inputs) canMove(dir int8) bool {
	st := in.steer
	return st != nil && in.live() && in.slot >= 0 && st.CanMove(in.fr.State, in.slot, dir)
}

// live: the game is in play, so the player's keys move their piece.
func (in *inputs) live() bool {
	gv := in.game
	return gv != nil && in.fr != nil && in.fr.Phase == game.Playing && !in.fr.Paused && !gv.Over(in.fr.State)
}

// sendAction submits an event game's action at once: an action is an
// event (a turn), so none is merged or held back, and the view draws it
// before the room confirms it.
func (in *inputs) sendAction(k keyEvent) {
	if in.slot < 0 || !in.live() {
		return
	}
	in.seq++
	input := game.Input{Slot: in.slot, Seq: in.seq, Action: k.act, Seen: in.seenTick(k.at, in.now())}
	if !in.room.Submit(in.me, input) {
		in.seq--
		return
	}
	in.pending = append(in.pending, sent{in.seq, k.act, k.at})
	if len(in.pending) > 64 { // never grows without bound if acks stop
		in.pending = append(in.pending[:0], in.pending[len(in.pending)-64:]...)
	}
	if in.keyAt.IsZero() {
		in.keyAt = k.at
	}
}

// viewer is who the board is painted for at now, with the player's
// unconfirmed inputs, in the view's scratch slice.
func (in *inputs) viewer(now time.Time) gameview.Viewer {
	vw := gameview.Viewer{Seat: in.slot, Now: now, FrameAt: in.frAt, Live: in.live()}
	if in.fr != nil {
		vw.TickRate = in.fr.TickRate
	}
	in.acts = in.acts[:0]
	for _, p := range in.pending {
		in.acts = append(in.acts, gameview.Pending{Action: p.action, At: p.at})
	}
	vw.Pending = in.acts
	if c := in.ctl; c.dir != c.sentDir && c.dir != 0 {
		vw.Held, vw.HeldAt = c.dir, c.lastPress
	}
	if t := in.tap; t.clamp {
		vw.Tap, vw.TapDir, vw.TapTo = true, t.dir, t.to
	}
	return vw
}
