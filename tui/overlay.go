package tui

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/rating"
	"github.com/termarena/termarena/screen"
)

// overlayLines is the message of the moment over the board: a paused
// countdown's reason, who plays whom with the countdown, the results, a
// point just scored (a Scoreboard game's), or the question waiting for
// the player.
func (v *RoomView) overlayLines(fr *game.Frame) []string {
	var lines []string
	gv := v.cfg.Game
	switch {
	case fr.Paused:
		// Before the countdown: a countdown waiting for a dropped player
		// stands still, and the players must see why.
		for slot, s := range fr.Seats {
			if s.Taken && !s.Connected {
				lines = append(lines, fmt.Sprintf(" %s disconnected — %d s ", seatName(fr, slot), int(s.GraceLeft.Seconds()+0.999)))
			}
		}
	case fr.Phase == game.Countdown:
		lines = v.matchup(fr)
		n := fmt.Sprintf("  %d  ", int(fr.Left.Seconds())+1)
		wid := 0
		for _, l := range lines {
			wid = max(wid, len([]rune(l)))
		}
		lines = append(lines, strings.Repeat(" ", max(wid-len(n), 0)/2)+n) // centred under the names
	case fr.Phase == game.Finished || gv.Over(fr.State):
		lines = v.results(fr, v.teams(fr))
	default:
		if sb := v.scores; sb != nil {
			if by := sb.Scored(fr.State); by >= 0 && seatName(fr, by) != "" {
				lines = []string{" point: " + seatName(fr, by) + " "}
			}
		}
	}
	if p := v.promptLines(); len(p) > 0 {
		// The question waits for the player's answer: it covers whatever
		// else the overlay would say.
		lines = lines[:0]
		for _, l := range p {
			lines = append(lines, " "+l+" ")
		}
	}
	return lines
}

// teams are the teams of fr's mode as its game's scoreboard has them; nil
// when everyone plays for themselves.
func (v *RoomView) teams(fr *game.Frame) [][]int {
	if sb := v.scores; sb != nil && fr != nil {
		return sb.Teams(fr.State)
	}
	return nil
}

// placeOverlay shows lines (already wrapped to the board) centred on the
// board at bc, br, bw×bh, and draws them again every frame: the board may
// have repainted cells under them.
func (v *RoomView) placeOverlay(fr *game.Frame, lines []string, bc, br, bw, bh int) {
	if slices.Equal(lines, v.overlay) {
		// The board may have repainted cells under it (the ball moves on
		// while a question waits for its answer): draw the same text
		// again. The screen sends only cells that differ from the
		// terminal, so an unchanged overlay costs no bytes; when no cell
		// changed since it was drawn (a countdown or the results over a
		// board that stands still), it is there as it was.
		if v.scr.Changes() != v.ovDrawn || fr.Paused != v.ovPaused {
			v.drawOverlay(fr)
		}
		return
	}
	v.overlay = append(v.overlay[:0], lines...)
	if len(lines) == 0 {
		return
	}
	wid := 0
	for _, l := range lines {
		wid = max(wid, len([]rune(l)))
	}
	// Centred on the board, and never off the screen: a line that could
	// not be wrapped to the board spills over rather than losing its first
	// columns.
	c0 := max(min(bc+(bw-wid)/2, v.w-wid), 0)
	r0 := max(min(br+(bh-len(lines))/2, v.h-1-len(lines)), 1)
	v.ovRect = [4]int{c0, r0, wid, len(lines)}
	v.drawOverlay(fr)
}

// drawOverlay draws the overlay's lines in its rectangle.
func (v *RoomView) drawOverlay(fr *game.Frame) {
	st := stBold
	if fr.Paused {
		st = stWarn
	}
	c0, r0, wid := v.ovRect[0], v.ovRect[1], v.ovRect[2]
	for i, l := range v.overlay {
		pad := l + strings.Repeat(" ", max(wid-len([]rune(l)), 0))
		v.scr.Text(c0, r0+i, pad, st)
	}
	v.ovDrawn, v.ovPaused = v.scr.Changes(), fr.Paused
}

// wrapOverlay fits overlay lines to the board's width w (at 80 columns a
// free-for-all board beside the chat pane is 44 wide): a longer line is
// broken between its " · " or " + " separated items, each piece padded as
// overlay lines are.
func wrapOverlay(lines []string, w int) []string {
	fits := true
	for _, l := range lines {
		fits = fits && len([]rune(l)) <= w
	}
	if fits {
		return lines
	}
	var out []string
	for _, l := range lines {
		if len([]rune(l)) <= w {
			out = append(out, l)
			continue
		}
		cur := ""
		for _, item := range splitItems(strings.TrimSpace(l)) {
			switch {
			case cur == "":
				cur = item
			case len([]rune(cur+item))+2 <= w:
				cur += item
			default:
				out = append(out, " "+strings.TrimSpace(cur)+" ")
				cur = strings.TrimPrefix(item, " · ")
			}
		}
		out = append(out, " "+strings.TrimSpace(cur)+" ")
	}
	return out
}

// splitItems cuts s before each " · " and " + ", keeping the separators
// with the item they introduce.
func splitItems(s string) []string {
	var items []string
	for s != "" {
		i := -1
		for _, sep := range []string{" · ", " + "} {
			if j := strings.Index(s[1:], sep); j >= 0 && (i < 0 || j+1 < i) {
				i = j + 1
			}
		}
		if i < 0 {
			return append(items, s)
		}
		items = append(items, s[:i])
		s = s[i:]
	}
	return items
}

// matchup is who plays whom, with ratings in ranked ("alice 1520? vs bob
// 1480?"), shown over the countdown: on one line when it fits the board,
// else a side (or team) a line.
func (v *RoomView) matchup(fr *game.Frame) []string {
	var groups []string
	add := func(slots ...int) {
		var names []string
		for _, slot := range slots {
			if slot >= len(fr.Seats) || !fr.Seats[slot].Taken {
				continue
			}
			n := seatName(fr, slot)
			if l := v.label(fr, slot); l != "" {
				n += " " + l
			}
			names = append(names, n)
		}
		if len(names) > 0 {
			groups = append(groups, strings.Join(names, " + "))
		}
	}
	if teams := v.teams(fr); teams != nil {
		for _, t := range teams {
			add(t...)
		}
	} else {
		for slot := range fr.Seats {
			add(slot)
		}
	}
	if len(groups) < 2 {
		return nil
	}
	width := v.board[2]
	if one := " " + strings.Join(groups, " vs ") + " "; len([]rune(one)) <= min(width, v.w) {
		return []string{one, ""}
	}
	var lines []string
	for i, g := range groups {
		if i > 0 {
			lines = append(lines, " vs ")
		}
		lines = append(lines, " "+g+" ")
	}
	return append(lines, "")
}

func (v *RoomView) results(fr *game.Frame, teams [][]int) []string {
	lines := []string{" game over "}
	var out *lobby.Outcome
	if v.cfg.Outcome != nil {
		if o := v.cfg.Outcome(); o != nil && o.Seed == fr.Seed {
			out = o
		}
	}
	if fr.Result != nil {
		lines = append(lines, v.placeLines(fr, teams, out)...)
	}
	if out != nil && out.Unsaved != "" {
		lines = append(lines, " "+out.Unsaved+" ")
	}
	if fr.Phase == game.Finished {
		if v.cfg.Slot < 0 {
			// A watcher or replay viewer has no seat: the rematch and
			// queue keys are not theirs.
			if v.cfg.Ranked && out == nil {
				lines = append(lines, " rating changes: saving… ")
			}
			if v.cfg.OverKeys != "" {
				lines = append(lines, "", " "+v.cfg.OverKeys+" ")
			}
			return lines
		}
		ready, seated := 0, 0
		for _, s := range fr.Seats {
			if s.Taken {
				seated++
			}
			if s.Taken && s.Ready {
				ready++
			}
		}
		var gone []string
		for slot, p := range fr.Roster {
			if p.ID != "" && (slot >= len(fr.Seats) || !fr.Seats[slot].Taken || fr.Seats[slot].Player.ID != p.ID) {
				gone = append(gone, p.Name)
			}
		}
		keys := fmt.Sprintf(" r rematch (%d ready) · q leave ", ready)
		if v.cfg.Ranked {
			keys = fmt.Sprintf(" r rematch (%d ready) · n back to queue · q leave ", ready)
			if out == nil {
				lines = append(lines, " rating changes: saving… ")
			}
		}
		// A rematch needs two players: with the others gone, say so
		// rather than count ready players forever.
		if seated < game.DefaultMinPlayers {
			keys = " waiting for players · q leave "
			if v.cfg.WarmUp && v.cfg.Slot >= 0 {
				keys = " alone: r warm up · q leave "
			}
			if v.cfg.Ranked {
				keys = " n back to queue · q leave "
			}
		}
		if v.cfg.Ranked && len(gone) > 0 {
			// A ranked rematch needs every player the queue seated.
			keys = " n back to queue · q leave "
		}
		if len(gone) > 0 {
			lines = append(lines, "", " "+strings.Join(gone, ", ")+" left ")
		}
		lines = append(lines, "", keys)
	}
	return lines
}

// placeLines lists the players by place, one per line so that four names
// of 16 characters with their rating changes still fit the 44 columns of
// a 2v2 or free-for-all board at 80×24; with teams a team line with its
// score heads its players.
func (v *RoomView) placeLines(fr *game.Frame, teams [][]int, out *lobby.Outcome) []string {
	res := fr.Result
	change := func(slot int) string {
		if out == nil || slot >= len(out.Changes) || out.Changes[slot].Games <= 0 {
			return ""
		}
		c := out.Changes[slot]
		// Without the ±: it would not fit a four-player list beside the chat
		// at 80 columns; the profile and the forfeit notice show it.
		return fmt.Sprintf(" %s %+d", rating.Display(c.After, c.DeviationAfter), int(math.Round(c.After))-int(math.Round(c.Before)))
	}
	left := func(slot int) string {
		if leftMatch(fr, slot) {
			return " (left)"
		}
		return ""
	}
	score := func(slot int) string {
		n := 0
		if slot < len(res.Scores) {
			n = res.Scores[slot]
		}
		// Labelled by the game where a number alone would not say what
		// it counts: a free-for-all's "(1)" was lives left.
		if rs, ok := v.cfg.Game.(gameview.ResultScorer); ok {
			return rs.ResultScore(fr.State, n)
		}
		return strconv.Itoa(n)
	}
	// Shown as standard competition ranks: two riders sharing fifth are
	// followed by seventh (a team result's places already are).
	ranks := game.Ranks(res.Places, nil)
	var lines []string
	for place := 1; place <= len(res.Places); place++ {
		first := true
		for slot, p := range res.Places {
			if p != place {
				continue
			}
			who := playedBy(fr, slot)
			if teams != nil {
				if first {
					lines = append(lines, fmt.Sprintf(" %d. %s (%s) ", place, teamName(teams, slot), score(slot)))
				}
				lines = append(lines, fmt.Sprintf("    %s%s%s ", who, left(slot), change(slot)))
			} else {
				lines = append(lines, fmt.Sprintf(" %d. %s (%s)%s%s ", ranks[slot], who, score(slot), left(slot), change(slot)))
			}
			first = false
		}
	}
	return lines
}

// teamName names slot's team the way the waiting room and HUD do: "team
// A" for the first of teams, and so on.
func teamName(teams [][]int, slot int) string {
	for i, t := range teams {
		if slices.Contains(t, slot) {
			return "team " + string(rune('A'+i))
		}
	}
	return ""
}

// waitLine is one line of the pre-game screen.
type waitLine struct {
	text string
	st   screen.Style
}

// paintWaiting is the pre-game screen: who sits where and who is ready.
func (v *RoomView) paintWaiting(fr *game.Frame) {
	lines := []waitLine{{v.title(fr), stAccent}, {"", stDefault}}
	if fr != nil {
		teams := v.teams(fr)
		for slot, s := range fr.Seats {
			label, st := fmt.Sprintf("seat %d", slot+1), stText
			if gv := v.cfg.Game; gv != nil {
				// The game names its seats, in their colours.
				_, st, _, _ = gv.Seat(fr.State, slot)
				label = gv.SeatLabel(fr.State, slot)
			}
			if teams != nil {
				label += teamName(teams, slot)
			}
			if !s.Taken {
				lines = append(lines, waitLine{label + "  (free)", stDim})
				continue
			}
			state := "not ready"
			if s.Ready {
				state = "ready ✓"
			}
			if !s.Connected {
				state = "disconnected"
			}
			if l := v.label(fr, slot); l != "" {
				state = fmt.Sprintf("%-6s %s", l, state)
			}
			me := ""
			if slot == v.cfg.Slot {
				me = " (you)"
			}
			lines = append(lines, waitLine{fmt.Sprintf("%s  %-16s %s%s", label, s.Player.Name, state, me), st})
		}
	}
	prompt := "needs 2 players, all ready · r ready · q leave"
	if v.cfg.WarmUp && fr != nil && seatedIn(fr) == 1 {
		// Alone: r starts the game at once; a second player sitting
		// ends the warm-up and the two play from a countdown.
		prompt = "alone: r warm up (nothing counts until someone sits) · q leave"
	}
	if v.cfg.Bots && fr != nil && seatedIn(fr) < len(fr.Seats) {
		prompt = strings.Replace(prompt, " · q leave", " · b bots · q leave", 1)
	}
	if v.cfg.Slot < 0 {
		prompt = v.cfg.WaitText
	}
	if v.cfg.Slot >= 0 && v.tooSmallToPlay(fr) {
		// Said before the countdown, while there is still time to
		// enlarge the window: the match will not wait for it.
		lines = append(lines, waitLine{"", stDefault})
		for _, l := range fitLines([]string{v.smallWarning(fr)}, v.w, v.h) {
			lines = append(lines, waitLine{l, stWarn}) // whole, on the very terminal it is about
		}
	}
	lines = append(lines, waitLine{"", stDefault}, waitLine{prompt, stDim})
	if p := v.promptLines(); len(p) > 0 {
		// A question or the key help (?) is shown here too: before the
		// match there is no board to show it over.
		lines = append(lines, waitLine{"", stDefault})
		for _, l := range fitLines(p, v.w, v.h) {
			lines = append(lines, waitLine{l, stBold})
		}
	}
	rows := v.waitingPane(len(lines))
	key := fmt.Sprint(lines, v.w, v.h, v.pane)
	if key == v.hud {
		return
	}
	v.hud = key
	v.clearScreen()
	wid := 0
	for _, l := range lines {
		wid = max(wid, len([]rune(l.text)))
	}
	left := max((v.w-wid)/2, 0)
	top := max((rows-len(lines))/2, 0)
	for i, l := range lines {
		x := left
		if i == 0 { // the title is centred over the block
			x = max((v.w-len([]rune(l.text)))/2, 0)
		}
		v.scr.Text(x, top+i, l.text, l.st)
	}
}

// seatedIn counts the taken seats of a frame.
func seatedIn(fr *game.Frame) int {
	n := 0
	for _, s := range fr.Seats {
		if s.Taken {
			n++
		}
	}
	return n
}
