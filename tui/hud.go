package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/rating"
	"github.com/termarena/termarena/screen"
)

// hudKey is everything a scoreboard's header and footer show. Comparing
// it is cheap, so the strings are only rebuilt (and allocated) when one of
// these changes. A scoreboard shows the first scoreSeats seats.
type hudKey struct {
	names     [scoreSeats]string
	taken     [scoreSeats]bool
	connected [scoreSeats]bool
	left      [scoreSeats]bool   // the player who played the seat left the match
	score     [scoreSeats]string // the game's ScoreText
	team      [scoreSeats]int8   // the seat's team, -1 for none
	teams     int                // how many teams the mode has (0: none)
	keys      string             // the player's game keys
	finished  bool
	alone     bool   // too few players seated for a rematch
	warmUp    bool   // a lone player's warm-up is playing (Frame.WarmUp)
	anyLeft   bool   // a player of the match left it (no ranked rematch)
	followed  string // the followed player's match so far (FollowText)
	figs      hudFigures
	w, h      int
	follow    int
	labels    [scoreSeats]string
	footer    [2]string // the Footer's status and keys
	chat      string    // the chat marker, or the input line when typing without a pane
	typing    bool
}

// scoreSeats is how many seats a scoreboard's header shows.
const scoreSeats = 4

// roomHUD is the room screen's header and footer around the board: each
// seat's name, rating and score (by team when the mode has teams), the
// figures on the right, the match or follow line and the keys. It draws
// them again only when what they show changed (plainKey, hudKey): most
// frames change nothing but the board.
type roomHUD struct {
	cfg  *RoomViewConfig
	cv   *canvas
	chat footerChat
	// drawn: the header and footer on screen are the ones plain or key
	// describe; false draws them again in the next frame.
	drawn bool
	plain plainKey // what a header without a scoreboard shows
	key   hudKey   // what a scoreboard's header shows
	// follow is the seat a watcher follows this frame (-1: none).
	follow int
	colour bool // the profile has colours (else seats are marked)
	// The scoreboard header as last drawn whole, for drawing its figures
	// alone when only they change (the round trip every 2 s, the frame
	// rate, the watchers): the column the seats end at, their width as
	// fitHeader measures it, and whether they kept their ratings and
	// whole names, the one fit new figures leave as it is while they
	// still fit beside it.
	figX, figSeatsW int
	figRoomy        bool
	// A plain header's match line: whether it sat in the header, and the
	// column the header's text ends at (the figures' area starts there).
	figStatusIn bool
	figEnd      int
}

// footerChat is what the footer needs of the chat pane: its marker, and
// the input line when there is no pane to type in, which the footer then
// shows (tail) so the player still sees what they type.
type footerChat interface {
	footer() (marker, prompt string, typing bool)
	tail(x, y, w int, s string, st screen.Style)
}

// invalidate has the next frame draw the header and footer again:
// something was drawn over them, or the screen was cleared.
func (hd *roomHUD) invalidate() { hd.drawn = false }

// paintScores draws the header of a game with a scoreboard (each seat's
// name, rating and score, by team when the mode has teams; the figures on
// the right) and the footer; fps is the frame rate the header shows.
func (hd *roomHUD) paintScores(fr *game.Frame, sb gameview.Scoreboard, fps int) {
	cfg, w, h := hd.cfg, hd.cv.w, hd.cv.h
	k := hudKey{finished: fr.Phase == game.Finished, figs: hd.figures(fps), w: w, h: h, follow: hd.follow,
		keys: cfg.Game.KeyHelp(cfg.Slot)}
	teams := sb.Teams(fr.State)
	k.teams = len(teams)
	for slot := range scoreSeats {
		k.team[slot] = -1
		for t, members := range teams {
			if slices.Contains(members, slot) {
				k.team[slot] = int8(t)
			}
		}
	}
	if cfg.Footer != nil {
		k.footer[0], k.footer[1] = cfg.Footer()
	}
	if marker, prompt, typing := hd.chat.footer(); typing {
		k.chat, k.typing = prompt, true
	} else {
		k.chat = marker
	}
	seated := 0
	for _, s := range fr.Seats {
		if s.Taken {
			seated++
		}
	}
	k.alone = seated < game.DefaultMinPlayers
	k.warmUp = fr.WarmUp
	for slot := range fr.Forfeited {
		k.anyLeft = k.anyLeft || leftMatch(fr, slot)
	}
	for slot := range min(len(fr.Seats), scoreSeats) {
		k.labels[slot] = cfg.label(fr, slot)
		k.names[slot] = seatName(fr, slot)
		k.taken[slot] = fr.Seats[slot].Taken
		k.connected[slot] = fr.Seats[slot].Connected
		k.left[slot] = !k.taken[slot] && leftMatch(fr, slot)
		// Someone who took the seat after the match did not score its
		// points.
		k.score[slot] = sb.ScoreText(fr.State, slot, !scoredBy(fr, slot))
	}
	if f := k.follow; f >= 0 && f < scoreSeats {
		k.followed = sb.FollowText(fr.State, f, !scoredBy(fr, f))
	}
	if k == hd.key && hd.drawn {
		return
	}
	// Only the figures changed: the seats and the footer stay as drawn.
	figsOnly := false
	if hd.drawn {
		was := hd.key
		was.figs = k.figs
		figsOnly = was == k
	}
	figs := k.figs.text(cfg.Slot >= 0)
	hd.key = k
	hd.drawn = true
	if figsOnly && hd.figRoomy && hd.paintFigures(figs) {
		return
	}
	scr := hd.cv.scr
	scr.Fill(0, 0, w, 1, ' ', stDefault)
	var roomy bool
	parts, right := fitHeader(w, figs, func(labels bool, nameMax int) []hudPart {
		roomy = labels && nameMax == 16 // the fit is the last built
		return hd.parts(fr, &k, labels, nameMax)
	})
	x := 1
	for _, p := range parts {
		x += scr.Text(x, 0, p.text, p.st)
	}
	scr.Text(max(w-len([]rune(right))-1, x), 0, right, stDim)
	hd.figX, hd.figSeatsW, hd.figRoomy = x, partsWidth(parts), roomy
	if figsOnly {
		return // the footer shows none of the figures
	}

	foot := "q leave"
	switch {
	case k.finished && cfg.Ranked && (k.alone || k.anyLeft):
		// A ranked rematch needs every player the queue seated.
		foot = "n queue · q leave"
	case k.finished && k.alone && cfg.WarmUp && cfg.Slot >= 0:
		foot = "alone: r warm up · q leave"
	case k.finished && k.alone:
		foot = "waiting for players · q leave"
	case k.finished && cfg.Ranked:
		foot = "r rematch · n queue · q leave"
	case k.finished:
		foot = "r rematch · q leave"
	default:
		foot = k.keys + " · q leave"
	}
	status, keys := cfg.title(fr), foot
	if cfg.Footer != nil {
		status, keys = k.footer[0], k.footer[1]
	}
	if k.warmUp {
		// Whoever sees it, player or watcher, learns why no miss counts.
		status = "warm-up: nothing counts until someone sits"
	}
	follow := ""
	if k.follow >= 0 && k.follow < scoreSeats && k.names[k.follow] != "" {
		// Follow mode: the followed player's match so far.
		who := strings.TrimSpace(k.names[k.follow] + " " + k.labels[k.follow])
		follow = fmt.Sprintf("following %s · %s", who, k.followed)
	}
	mark := ""
	if !k.typing {
		mark = k.chat
	}
	foot = fitFooter(w, follow, status, keys, mark, cfg.Footer == nil, cfg.StatusFirst)
	scr.Fill(0, h-1, w, 1, ' ', stDefault)
	if k.typing {
		// No room for the pane: the input line takes the footer, so the
		// player still sees what they type.
		hd.chat.tail(0, h-1, w, k.chat, stBold)
		return
	}
	scr.Text(max((w-len([]rune(foot)))/2, 0), h-1, foot, stDim)
}

// paintFigures draws the scoreboard header's figures again beside seats
// drawn roomy, as fitHeader would place them, and reports whether they
// still fit there (false: the header must be fitted again, whole).
func (hd *roomHUD) paintFigures(figs []string) bool {
	w, scr := hd.cv.w, hd.cv.scr
	for n := len(figs); n >= 1; n-- {
		right := strings.Join(figs[:n], " · ")
		if hd.figSeatsW+headerGap+len([]rune(right))+2 > w {
			continue
		}
		scr.Fill(hd.figX, 0, w-hd.figX, 1, ' ', stDefault)
		scr.Text(max(w-len([]rune(right))-1, hd.figX), 0, right, stDim)
		return true
	}
	return false
}

// paintPlainFigures draws a plain header's figures again beside seats
// drawn roomy and the match line where it was, as paintPlain would place
// them; false when they no longer fit there or would move the match line
// (the header must be fitted again, whole).
func (hd *roomHUD) paintPlainFigures(figs []string, status string) bool {
	w, scr := hd.cv.w, hd.cv.scr
	for n := len(figs); n >= 1; n-- {
		right := strings.Join(figs[:n], " · ")
		if hd.figSeatsW+headerGap+len([]rune(right))+2 > w {
			continue
		}
		if in := statusFits(hd.figX, status, right, w); in != hd.figStatusIn {
			return false
		}
		scr.Fill(hd.figEnd, 0, w-hd.figEnd, 1, ' ', stDefault)
		scr.Text(max(w-len([]rune(right))-1, hd.figX), 0, right, stDim)
		return true
	}
	return false
}

// statusFits says whether the match line, drawn from x (where the seats
// end, their trailing gap included), leaves headerGap before the figures
// (right, drawn against the right edge). Measured from the seats less
// their trailing spaces it left none: "2 ridingrtt <1ms".
func statusFits(x int, status, right string, w int) bool {
	return status != "" && x+len([]rune(status))+headerGap <= w-len([]rune(right))-1
}

// title is the room as the header and the waiting screen name it: a
// casual room where bots sit (b) says so, since its matches are then
// practice with bots, not the casual match the title promised.
func (c *RoomViewConfig) title(fr *game.Frame) string {
	if c.Bots && fr != nil && slices.ContainsFunc(fr.Seats, func(s game.Seat) bool { return s.Taken && bot.IsBot(s.Player.ID) }) {
		return c.Title + " · vs bots"
	}
	return c.Title
}

// playedBy names who played slot in the match the frame shows, even after
// they left or someone else took the seat: a result is theirs.
func playedBy(fr *game.Frame, slot int) string {
	if slot < len(fr.Roster) && fr.Roster[slot].Name != "" {
		return fr.Roster[slot].Name
	}
	return seatName(fr, slot)
}

// leftMatch: the player who played slot left the match before it ended.
func leftMatch(fr *game.Frame, slot int) bool {
	return slot < len(fr.Forfeited) && fr.Forfeited[slot]
}

// scoredBy: the points on slot belong to whoever sits there now. A player
// who takes a seat after a match starts at zero, not with the points of the
// one who played it.
func scoredBy(fr *game.Frame, slot int) bool {
	if slot >= len(fr.Roster) || fr.Roster[slot].ID == "" || slot >= len(fr.Seats) || !fr.Seats[slot].Taken {
		return true
	}
	return fr.Seats[slot].Player.ID == fr.Roster[slot].ID
}

// label is a seat's extra header text (its rating). Once a match has
// been rated, the ratings it produced replace the ones read when the view
// opened, so a rematch shows current ratings; a frame still showing the
// rated match before its end (a delayed watcher) keeps the old ones until
// the results are on screen.
func (c *RoomViewConfig) label(fr *game.Frame, slot int) string {
	if slot < 0 || slot >= maxSeats {
		return ""
	}
	if c.Outcome != nil && fr != nil {
		if o := c.Outcome(); o != nil && (o.Seed != fr.Seed || fr.Phase == game.Finished) &&
			slot < len(o.Changes) && o.Changes[slot].Games > 0 {
			return rating.Display(o.Changes[slot].After, o.Changes[slot].DeviationAfter)
		}
	}
	if c.Labels == nil {
		return ""
	}
	return c.Labels(slot)
}

// hudPart is a run of header text in one style.
type hudPart struct {
	text string
	st   screen.Style
}

// link is what the header says of the player's connection: the round
// trip in milliseconds (-1: unknown), and how many seconds the client has
// not answered once that makes the round trip stale (0: answering).
func (c *RoomViewConfig) link() (rttMS, noReplyS int64) {
	rttMS = -1
	if c.RTT != nil {
		if d := c.RTT(); d > 0 {
			rttMS = d.Milliseconds()
		}
	}
	if c.NoReply != nil {
		if d := c.NoReply(); d >= staleAfter {
			noReplyS = int64(d / time.Second)
		}
	}
	return rttMS, noReplyS
}

// hudFigures are the header's figures on the right. They change on
// their own (the round trip at each probe, the frame rate, who watches),
// and then only they are drawn again; both headers keep them as one
// field so that "only the figures changed" is one comparison.
type hudFigures struct {
	watchers int
	rttMS    int64 // -1: unknown
	noReplyS int64 // seconds without an answer, from staleAfter; 0 = answering
	fps      int
}

// figures reads the header's figures as they are now; fps is the frame
// rate the header shows.
func (hd *roomHUD) figures(fps int) hudFigures {
	f := hudFigures{fps: fps}
	if hd.cfg.Watchers != nil {
		f.watchers = hd.cfg.Watchers()
	}
	f.rttMS, f.noReplyS = hd.cfg.link()
	return f
}

// text is the figures as the header shows them, fullest first: what the
// header can drop before a name loses characters or a rating. A player
// (not a watcher) sees the round trip, stale (no reply) when the client
// has not answered for a while.
func (f hudFigures) text(player bool) []string {
	var figs []string
	if f.watchers > 0 {
		figs = append(figs, fmt.Sprintf("%d watching", f.watchers))
	}
	if player {
		rtt := "rtt –"
		switch {
		case f.noReplyS > 0:
			rtt = fmt.Sprintf("no reply %ds", f.noReplyS)
		case f.rttMS == 0:
			rtt = "rtt <1ms"
		case f.rttMS > 0:
			rtt = fmt.Sprintf("rtt %dms", f.rttMS)
		}
		figs = append(figs, rtt)
	}
	return append(figs, fmt.Sprintf("%dfps", f.fps))
}

// fitHeader fits the header's seats (build makes them, with or without
// ratings, names cut to nameMax) and figures into w columns. Names keep
// all 16 characters and their ratings while they fit: the figures give
// way first (fps, then rtt), then ratings, then names are shortened.
func fitHeader(w int, figs []string, build func(labels bool, nameMax int) []hudPart) (parts []hudPart, right string) {
	fit := func(labels bool, nameMax int) bool {
		parts = build(labels, nameMax)
		for n := len(figs); n >= 1; n-- {
			right = strings.Join(figs[:n], " · ")
			if partsWidth(parts)+headerGap+len([]rune(right))+2 <= w {
				return true
			}
		}
		return false
	}
	if !fit(true, 16) {
		for n := 16; n >= 3 && !fit(false, n); n-- {
		}
	}
	return parts, right
}

// headerGap is the least space between the seats and the figures: a team
// header ends in its score, and with no gap "0" ran into "rtt 142ms".
const headerGap = 2

// partsWidth is the columns the seats take, less the spaces they end
// with (a seat's own trailing gap counts towards headerGap).
func partsWidth(ps []hudPart) int {
	n, trail := 0, 0
	for _, p := range ps {
		r := []rune(p.text)
		n += len(r)
		kept := len([]rune(strings.TrimRight(p.text, " ")))
		if kept > 0 {
			trail = 0
		}
		trail += len(r) - kept
	}
	return n - trail
}

// parts is the scoreboard header's left side for fr: each seat's name,
// rating and score in its style; with teams, each team with its score.
func (hd *roomHUD) parts(fr *game.Frame, k *hudKey, labels bool, nameMax int) []hudPart {
	var ps []hudPart
	seat := func(slot int) string {
		name := k.names[slot]
		if r := []rune(name); len(r) > nameMax {
			name = string(r[:nameMax-1]) + "…"
		}
		if slot == hd.cfg.Slot || slot == k.follow {
			name = "▸" + name
		}
		if labels && k.labels[slot] != "" {
			name += " " + k.labels[slot]
		}
		return name
	}
	// state marks a disconnected player and one who left the match.
	state := func(slot int) string {
		switch {
		case k.taken[slot] && !k.connected[slot]:
			return " ⌁"
		case k.left[slot]:
			return " left"
		}
		return ""
	}
	style := func(slot int) screen.Style {
		_, st, _, _ := hd.cfg.Game.Seat(fr.State, slot)
		return st
	}
	if k.teams > 0 {
		for team := range k.teams {
			first := -1
			for slot := range scoreSeats {
				if int(k.team[slot]) != team || k.names[slot] == "" {
					continue
				}
				if first < 0 {
					ps = append(ps, hudPart{string(rune('A'+team)) + ": ", stDim})
					first = slot
				}
				ps = append(ps, hudPart{seat(slot) + state(slot) + " ", style(slot)})
			}
			if first >= 0 {
				// Teammates share their team's score.
				ps = append(ps, hudPart{strings.TrimSpace(k.score[first]), stBold})
				if team < k.teams-1 {
					ps = append(ps, hudPart{"   ", stDefault})
				}
			}
		}
		return ps
	}
	for slot := range scoreSeats {
		if k.names[slot] == "" {
			continue
		}
		ps = append(ps, hudPart{seat(slot) + k.score[slot] + state(slot) + "  ", style(slot)})
	}
	return ps
}

// fitFooter composes the footer line within w columns. What gives way
// first is the chat marker, then the status (progress), then the follow
// details; when the status is only the room's title (titleOnly: a player's
// footer) it goes before the marker, since unread messages are news and
// the title is not; the keys stay, and if even they are too long their end
// survives, so "q leave" or "q back" is always on screen. With statusFirst
// (a replay: its clock) the follow or match line gives way before the
// status does.
func fitFooter(w int, follow, status, keys, mark string, titleOnly, statusFirst bool) string {
	compose := func(f, s, m bool) string {
		var left []string
		if f && follow != "" {
			left = append(left, follow)
		}
		if s && status != "" {
			left = append(left, status)
		}
		out := strings.Join(append(left, keys), "   ")
		if m && mark != "" {
			out += " · " + mark
		}
		return out
	}
	order := [][3]bool{{true, true, true}, {true, true, false}, {true, false, true}, {true, false, false}, {false, false, true}, {false, false, false}}
	if titleOnly {
		order[1], order[2] = order[2], order[1]
	}
	if statusFirst {
		order = [][3]bool{{true, true, true}, {true, true, false}, {false, true, true}, {false, true, false}, {false, false, true}, {false, false, false}}
	}
	for i, o := range order {
		if s := compose(o[0], o[1], o[2]); len([]rune(s)) <= w {
			return s
		}
		if i == 3 && follow != "" {
			// A followed player's match is worth more than the keys a
			// watcher already used to follow them: keep the last two
			// (the next room, and out) before giving it up.
			if items := strings.Split(keys, " · "); len(items) > 2 {
				if s := follow + "   " + strings.Join(items[len(items)-2:], " · "); len([]rune(s)) <= w {
					return s
				}
			}
		}
	}
	if r := []rune(keys); len(r) > w && w > 1 {
		return "…" + string(r[len(r)-w+1:])
	}
	return keys
}

func seatName(fr *game.Frame, slot int) string {
	if slot < len(fr.Seats) && fr.Seats[slot].Taken {
		return fr.Seats[slot].Player.Name
	}
	if slot < len(fr.Roster) && fr.Roster[slot].Name != "" {
		return fr.Roster[slot].Name
	}
	return ""
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
	seats    [maxSeats]plainSeat
	status   string
	colour   bool
	figs     hudFigures
	w, h     int
	finished bool
	anyLeft  bool
	footer   [2]string // the Footer's status and keys
	marker   string    // the chat marker
	typing   string    // the input line while typing without a pane
}

// paintPlain draws the header of a game without a scoreboard (each seat's
// mark, name, rating and score, then the match line; the figures on the
// right) and the footer; fps is the frame rate the header shows.
func (hd *roomHUD) paintPlain(fr *game.Frame, fps int) {
	cfg, w, h := hd.cfg, hd.cv.w, hd.cv.h
	gv := cfg.Game
	k := plainKey{colour: hd.colour, figs: hd.figures(fps), w: w, h: h, finished: fr.Phase == game.Finished}
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
		k.seats[slot] = plainSeat{shown: true, name: seatName(fr, slot), label: cfg.label(fr, slot), mark: mark, st: st, score: score,
			me: slot == cfg.Slot || slot == hd.follow, away: s.Taken && !s.Connected, left: leftMatch(fr, slot), out: out}
	}
	if cfg.Footer != nil {
		k.footer[0], k.footer[1] = cfg.Footer()
	}
	k.marker, k.typing, _ = hd.chat.footer()
	if k == hd.plain && hd.drawn {
		return
	}
	// Only the figures changed: the seats, the match line and the footer
	// stay as drawn, unless the new figures move the match line.
	figsOnly := false
	if hd.drawn {
		was := hd.plain
		was.figs = k.figs
		figsOnly = was == k
	}
	hd.plain = k
	hd.drawn = true

	scr := hd.cv.scr
	figs := k.figs.text(cfg.Slot >= 0)
	if figsOnly && hd.figRoomy && hd.paintPlainFigures(figs, k.status) {
		return
	}
	wasIn := hd.figStatusIn
	var roomy bool
	parts, right := fitHeader(w, figs, func(labels bool, nameMax int) []hudPart {
		roomy = labels && nameMax == 16 // the fit is the last built
		return k.parts(labels, nameMax)
	})
	scr.Fill(0, 0, w, 1, ' ', stDefault)
	x := 1
	for _, p := range parts {
		x += scr.Text(x, 0, p.text, p.st)
	}
	// The match line goes in the header after the names when it fits
	// there, else in the footer.
	inHeader := statusFits(x, k.status, right, w)
	footStatus := ""
	if !inHeader {
		footStatus = k.status
	}
	end := x
	if inHeader {
		end += scr.Text(x, 0, k.status, stDim)
	}
	scr.Text(max(w-len([]rune(right))-1, x), 0, right, stDim)
	hd.figX, hd.figSeatsW, hd.figRoomy, hd.figStatusIn, hd.figEnd = x, partsWidth(parts), roomy, inHeader, end
	if figsOnly && inHeader == wasIn {
		return // the footer shows none of the figures, nor the match line now
	}
	scr.Fill(0, h-1, w, 1, ' ', stDefault)
	if k.typing != "" {
		// No room for the pane: the input line takes the footer, so the
		// player still sees what they type.
		hd.chat.tail(0, h-1, w, k.typing, stBold)
		return
	}
	foot := hd.footerLine(fr, &k, footStatus)
	scr.Text(max((w-len([]rune(foot)))/2, 0), h-1, foot, stDim)
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
func (hd *roomHUD) footerLine(fr *game.Frame, k *plainKey, match string) string {
	cfg := hd.cfg
	gv := cfg.Game
	keys := gv.KeyHelp(cfg.Slot) + " · q leave"
	switch {
	case k.finished && cfg.Ranked && k.anyLeft:
		// A ranked rematch needs every player the queue seated.
		keys = "n queue · q leave"
	case k.finished && cfg.Ranked:
		keys = "r rematch · n queue · q leave"
	case k.finished:
		keys = "r rematch · q leave"
	}
	status := cfg.title(fr)
	if cfg.Footer != nil {
		status, keys = k.footer[0], k.footer[1]
		if help := gv.LookHelp(); help != "" && cfg.Look {
			keys = help + " · " + keys
		}
	}
	return fitFooter(hd.cv.w, match, status, keys, k.marker, cfg.Footer == nil, cfg.StatusFirst)
}
