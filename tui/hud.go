package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/rating"
	"github.com/termarena/termarena/screen"
)

// hudKey is everything the HUD and footer show. Comparing it is free, so
// the strings are only rebuilt (and allocated) when one of these changes.
type hudKey struct {
	names     [4]string
	taken     [4]bool
	connected [4]bool
	left      [4]bool // the player who played the seat left the match
	out       [4]bool
	score     [4]int32
	lives     [4]int32
	mode      pong.Mode
	finished  bool
	alone     bool // too few players seated for a rematch
	anyLeft   bool // a player of the match left it (no ranked rematch)
	hits      [4]int32
	rttMS     int64
	noReplyS  int64 // seconds without an answer, from staleAfter; 0 = answering
	fps       int
	w, h      int
	watchers  int
	follow    int
	labels    [4]string
	footer    [2]string // the Footer's status and keys
	chat      string    // the chat marker, or the input line when typing without a pane
	typing    bool
}

func (v *RoomView) paintHUD(fr *game.Frame, snap *pong.Snapshot) {
	k := hudKey{mode: snap.Mode, finished: fr.Phase == game.Finished, fps: v.fps, w: v.w, h: v.h, rttMS: -1, follow: v.follow, hits: snap.Hits}
	if v.cfg.Watchers != nil {
		k.watchers = v.cfg.Watchers()
	}
	if v.cfg.Footer != nil {
		k.footer[0], k.footer[1] = v.cfg.Footer()
	}
	if cl := v.chatNow; cl != nil {
		k.chat = cl.marker
		if cl.typing && v.pane.h == 0 {
			k.chat, k.typing = cl.prompt, true
		}
	}
	seated := 0
	for _, s := range fr.Seats {
		if s.Taken {
			seated++
		}
	}
	k.alone = seated < game.DefaultMinPlayers
	for slot := range fr.Forfeited {
		k.anyLeft = k.anyLeft || leftMatch(fr, slot)
	}
	for slot := range min(len(fr.Seats), 4) {
		k.labels[slot] = v.label(fr, slot)
		k.names[slot] = seatName(fr, slot)
		k.taken[slot] = fr.Seats[slot].Taken
		k.connected[slot] = fr.Seats[slot].Connected
		k.left[slot] = !k.taken[slot] && leftMatch(fr, slot)
		if scoredBy(fr, slot) {
			k.out[slot] = snap.Paddles[slot].Out
			k.score[slot] = snap.Scores[slot]
			k.lives[slot] = snap.Lives[slot]
		} else if snap.Config != nil {
			// Someone took the seat after the match: its points were not theirs.
			k.lives[slot] = int32(snap.Config.Lives)
		}
	}
	if v.cfg.RTT != nil {
		if d := v.cfg.RTT(); d > 0 {
			k.rttMS = d.Milliseconds()
		}
	}
	if v.cfg.NoReply != nil {
		if d := v.cfg.NoReply(); d >= staleAfter {
			k.noReplyS = int64(d / time.Second)
		}
	}
	if k == v.hudKey && v.hud != "" {
		return
	}
	v.hudKey = k
	v.hud = "drawn"
	v.scr.Fill(0, 0, v.w, 1, ' ', stDefault)
	// The figures on the right, fullest first: what the header can drop
	// before a name loses characters or a rating.
	var figs []string
	if k.watchers > 0 {
		figs = append(figs, fmt.Sprintf("%d watching", k.watchers))
	}
	if v.cfg.Slot >= 0 {
		rtt := "rtt –"
		if k.rttMS >= 0 {
			rtt = fmt.Sprintf("rtt %dms", k.rttMS)
			if k.rttMS == 0 {
				rtt = "rtt <1ms"
			}
		}
		if k.noReplyS > 0 {
			rtt = fmt.Sprintf("no reply %ds", k.noReplyS)
		}
		figs = append(figs, rtt)
	}
	figs = append(figs, fmt.Sprintf("%dfps", k.fps))
	// Names keep all 16 characters and their ratings while they fit: the
	// figures give way first (fps, then rtt), then ratings, then names
	// are shortened.
	var right string
	var parts []hudPart
	fit := func(labels bool, name int) bool {
		parts = v.hudParts(&k, labels, name)
		for n := len(figs); n >= 1; n-- {
			right = strings.Join(figs[:n], " · ")
			if partsWidth(parts)+len([]rune(right))+2 <= v.w {
				return true
			}
		}
		return false
	}
	if !fit(true, 16) {
		for n := 16; n >= 3 && !fit(false, n); n-- {
		}
	}
	x := 1
	for _, p := range parts {
		x += v.scr.Text(x, 0, p.text, p.st)
	}
	v.scr.Text(max(v.w-len([]rune(right))-1, x), 0, right, stDim)

	foot := "q leave"
	switch {
	case k.finished && v.cfg.Ranked && (k.alone || k.anyLeft):
		// A ranked rematch needs every player the queue seated.
		foot = "n queue · q leave"
	case k.finished && k.alone:
		foot = "waiting for players · q leave"
	case k.finished && v.cfg.Ranked:
		foot = "r rematch · n queue · q leave"
	case k.finished:
		foot = "r rematch · q leave"
	case v.cfg.Slot == pong.Left || v.cfg.Slot == pong.Right:
		foot = "w/s ↑/↓ move · q leave"
	default:
		foot = "a/d ←/→ move · q leave"
	}
	status, keys := v.cfg.Title, foot
	if v.cfg.Footer != nil {
		status, keys = k.footer[0], k.footer[1]
	}
	follow := ""
	if k.follow >= 0 && k.follow < 4 && k.names[k.follow] != "" {
		// Follow mode: the followed player's match so far.
		score := fmt.Sprintf("%d points", k.score[k.follow])
		if k.mode == pong.FFA4 {
			score = fmt.Sprintf("%d lives", k.lives[k.follow])
		}
		who := strings.TrimSpace(k.names[k.follow] + " " + k.labels[k.follow])
		follow = fmt.Sprintf("following %s · %s · %d hits", who, score, k.hits[k.follow])
	}
	mark := ""
	if !k.typing {
		mark = k.chat
	}
	foot = fitFooter(v.w, follow, status, keys, mark, v.cfg.Footer == nil)
	v.scr.Fill(0, v.h-1, v.w, 1, ' ', stDefault)
	if k.typing {
		// No room for the pane: the input line takes the footer, so the
		// player still sees what they type.
		v.chatTail(0, v.h-1, v.w, k.chat, stBold)
		return
	}
	v.scr.Text(max((v.w-len([]rune(foot)))/2, 0), v.h-1, foot, stDim)
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
func (v *RoomView) label(fr *game.Frame, slot int) string {
	if slot < 0 || slot >= maxSeats {
		return ""
	}
	if v.cfg.Outcome != nil && fr != nil {
		if o := v.cfg.Outcome(); o != nil && (o.Seed != fr.Seed || fr.Phase == game.Finished) &&
			slot < len(o.Changes) && o.Changes[slot].Games > 0 {
			return rating.Display(o.Changes[slot].After, o.Changes[slot].Games)
		}
	}
	if v.cfg.Labels == nil {
		return ""
	}
	return v.cfg.Labels(slot)
}

// hudPart is a run of header text in one style.
type hudPart struct {
	text string
	st   screen.Style
}

func partsWidth(ps []hudPart) int {
	n := 0
	for _, p := range ps {
		n += len([]rune(p.text))
	}
	return n
}

// hudParts is the header's left side: each side's name, rating and score;
// in 2v2 the two teams with their team score.
func (v *RoomView) hudParts(k *hudKey, labels bool, nameMax int) []hudPart {
	var ps []hudPart
	seat := func(slot int) string {
		name := k.names[slot]
		if r := []rune(name); len(r) > nameMax {
			name = string(r[:nameMax-1]) + "…"
		}
		if slot == v.cfg.Slot || slot == k.follow {
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
	if k.mode == pong.TwoVTwo {
		for team, slots := range [2][2]int{{pong.Left, pong.Right}, {pong.Top, pong.Bottom}} {
			shown := false
			for _, slot := range slots {
				if k.names[slot] == "" {
					continue
				}
				if !shown {
					ps = append(ps, hudPart{teamName(slot)[5:] + ": ", stDim})
					shown = true
				}
				ps = append(ps, hudPart{seat(slot) + state(slot) + " ", stSide0 + screen.Style(slot)})
			}
			if shown {
				ps = append(ps, hudPart{fmt.Sprintf("%d", k.score[slots[0]]), stBold})
				if team == 0 {
					ps = append(ps, hudPart{"   ", stDefault})
				}
			}
		}
		return ps
	}
	for slot := range 4 {
		if k.names[slot] == "" {
			continue
		}
		score := fmt.Sprintf(" %d", k.score[slot])
		if k.mode == pong.FFA4 {
			score = fmt.Sprintf(" ♥%d", k.lives[slot])
			if k.out[slot] {
				score = " out"
			}
		}
		ps = append(ps, hudPart{seat(slot) + score + state(slot) + "  ", stSide0 + screen.Style(slot)})
	}
	return ps
}

// fitFooter composes the footer line within w columns. What gives way
// first is the chat marker, then the status (progress), then the follow
// details; when the status is only the room's title (titleOnly: a player's
// footer) it goes before the marker, since unread messages are news and
// the title is not; the keys stay, and if even they are too long their end
// survives, so "q leave" or "q back" is always on screen.
func fitFooter(w int, follow, status, keys, mark string, titleOnly bool) string {
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
	for _, o := range order {
		if s := compose(o[0], o[1], o[2]); len([]rune(s)) <= w {
			return s
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
