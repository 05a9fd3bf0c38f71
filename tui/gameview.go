package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/screen"
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
	if v.prompt.Load() != nil {
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
	case v.steer != nil:
		k.dir = a
	case k.release:
		return false
	default:
		k.act, k.acted = a, true
	}
	k.key = ""
	return true
}

// sendAction submits an event game's action at once: an action is an
// event (a turn), so none is merged or held back, and the view draws it
// before the room confirms it.
func (v *RoomView) sendAction(k keyEvent) {
	if v.cfg.Slot < 0 || !v.live() {
		return
	}
	v.seq++
	in := game.Input{Slot: v.cfg.Slot, Seq: v.seq, Action: k.act, Seen: v.seenTick(k.at, v.cfg.Now())}
	if !v.cfg.Room.Submit(v.cfg.Me, in) {
		v.seq--
		return
	}
	v.pending = append(v.pending, sent{v.seq, k.act, k.at})
	if len(v.pending) > 64 { // never grows without bound if acks stop
		v.pending = append(v.pending[:0], v.pending[len(v.pending)-64:]...)
	}
	if v.keyAt.IsZero() {
		v.keyAt = k.at
	}
}

// viewer is who the board is painted for at now, with the player's
// unconfirmed inputs, in the view's scratch slice.
func (v *RoomView) viewer(now time.Time) gameview.Viewer {
	vw := gameview.Viewer{Seat: v.cfg.Slot, Now: now, FrameAt: v.frAt, Live: v.live()}
	if v.fr != nil {
		vw.TickRate = v.fr.TickRate
	}
	v.acts = v.acts[:0]
	for _, p := range v.pending {
		v.acts = append(v.acts, gameview.Pending{Action: p.action, At: p.at})
	}
	vw.Pending = v.acts
	if c := v.ctl; c.dir != c.sentDir && c.dir != 0 {
		vw.Held, vw.HeldAt = c.dir, c.lastPress
	}
	if t := v.tap; t.clamp {
		vw.Tap, vw.TapDir, vw.TapTo = true, t.dir, t.to
	}
	return vw
}

// pluginSize is the board's whole and least regions for fr.
func (v *RoomView) pluginSize(fr *game.Frame) (ww, wh, mw, mh int) {
	return v.cfg.Game.Size(fr.State)
}

// layout places the board region and the chat pane for fr's board: a
// board that scales fills what the pane leaves; a camera's board is shown
// whole where it fits (layoutPlugin). False when not even the least
// region fits.
func (v *RoomView) layout(fr *game.Frame) bool {
	if sv := v.scaled; sv != nil {
		ww, wh, _, _ := v.pluginSize(fr)
		return v.layoutScaled(sv, fr.State, ww, wh)
	}
	if !v.layoutPlugin(fr) {
		return false
	}
	v.board = v.region
	return true
}

// layoutPlugin places the board region and the chat pane: the pane beside
// the board when the terminal is wide enough; else under a board shown
// whole if it still fits; no pane rather than cut a board that fits whole
// (typing then takes the footer); under a following camera's smaller
// board otherwise. False when not even the least region fits.
func (v *RoomView) layoutPlugin(fr *game.Frame) bool {
	ww, wh, mw, mh := v.pluginSize(fr)
	rows := v.h - 2 // the header and the footer
	v.pane = chatRect{}
	if v.w < mw || rows < mh {
		return false
	}
	bw, bh := min(ww, v.w), min(wh, rows)
	whole := v.w >= ww && rows >= wh
	if v.cfg.Chat != nil {
		switch {
		case v.w-ww-1 >= chatSideMin:
			pw := min(chatSideMax, v.w-ww-1)
			v.pane = chatRect{v.w - pw, 1, pw, rows}
		case whole && rows-wh >= chatBottomMin:
			k := min(chatBottomMax, rows-wh)
			v.pane = chatRect{0, 1 + rows - k, v.w, k}
		case whole:
		case rows-chatBottomMin >= mh:
			k := min(chatBottomMax, rows-mh)
			v.pane = chatRect{0, 1 + rows - k, v.w, k}
			bh = rows - k
		}
	}
	// Centred in the columns the pane leaves.
	free := v.w
	if v.pane.h == rows && v.pane.w > 0 {
		free = v.w - v.pane.w - 1
	}
	bw = min(bw, free)
	v.region = [4]int{(free - bw) / 2, 1, bw, bh}
	return true
}

// paintBoard draws the game's screen: the board through its view, then
// the overlay over it and the header and footer around it.
func (v *RoomView) paintBoard(fr *game.Frame, now time.Time) {
	gv := v.cfg.Game
	if v.mode != modeBoard || v.layoutW != v.w || v.layoutH != v.h {
		if !v.layout(fr) {
			v.pane = chatRect{}
			v.paintSmallPlugin(fr)
			return
		}
		v.mode = modeBoard
		v.layoutW, v.layoutH = v.w, v.h
		v.clearScreen()
		gv.Invalidate()
		v.hud, v.overlay = "", nil
	}
	follow := -1
	if v.cfg.Follow != nil {
		follow = v.cfg.Follow()
	}
	v.follow = follow
	gv.Follow(follow)
	r, b := v.region, v.board
	lines := wrapOverlay(v.overlayLines(fr), b[2])
	if !slices.Equal(lines, v.overlay) && len(v.overlay) > 0 {
		// The old overlay's cells go back to the board: only those, when
		// the view can (a whole 80×24 court is some 1,600 cells, and a
		// countdown digit or a point notice changes every second or so).
		if rs, ok := gv.(gameview.Restorer); ok {
			o := v.ovRect
			rs.Restore(v.scr, o[0], o[1], o[2], o[3])
		} else {
			gv.Invalidate()
		}
	}
	gv.Paint(v.scr, r[0], r[1], r[2], r[3], fr.State, v.viewer(now))
	v.placeOverlay(fr, lines, b[0], b[1], b[2], b[3])
	if sb := v.scores; sb != nil {
		v.paintHUD(fr, sb)
		return
	}
	v.paintPluginHUD(fr)
}

// paintSmallPlugin is the too-small screen for the game's board.
func (v *RoomView) paintSmallPlugin(fr *game.Frame) {
	_, _, mw, mh := v.pluginSize(fr)
	v.paintTooSmall(fr, mw, mh+2, v.cfg.Game.Over(fr.State))
}

// plainSeat is what the header of a game without a scoreboard shows of
// one seat.
type plainSeat struct {
	shown           bool
	name, label     string
	mark            rune
	st              screen.Style
	score           int
	me              bool // the player's own seat, or the one a watcher follows
	away, left, out bool
}

// plainKey is everything that header and its footer show. Comparing it is
// cheap, so the strings are only built (and allocated) when it changes.
type plainKey struct {
	seats     [maxSeats]plainSeat
	status    string
	colour    bool
	watchers  int
	rttMS     int64 // -1: unknown
	noReplyS  int64 // seconds without an answer, from staleAfter; 0 = answering
	fps, w, h int
	finished  bool
	anyLeft   bool
	footer    [2]string // the Footer's status and keys
	marker    string    // the chat marker
	typing    string    // the input line while typing without a pane
}

// paintPluginHUD draws the header of a game without a scoreboard (each
// seat's mark, name, rating and score, then the match line; the figures
// on the right) and the footer.
func (v *RoomView) paintPluginHUD(fr *game.Frame) {
	gv := v.cfg.Game
	k := plainKey{colour: v.colour, fps: v.fps, w: v.w, h: v.h, finished: fr.Phase == game.Finished}
	if fr.Phase != game.Countdown {
		// Over the opening countdown the overlay says who plays whom;
		// the match has no round to speak of yet.
		k.status = gv.Status(fr.State)
	}
	if fr.WarmUp {
		// A lone rider's rounds win nothing: the header says why.
		k.status = "warm-up, nothing counts · " + k.status
	}
	for slot := range fr.Forfeited {
		k.anyLeft = k.anyLeft || leftMatch(fr, slot)
	}
	for slot, s := range fr.Seats {
		if slot >= maxSeats || (!s.Taken && !leftMatch(fr, slot)) {
			continue
		}
		mark, st, score, out := gv.Seat(fr.State, slot)
		k.seats[slot] = plainSeat{shown: true, name: seatName(fr, slot), label: v.label(fr, slot), mark: mark, st: st, score: score,
			me: slot == v.cfg.Slot || slot == v.follow, away: s.Taken && !s.Connected, left: leftMatch(fr, slot), out: out}
	}
	if v.cfg.Watchers != nil {
		k.watchers = v.cfg.Watchers()
	}
	k.rttMS, k.noReplyS = v.link()
	if v.cfg.Footer != nil {
		k.footer[0], k.footer[1] = v.cfg.Footer()
	}
	if cl := v.chatNow; cl != nil {
		k.marker = cl.marker
		if cl.typing && v.pane.h == 0 {
			k.typing = cl.prompt
		}
	}
	if k == v.plain && v.hud != "" {
		return
	}
	v.plain = k
	v.hud = "drawn"

	figs := headerFigures(k.watchers, v.cfg.Slot >= 0, k.rttMS, k.noReplyS, k.fps)
	parts, right := fitHeader(v.w, figs, func(labels bool, nameMax int) []hudPart { return k.parts(labels, nameMax) })
	// The match line goes in the header after the names when it fits
	// there, else in the footer.
	x := 1 + partsWidth(parts)
	inHeader := k.status != "" && x+len([]rune(k.status)) < v.w-len([]rune(right))-2
	footStatus := ""
	if !inHeader {
		footStatus = k.status
	}
	v.scr.Fill(0, 0, v.w, 1, ' ', stDefault)
	x = 1
	for _, p := range parts {
		x += v.scr.Text(x, 0, p.text, p.st)
	}
	if inHeader {
		v.scr.Text(x, 0, k.status, stDim)
	}
	v.scr.Text(max(v.w-len([]rune(right))-1, x), 0, right, stDim)
	v.scr.Fill(0, v.h-1, v.w, 1, ' ', stDefault)
	if k.typing != "" {
		// No room for the pane: the input line takes the footer, so the
		// player still sees what they type.
		v.chatTail(0, v.h-1, v.w, k.typing, stBold)
		return
	}
	foot := v.footerLine(&k, footStatus)
	v.scr.Text(max((v.w-len([]rune(foot)))/2, 0), v.h-1, foot, stDim)
}

// parts are the header's seats: mark (without colour), name (cut to
// nameMax), rating when labels, score and state, each in its style.
func (k *plainKey) parts(labels bool, nameMax int) []hudPart {
	var parts []hudPart
	var b strings.Builder
	for _, s := range k.seats {
		if !s.shown {
			continue
		}
		b.Reset()
		if s.me {
			b.WriteString("▸")
		}
		if !k.colour {
			b.WriteRune(s.mark)
			b.WriteString(":")
		}
		name := s.name
		if r := []rune(name); len(r) > nameMax {
			name = string(r[:nameMax-1]) + "…"
		}
		b.WriteString(name)
		if labels && s.label != "" {
			b.WriteString(" " + s.label)
		}
		fmt.Fprintf(&b, " %d", s.score)
		switch {
		case s.away:
			b.WriteString(" (away)")
		case s.left:
			b.WriteString(" (left)")
		case s.out:
			b.WriteString(" ✗")
		}
		b.WriteString("  ")
		parts = append(parts, hudPart{b.String(), s.st})
	}
	return parts
}

// footerLine is the footer under a header without a scoreboard: the
// match line when the header had no room for it, the status (or the
// title) and the keys, keeping the keys whole.
func (v *RoomView) footerLine(k *plainKey, match string) string {
	gv := v.cfg.Game
	keys := gv.KeyHelp(v.cfg.Slot) + " · q leave"
	switch {
	case k.finished && v.cfg.Ranked && k.anyLeft:
		// A ranked rematch needs every player the queue seated.
		keys = "n queue · q leave"
	case k.finished && v.cfg.Ranked:
		keys = "r rematch · n queue · q leave"
	case k.finished:
		keys = "r rematch · q leave"
	}
	status := v.title(v.fr)
	if v.cfg.Footer != nil {
		status, keys = k.footer[0], k.footer[1]
		if help := gv.LookHelp(); help != "" && v.cfg.Look {
			keys = help + " · " + keys
		}
	}
	return fitFooter(v.w, match, status, keys, k.marker, v.cfg.Footer == nil, v.cfg.StatusFirst)
}
