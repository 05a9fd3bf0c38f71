package tui

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/rating"
)

// roomOverlay is the message of the moment over the board (a paused
// countdown's reason, who plays whom, the results, a point just scored)
// and the question or key help waiting for the player (the prompt), which
// covers it. The prompt is set from the session's goroutine (SetPrompt)
// and read on the screen's, so it waits in an atomic; the rest belongs to
// the screen's goroutine.
type roomOverlay struct {
	cfg    *RoomViewConfig
	cv     *canvas
	scores gameview.Scoreboard // the game's scoreboard, or nil

	prompt atomic.Pointer[promptText] // a question for the player, over the board
	// promptSeen is the prompt promptShown was resolved from.
	promptSeen  *promptText
	promptShown []string

	// made is the text as last made and what it was made from: the
	// countdown's and a point's text, and the padded question, are made
	// again only when what they say changes, not every frame (a
	// countdown is 90 frames, a point's notice 22).
	made    []string
	madeKey overlayKey
	// paddedSeen is the prompt lines padded was made from.
	paddedSeen *promptText
	padded     []string

	lines []string // the overlay on screen, wrapped to the board
	rect  [4]int   // where it is (x, y, w, h)
	// drawn is the screen's change count once the overlay was last drawn,
	// and paused its style then (a pause draws it as a warning).
	drawn  uint64
	paused bool
}

// promptText is a prompt as set; keysAt ≥ 0 places the game's key line.
type promptText struct {
	lines  []string
	keysAt int
}

// promptLines is the prompt shown now (the screen's goroutine): the
// game's key line is resolved once per prompt set.
func (ov *roomOverlay) promptLines() []string {
	p := ov.prompt.Load()
	if p != ov.promptSeen {
		ov.promptSeen, ov.promptShown = p, ov.resolvePrompt(p)
	}
	return ov.promptShown
}

// resolvePrompt is p's lines with the game's key line in place.
func (ov *roomOverlay) resolvePrompt(p *promptText) []string {
	if p == nil {
		return nil
	}
	gv := ov.cfg.Game
	if p.keysAt < 0 || gv == nil {
		return p.lines
	}
	keys := gv.LookHelp()
	if ov.cfg.Slot >= 0 {
		keys = gv.KeyHelp(ov.cfg.Slot)
	}
	if keys == "" {
		return p.lines
	}
	return slices.Insert(slices.Clone(p.lines), p.keysAt, keys)
}

// forget drops the overlay shown: the board under it is drawn whole.
func (ov *roomOverlay) forget() { ov.lines = nil }

// leaving reports the rectangle of the overlay shown when lines replace
// it, so its cells go back to the board.
func (ov *roomOverlay) leaving(lines []string) (rect [4]int, ok bool) {
	if !slices.Equal(lines, ov.lines) && len(ov.lines) > 0 {
		return ov.rect, true
	}
	return rect, false
}

// overlayKey is everything the countdown's or a point's text says; kind
// 0 is none made.
type overlayKey struct {
	kind          uint8 // overlayCountdown or overlayPoint
	left          int   // the countdown's second shown
	width, wholeW int   // the board's and the screen's width
	by            int   // who scored
	seats         int
	teams         int
	seat          [maxSeats]overlaySeat
}

// overlaySeat is what the matchup says of a seat.
type overlaySeat struct {
	taken       bool
	name, label string
}

const (
	overlayCountdown = 1 + iota
	overlayPoint
)

// text is the message of the moment over a board boardW columns wide: a
// paused countdown's reason, who plays whom with the countdown, the
// results, a point just scored (a Scoreboard game's), or the question
// waiting for the player, which covers whatever else it would say. The
// lines returned are not to be changed.
func (ov *roomOverlay) text(fr *game.Frame, boardW int) []string {
	if p := ov.promptLines(); len(p) > 0 {
		if ov.paddedSeen != ov.promptSeen || ov.padded == nil {
			ov.padded = ov.padded[:0:0]
			for _, l := range p {
				ov.padded = append(ov.padded, " "+l+" ")
			}
			ov.paddedSeen = ov.promptSeen
		}
		return ov.padded
	}
	var lines []string
	gv := ov.cfg.Game
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
		k := overlayKey{kind: overlayCountdown, left: int(fr.Left.Seconds()) + 1, width: boardW, wholeW: ov.cv.w,
			seats: len(fr.Seats), teams: len(ov.teams(fr))}
		if k.seats > maxSeats {
			return ov.countdown(fr, boardW, k.left) // not kept: no game has that many seats
		}
		for slot := range fr.Seats {
			if fr.Seats[slot].Taken {
				k.seat[slot] = overlaySeat{true, seatName(fr, slot), ov.cfg.label(fr, slot)}
			}
		}
		if k != ov.madeKey {
			ov.made, ov.madeKey = ov.countdown(fr, boardW, k.left), k
		}
		return ov.made
	case fr.Phase == game.Finished || gv.Over(fr.State):
		lines = ov.results(fr, ov.teams(fr))
	default:
		if sb := ov.scores; sb != nil {
			if by := sb.Scored(fr.State); by >= 0 && seatName(fr, by) != "" {
				k := overlayKey{kind: overlayPoint, by: by}
				k.seat[0].name = seatName(fr, by)
				if k != ov.madeKey {
					ov.made, ov.madeKey = []string{" point: " + k.seat[0].name + " "}, k
				}
				return ov.made
			}
		}
	}
	return lines
}

// countdown is who plays whom with the countdown's seconds left (left)
// centred under the names.
func (ov *roomOverlay) countdown(fr *game.Frame, boardW, left int) []string {
	lines := ov.matchup(fr, boardW)
	n := fmt.Sprintf("  %d  ", left)
	wid := 0
	for _, l := range lines {
		wid = max(wid, len([]rune(l)))
	}
	return append(lines, strings.Repeat(" ", max(wid-len(n), 0)/2)+n)
}

// teams are the teams of fr's mode as its game's scoreboard has them; nil
// when everyone plays for themselves.
func (ov *roomOverlay) teams(fr *game.Frame) [][]int {
	if sb := ov.scores; sb != nil && fr != nil {
		return sb.Teams(fr.State)
	}
	return nil
}

// place shows lines (already wrapped to the board) centred on the board
// at bc, br, bw×bh, and draws them again every frame: the board may have
// repainted cells under them.
func (ov *roomOverlay) place(fr *game.Frame, lines []string, bc, br, bw, bh int) {
	if slices.Equal(lines, ov.lines) {
		// The board may have repainted cells under it (the ball moves on
		// while a question waits for its answer): draw the same text
		// again. The screen sends only cells that differ from the
		// terminal, so an unchanged overlay costs no bytes; when no cell
		// changed since it was drawn (a countdown or the results over a
		// board that stands still), it is there as it was.
		if ov.cv.scr.Changes() != ov.drawn || fr.Paused != ov.paused {
			ov.draw(fr)
		}
		return
	}
	ov.lines = append(ov.lines[:0], lines...)
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
	c0 := max(min(bc+(bw-wid)/2, ov.cv.w-wid), 0)
	r0 := max(min(br+(bh-len(lines))/2, ov.cv.h-1-len(lines)), 1)
	ov.rect = [4]int{c0, r0, wid, len(lines)}
	ov.draw(fr)
}

// draw draws the overlay's lines in its rectangle.
func (ov *roomOverlay) draw(fr *game.Frame) {
	st := stBold
	if fr.Paused {
		st = stWarn
	}
	scr := ov.cv.scr
	c0, r0, wid := ov.rect[0], ov.rect[1], ov.rect[2]
	for i, l := range ov.lines {
		// Padded to the widest line's runes, without making the padded
		// line: it is drawn again whenever the board moved under it.
		n := scr.Text(c0, r0+i, l, st)
		if pad := wid - utf8.RuneCountInString(l); pad > 0 {
			scr.Fill(c0+n, r0+i, pad, 1, ' ', st)
		}
	}
	ov.drawn, ov.paused = scr.Changes(), fr.Paused
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
// 1480?"), shown over the countdown: on one line when it fits the board
// (width columns), else a side (or team) a line.
func (ov *roomOverlay) matchup(fr *game.Frame, width int) []string {
	var groups []string
	add := func(slots ...int) {
		var names []string
		for _, slot := range slots {
			if slot >= len(fr.Seats) || !fr.Seats[slot].Taken {
				continue
			}
			n := seatName(fr, slot)
			if l := ov.cfg.label(fr, slot); l != "" {
				n += " " + l
			}
			names = append(names, n)
		}
		if len(names) > 0 {
			groups = append(groups, strings.Join(names, " + "))
		}
	}
	if teams := ov.teams(fr); teams != nil {
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
	if one := " " + strings.Join(groups, " vs ") + " "; len([]rune(one)) <= min(width, ov.cv.w) {
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

// results is the overlay over a finished match: the places, and what the
// viewer can do next.
func (ov *roomOverlay) results(fr *game.Frame, teams [][]int) []string {
	cfg := ov.cfg
	lines := []string{" game over "}
	var out *lobby.Outcome
	if cfg.Outcome != nil {
		if o := cfg.Outcome(); o != nil && o.Seed == fr.Seed {
			out = o
		}
	}
	if fr.Result != nil {
		lines = append(lines, ov.placeLines(fr, teams, out)...)
	}
	if out != nil && out.Unsaved != "" {
		lines = append(lines, " "+out.Unsaved+" ")
	}
	if fr.Phase == game.Finished {
		if cfg.Slot < 0 {
			// A watcher or replay viewer has no seat: the rematch and
			// queue keys are not theirs.
			if cfg.Ranked && out == nil {
				lines = append(lines, " rating changes: saving… ")
			}
			if cfg.OverKeys != "" {
				lines = append(lines, "", " "+cfg.OverKeys+" ")
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
		if cfg.Ranked {
			keys = fmt.Sprintf(" r rematch (%d ready) · n back to queue · q leave ", ready)
			if out == nil {
				lines = append(lines, " rating changes: saving… ")
			}
		}
		// A rematch needs two players: with the others gone, say so
		// rather than count ready players forever.
		if seated < game.DefaultMinPlayers {
			keys = " waiting for players · q leave "
			if cfg.WarmUp && cfg.Slot >= 0 {
				keys = " alone: r warm up · q leave "
			}
			if cfg.Ranked {
				keys = " n back to queue · q leave "
			}
		}
		if cfg.Ranked && len(gone) > 0 {
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
func (ov *roomOverlay) placeLines(fr *game.Frame, teams [][]int, out *lobby.Outcome) []string {
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
		if rs, ok := ov.cfg.Game.(gameview.ResultScorer); ok {
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
