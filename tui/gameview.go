package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/screen"
)

// GameView is a game's own half of the room screen (a plug-in view): it
// paints its board for one viewer into a region of the session's grid,
// with its own prediction and camera, turns keys into the game's actions,
// and describes seats and the match for the header. The room view keeps
// the rest: pacing and writing frames, the header, footer, chat pane,
// prompts, the waiting, countdown, results and too-small screens, and
// sending inputs to the room with their sequence numbers.
//
// A game's view lives in the game's folder and satisfies this interface
// with the screen, colour profile and standard types only, so it needs
// nothing of this package; main hands the views to the server by game
// name (Views). Every method but Action is called from the room view's
// own goroutine; Action is called from the session's key handling and
// must depend on nothing but its argument.
type GameView interface {
	// Styles are the view's style specs for profile p: the room view
	// places them in the session's palette after its own, at the base the
	// view was made with (ViewMaker).
	Styles(p colorprofile.Profile) []screen.Spec
	SetProfile(p colorprofile.Profile)
	// Size is the board region (columns, rows) that shows snap's whole
	// board, and the least region the game can be played in.
	Size(snap any) (wholeW, wholeH, minW, minH int)
	// Paint draws snap into the region x, y, w, h for seat (-1: a
	// watcher), drawing the seat's actions the room has not confirmed yet
	// (oldest first) at once. Cells outside the region are left alone.
	Paint(scr *screen.Screen, x, y, w, h int, snap any, seat int, pending []int8)
	// Invalidate: something else drew over the region; repaint it whole.
	Invalidate()
	// Action is the game action a player's key means (ok false: not the
	// game's key).
	Action(key string) (action int8, ok bool)
	// Look takes a watcher's camera key; Follow is the slot the watcher
	// follows (-1: none), told every frame.
	Look(key string) bool
	Follow(slot int)
	// Seat describes slot for the header: its mark on a board without
	// colour, its name's style, its score and whether it is out for now.
	Seat(snap any, slot int) (mark rune, st screen.Style, score int, out bool)
	// Status is the match line ("round 2 · first to 3 · 4 riding").
	Status(snap any) string
	// Over reports whether snap's match has ended.
	Over(snap any) bool
	// KeyHelp is the players' key line, LookHelp the watchers'.
	KeyHelp() string
	LookHelp() string
}

// ViewMaker makes a game's view for one session: its styles start at base
// in the session's palette, for colour profile p.
type ViewMaker func(base screen.Style, p colorprofile.Profile) GameView

// Views are the plug-in views by game name (game.Kind.Name). A game
// without one is drawn by the room view's built-in Pong board.
type Views map[string]ViewMaker

// viewBase is where a plug-in view's styles start in the game palette.
const viewBase = numStyles

// newGameView makes the view of the game named name, or nil.
func (vs Views) newGameView(name string, p colorprofile.Profile) GameView {
	if mk := vs[name]; mk != nil {
		return mk(viewBase, p)
	}
	return nil
}

// Act hands a game action from a player's key to a plug-in view's room
// screen; it never blocks (a flood beyond the buffer is dropped).
func (v *RoomView) Act(action int8) {
	at := v.cfg.Now()
	if f := v.cfg.InputAt; f != nil {
		if r := f(); !r.IsZero() && r.Before(at) {
			at = r
		}
	}
	select {
	case v.keys <- keyEvent{act: action, acted: true, at: at}:
	default:
	}
}

// Look hands a watcher's key to a plug-in view's camera; it never blocks.
func (v *RoomView) Look(key string) {
	select {
	case v.keys <- keyEvent{look: key}:
	default:
	}
}

// Plugin is the room's plug-in view, nil when the built-in board draws it.
// The session's key handling may call its Action (pure) and nothing else.
func (v *RoomView) Plugin() GameView { return v.cfg.Game }

// sendAction submits a plug-in game's action at once: an action is an
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

// pendingActions are the player's unconfirmed actions, oldest first, in
// the view's scratch slice.
func (v *RoomView) pendingActions() []int8 {
	v.acts = v.acts[:0]
	for _, p := range v.pending {
		v.acts = append(v.acts, p.dir)
	}
	return v.acts
}

// pluginSize is the plug-in board's whole and least regions for fr.
func (v *RoomView) pluginSize(fr *game.Frame) (ww, wh, mw, mh int) {
	return v.cfg.Game.Size(fr.State)
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

// paintPlugin draws a plug-in game's screen: the board through its view,
// then the header, the footer and the overlay around and over it.
func (v *RoomView) paintPlugin(fr *game.Frame) {
	gv := v.cfg.Game
	if v.mode != modeBoard || v.layoutW != v.w || v.layoutH != v.h {
		if !v.layoutPlugin(fr) {
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
	r := v.region
	lines := wrapOverlay(v.overlayLines(fr, nil), r[2])
	if !slices.Equal(lines, v.overlay) {
		gv.Invalidate() // the old overlay's cells go back to the board
	}
	gv.Paint(v.scr, r[0], r[1], r[2], r[3], fr.State, v.cfg.Slot, v.pendingActions())
	v.placeOverlay(fr, lines, r[0], r[1], r[2], r[3])
	v.paintPluginHUD(fr)
}

// paintSmallPlugin is the too-small screen for a plug-in board.
func (v *RoomView) paintSmallPlugin(fr *game.Frame) {
	_, _, mw, mh := v.pluginSize(fr)
	v.paintTooSmall(fr, mw, mh+2, v.cfg.Game.Over(fr.State))
}

// paintPluginHUD draws the header (each seat's mark, name, rating and
// score, then the match line; the figures on the right) and the footer.
func (v *RoomView) paintPluginHUD(fr *game.Frame) {
	gv := v.cfg.Game
	var b strings.Builder
	type part struct {
		text string
		st   screen.Style
	}
	parts := make([]part, 0, len(fr.Seats)+1)
	for slot, s := range fr.Seats {
		if !s.Taken && !leftMatch(fr, slot) {
			continue
		}
		mark, st, score, out := gv.Seat(fr.State, slot)
		b.Reset()
		if slot == v.cfg.Slot || slot == v.follow {
			b.WriteString("▸")
		}
		if !v.colour {
			b.WriteRune(mark)
			b.WriteString(":")
		}
		b.WriteString(seatName(fr, slot))
		if l := v.label(fr, slot); l != "" {
			b.WriteString(" " + l)
		}
		fmt.Fprintf(&b, " %d", score)
		switch {
		case s.Taken && !s.Connected:
			b.WriteString(" (away)")
		case leftMatch(fr, slot):
			b.WriteString(" (left)")
		case out:
			b.WriteString(" ✗")
		}
		b.WriteString("  ")
		parts = append(parts, part{b.String(), st})
	}
	status := gv.Status(fr.State)
	figs := v.figures()
	var typing string
	if cl := v.chatNow; cl != nil && cl.typing {
		typing = cl.prompt
	}
	// The match line goes in the header after the names when it fits
	// there (eight names at 80 columns leave no room), else in the footer.
	room := v.w - len([]rune(figs)) - 2
	x := 1
	shown := 0
	for _, p := range parts {
		if x+len([]rune(p.text)) > room {
			break
		}
		x += len([]rune(p.text))
		shown++
	}
	inHeader := status != "" && x+len([]rune(status)) < room
	footStatus := ""
	if !inHeader {
		footStatus = status
	}
	foot := v.footerLine(fr, footStatus)
	key := fmt.Sprint(parts, status, figs, v.w, foot, typing)
	if key == v.hud {
		return
	}
	v.hud = key
	v.scr.Fill(0, 0, v.w, 1, ' ', stDefault)
	x = 1
	for _, p := range parts[:shown] {
		x += v.scr.Text(x, 0, p.text, p.st)
	}
	if inHeader {
		v.scr.Text(x, 0, status, stDim)
	}
	v.scr.Text(max(v.w-len([]rune(figs))-1, 0), 0, figs, stDim)
	v.scr.Fill(0, v.h-1, v.w, 1, ' ', stDefault)
	if cl := v.chatNow; cl != nil && cl.typing && v.pane.h == 0 {
		// No room for the pane: the input line takes the footer, so the
		// player still sees what they type.
		v.chatTail(0, v.h-1, v.w, cl.prompt, stBold)
		return
	}
	v.scr.Text(max((v.w-len([]rune(foot)))/2, 0), v.h-1, foot, stDim)
}

// figures is the header's right side: watchers, the round trip (players),
// the frame rate.
func (v *RoomView) figures() string {
	var figs []string
	if v.cfg.Watchers != nil {
		if n := v.cfg.Watchers(); n > 0 {
			figs = append(figs, fmt.Sprintf("%d watching", n))
		}
	}
	if v.cfg.Slot >= 0 {
		rtt := "rtt –"
		if v.cfg.RTT != nil {
			if d := v.cfg.RTT(); d > 0 {
				rtt = fmt.Sprintf("rtt %dms", d.Milliseconds())
				if d < time.Millisecond {
					rtt = "rtt <1ms"
				}
			}
		}
		if v.cfg.NoReply != nil {
			if d := v.cfg.NoReply(); d >= staleAfter {
				rtt = fmt.Sprintf("no reply %ds", int64(d/time.Second))
			}
		}
		figs = append(figs, rtt)
	}
	return strings.Join(append(figs, fmt.Sprintf("%dfps", v.fps)), " · ")
}

// footerLine is the plug-in screen's footer: the match line when the
// header had no room for it, the status (or the title) and the keys,
// keeping the keys whole.
func (v *RoomView) footerLine(fr *game.Frame, match string) string {
	gv := v.cfg.Game
	finished := fr.Phase == game.Finished
	keys := gv.KeyHelp() + " · q leave"
	anyLeft := false
	for slot := range fr.Forfeited {
		anyLeft = anyLeft || leftMatch(fr, slot)
	}
	switch {
	case finished && v.cfg.Ranked && anyLeft:
		// A ranked rematch needs every player the queue seated.
		keys = "n queue · q leave"
	case finished && v.cfg.Ranked:
		keys = "r rematch · n queue · q leave"
	case finished:
		keys = "r rematch · q leave"
	}
	status := v.cfg.Title
	if v.cfg.Footer != nil {
		status, keys = v.cfg.Footer()
		if help := gv.LookHelp(); help != "" && v.cfg.Look {
			keys = help + " · " + keys
		}
	}
	mark := ""
	if cl := v.chatNow; cl != nil {
		mark = cl.marker
	}
	return fitFooter(v.w, match, status, keys, mark, v.cfg.Footer == nil)
}
