package tui

import (
	"context"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/gameview"
)

// ViewMaker makes a game's view for one session (gameview.Maker).
type ViewMaker = gameview.Maker

// Views are the games' own room-screen views by game name
// (game.Kind.Name); main hands them to the server. A room screen hosts the
// view of its room's game: it paints the board, and the room screen
// everything around it (gameview's package comment says who does what).
type Views map[string]ViewMaker

// viewBase is where a game view's styles start in the game palette.
const viewBase = numStyles

// newGameView makes the view of the game named name, or nil.
func (vs Views) newGameView(name string, p colorprofile.Profile) gameview.View {
	if mk := vs[name]; mk != nil {
		return mk(viewBase, p)
	}
	return nil
}

// GameKey hands a player's key press (or, with release, a terminal's
// report that the key was let go) to the room screen, whose goroutine
// maps it through the game's view: a Steered game's direction, an event
// game's action, or nothing when it is not one of the game's keys. It
// never blocks (a flood beyond the buffer is dropped).
func (v *RoomView) GameKey(key string, repeat, release bool) {
	select {
	case v.keys <- keyEvent{key: key, repeat: repeat, release: release, at: v.readAt()}:
	default:
	}
}

// TakeKey offers a player's key, straight from the session's terminal, to
// the room screen, and says whether it took it as the game's: not while a
// question, the key help or the chat line is up, nor a key the room's own
// screen uses (roomKey), nor one that means nothing to the game. A key it
// does not take is the menu's to handle.
//
// It decides on the caller's goroutine, the session's, which is where the
// prompt and the chat line change, so a key after one that opened the chat
// line is typed into it; what it decides reads only atomics and the
// view's immutable game and seat (gameview.View.Action is a pure mapping).
// The mapped key is then queued for Run without waiting: the session goes
// back to reading at once instead of parking until Run has answered (two
// goroutine switches a key). False when the screen has stopped or ctx
// ended, or on a flood beyond the buffer (the menu drops it as the screen
// would).
func (v *RoomView) TakeKey(ctx context.Context, key string, repeat, release bool) bool {
	if roomKey(key) || ctx.Err() != nil {
		return false // the menu's, without asking the game
	}
	select {
	case <-v.stopped:
		return false
	default:
	}
	k := keyEvent{key: key, repeat: repeat, release: release}
	if !v.takes(&k) {
		return false
	}
	k.at = v.readAt()
	select {
	case v.keys <- k:
		return true
	default:
		return false
	}
}

// takes reports whether a key the terminal offers (TakeKey) is the game's,
// mapping it in k: not while the screen has a question, the key help or
// the chat line up, in which case the menu types or answers with it.
func (v *RoomView) takes(k *keyEvent) bool {
	if v.ov.prompt.Load() != nil {
		return false
	}
	if c := v.cfg.Chat; c != nil {
		if cl := c(); cl != nil && cl.typing {
			return false
		}
	}
	return v.mapKey(k)
}

// readAt is when the key being handed over was read from the client: a key
// is timed from then rather than from when the session handed it on, so
// the input-to-frame figure includes decoding and the session's queue.
func (v *RoomView) readAt() time.Time {
	at := v.cfg.Now()
	if f := v.cfg.InputAt; f != nil {
		if r := f(); !r.IsZero() && r.Before(at) {
			at = r
		}
	}
	return at
}

// act queues a mapped event action (tests; GameKey maps on Run).
func (v *RoomView) act(action int8) {
	select {
	case v.keys <- keyEvent{act: action, acted: true, at: v.readAt()}:
	default:
	}
}

// Look hands a watcher's key to the game view's camera; it never blocks.
func (v *RoomView) Look(key string) {
	select {
	case v.keys <- keyEvent{look: key}:
	default:
	}
}

// HasGame reports whether the room's game has a view (without one only
// the waiting screen is drawn and no key is the game's).
func (v *RoomView) HasGame() bool { return v.cfg.Game != nil }

// mapKey turns a player's key into the game's direction or action, on
// Run's goroutine; false when it is not one of the game's keys (a
// terminal's release of an event game's key is none either).
func (v *RoomView) mapKey(k *keyEvent) bool {
	gv := v.cfg.Game
	if gv == nil || v.cfg.Slot < 0 {
		return false
	}
	a, ok := gv.Action(k.key, v.cfg.Slot)
	switch {
	case !ok:
		return false
	case v.in.steer != nil:
		k.dir = a
	case k.release:
		return false
	default:
		k.act, k.acted = a, true
	}
	k.key = ""
	return true
}

// paintBoard draws the game's screen: the board through its view, then
// the overlay over it and the header and footer around it.
func (v *RoomView) paintBoard(fr *game.Frame, now time.Time) {
	gv := v.cfg.Game
	if v.mode != modeBoard || !v.lay.laidOutFor(v.w, v.h) {
		pane, ok := v.lay.place(fr, v.w, v.h, v.chat.on())
		if !ok {
			v.chat.pane = chatRect{}
			v.paintSmallPlugin(fr)
			return
		}
		v.chat.pane = pane
		v.mode = modeBoard
		v.clearScreen()
		gv.Invalidate()
		v.textGone()
		v.ov.forget()
	}
	follow := -1
	if v.cfg.Follow != nil {
		follow = v.cfg.Follow()
	}
	v.head.follow = follow
	gv.Follow(follow)
	r, b := v.lay.region, v.lay.board
	lines := wrapOverlay(v.ov.text(fr, b[2]), b[2])
	if o, ok := v.ov.leaving(lines); ok {
		// The old overlay's cells go back to the board: only those, when
		// the view can (a whole 80×24 court is some 1,600 cells, and a
		// countdown digit or a point notice changes every second or so).
		if rs, ok := gv.(gameview.Restorer); ok {
			rs.Restore(v.scr, o[0], o[1], o[2], o[3])
		} else {
			gv.Invalidate()
		}
	}
	gv.Paint(v.scr, r[0], r[1], r[2], r[3], fr.State, v.in.viewer(now))
	v.ov.place(fr, lines, b[0], b[1], b[2], b[3])
	if sb := v.scores; sb != nil {
		v.head.paintScores(fr, sb, v.pace.fps)
		return
	}
	v.head.paintPlain(fr, v.pace.fps)
}

// paintSmallPlugin is the too-small screen for the game's board.
func (v *RoomView) paintSmallPlugin(fr *game.Frame) {
	_, _, mw, mh := v.lay.size(fr)
	v.paintTooSmall(fr, mw, mh+2, v.cfg.Game.Over(fr.State))
}
