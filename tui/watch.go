package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/rating"
	"github.com/termarena/termarena/spectator"
	"github.com/termarena/termarena/store"
)

// watching is a session spectating a room.
type watching struct {
	room   *lobby.Room
	view   *RoomView
	cancel context.CancelFunc
	done   chan struct{}
	stop   func()
	follow atomic.Int32
	// keys is the footer's key line; helping: they are shown whole over
	// the board (?), with the game's camera keys.
	keys    string
	helping bool
}

// watchFeed adapts a room's delayed feed to the view: watchers read frames
// and never submit.
type watchFeed struct {
	room *lobby.Room
	feed *spectator.Delay
}

func (w watchFeed) ID() string                            { return w.room.ID() }
func (w watchFeed) LatestAt() (*game.Frame, time.Time)    { return w.feed.LatestAt() }
func (w watchFeed) Submit(game.PlayerID, game.Input) bool { return false }

type liveMsg struct {
	rooms  []*lobby.Room
	labels map[*lobby.Room]seatLabels
	ch     <-chan struct{}
}

// ratingReader is the store's rating lookup, all the chooser reads.
type ratingReader interface {
	Rating(mode, fp string) (store.Rating, bool, error)
}

// watchEndedMsg: the watched room ended, or its feed did; roomFailed and
// feedFailed say which ended on a server error (Frame.Failed).
type watchEndedMsg struct {
	room                   *lobby.Room
	roomFailed, feedFailed bool
}

// watchLive follows the live-room list. Ratings are read here, once per
// change of the list, never while drawing it: a ranked room's players are
// fixed when it is created, so its labels cannot go stale in the list.
func (m *Lobby) watchLive(ch <-chan struct{}) tea.Cmd {
	rs, rr := m.d.Rooms, m.ratings
	return afterChange(m.d.Ctx, ch, func() tea.Msg {
		rooms, next := rs.Live()
		rooms = liveFirst(rooms)
		return liveMsg{rooms, readLabels(rr, rooms), next}
	})
}

// openChooser shows the live rooms to watch.
func (m *Lobby) openChooser(notice string) tea.Cmd {
	rooms, ch := m.d.Rooms.Live()
	rooms = liveFirst(rooms)
	m.live, m.liveLabels = rooms, readLabels(m.ratings, rooms)
	m.liveSel = min(m.liveSel, max(len(rooms)-1, 0))
	m.state, m.notice = stWatchList, notice
	return m.watchLive(ch)
}

// liveFirst orders the chooser's rooms by what there is to watch: matches
// in play (or counting down) first, then rooms waiting for players, then
// finished ones; oldest first within each (the order Rooms.Live gives).
// Rooms.Live alone put the oldest, often finished, rooms at the top of
// "Watch a live room".
func liveFirst(rooms []*lobby.Room) []*lobby.Room {
	rank := func(r *lobby.Room) int {
		fr, _ := r.Latest()
		switch {
		case fr == nil || fr.Phase == game.Waiting:
			return 1
		case fr.Phase == game.Finished:
			return 2
		}
		return 0
	}
	slices.SortStableFunc(rooms, func(a, b *lobby.Room) int { return rank(a) - rank(b) })
	return rooms
}

// resortLive re-orders the chooser's rooms as their phases change (the
// list itself is re-read only when rooms come and go), keeping the cursor
// on the room it was on.
func (m *Lobby) resortLive() {
	var sel *lobby.Room
	if m.liveSel < len(m.live) {
		sel = m.live[m.liveSel]
	}
	m.live = liveFirst(m.live)
	if i := slices.Index(m.live, sel); i >= 0 {
		m.liveSel = i
	}
}

// scoreboard is the scoreboard of the game named name, for the chooser's
// scores (nil: the game has none).
func (m *Lobby) scoreboard(name string) gameview.Scoreboard {
	sb, _ := m.gameView(name).(gameview.Scoreboard)
	return sb
}

// gameView is the game named name's view as the lobby's own screens use it
// (the chooser's scores, the help's keys), nil when the game has none. The
// lobby keeps one per game, used only on the program's goroutine; a room
// screen has its own.
func (m *Lobby) gameView(name string) gameview.View {
	if gv, ok := m.views[name]; ok {
		return gv
	}
	gv := m.d.Views.newGameView(name, m.d.Profile)
	if m.views == nil {
		m.views = map[string]gameview.View{}
	}
	m.views[name] = gv
	return gv
}

// readLabels reads the ratings of every ranked room's players.
func readLabels(rr ratingReader, rooms []*lobby.Room) map[*lobby.Room]seatLabels {
	out := make(map[*lobby.Room]seatLabels, len(rooms))
	for _, r := range rooms {
		if r.Ranked != "" {
			out[r] = ratingLabels(rr, r)
		}
	}
	return out
}

// spectate starts watching r.
func (m *Lobby) spectate(r *lobby.Room) tea.Cmd {
	m.stopWatching()
	feed, stop, err := r.Watch()
	if err != nil {
		// The room has as many watchers as it takes.
		return m.openChooser(err.Error() + ".")
	}
	ctx, cancel := context.WithCancel(m.d.Ctx)
	w := &watching{room: r, cancel: cancel, done: make(chan struct{}), stop: stop}
	w.follow.Store(-1)
	labels := ratingLabels(m.ratings, r)
	title := fmt.Sprintf("watching %s · %s", r.ID(), r.Info().Label)
	if d := r.SpectateDelay(); d > 0 {
		title += fmt.Sprintf(" · %ds behind", int(d.Seconds()))
	}
	seats := r.Mode.Seats
	if r.Ranked != "" && r.Mode.Table > 0 {
		seats = min(seats, r.Mode.Table) // the queue seats no more
	}
	keys := fmt.Sprintf("tab/1-%d follow · 0 overview · n/p next room · q back", min(seats, 9))
	w.keys = keys
	w.view = NewRoomView(RoomViewConfig{
		Game: m.d.Views.newGameView(r.Game.Name(), m.d.Profile), Look: true,
		Room: watchFeed{r, feed}, Slot: -1, Title: title, Out: m.d.Out, Profile: m.d.Profile, FPS: m.d.FPS, Clocks: m.d.Clocks,
		Width: m.w, Height: m.h, Ranked: r.Ranked != "", Outcome: r.Outcome, Watchers: r.Watchers,
		Follow:   func() int { return int(w.follow.Load()) },
		Labels:   func(slot int) string { return labels[slot] },
		Footer:   func() (string, string) { return title, keys },
		OverKeys: "match over · n next room · q back",
		WaitText: "waiting for the match to start · n next room · q back",
		Metrics:  m.metricsFor(r.Game.Name()),
		Chat:     m.chatFeed(),
	})
	goGuarded(m.d.OnPanic, func() {
		defer close(w.done)
		w.view.Run(ctx)
	})
	m.watch, m.state, m.notice, m.help = w, stWatch, "", false
	return func() tea.Msg {
		// The feed ends after the room, or alone when it failed.
		select {
		case <-r.Done():
		case <-feed.Done():
		case <-ctx.Done():
			return nil
		}
		rf, _ := r.Latest()
		ff, _ := feed.Latest()
		return watchEndedMsg{r, rf.Failed, ff != nil && ff.Failed}
	}
}

// stopWatching ends the watch view; the returned command repaints once the
// view has stopped drawing.
func (m *Lobby) stopWatching() tea.Cmd {
	w := m.watch
	if w == nil {
		return nil
	}
	m.watch = nil
	w.cancel()
	w.stop()
	return func() tea.Msg {
		<-w.done
		return viewStoppedMsg{}
	}
}

// ratingLabels reads each player's rating in a ranked room, by the seats
// the match gave them (known before anyone sits down). The room view
// replaces them with each finished match's outcome, so they are read once.
// maxSeats is the most seats any game has (light cycles: 8).
const maxSeats = 8

// seatLabels are each seat's header text (its rating).
type seatLabels [maxSeats]string

func ratingLabels(rr ratingReader, r *lobby.Room) seatLabels {
	var out seatLabels
	if r.Ranked == "" || rr == nil {
		return out
	}
	for id, slot := range r.Seats {
		if slot < 0 || slot >= maxSeats {
			continue
		}
		if rt, _, err := rr.Rating(string(r.Ranked), string(id)); err == nil {
			// The deviation as of now, grown for the time away, as the
			// profile shows it: one back after months wears the "?".
			dev := rt.Deviation
			if !rt.Updated.IsZero() && dev > 0 {
				p := rating.Player{Rating: rt.Rating, Deviation: dev, Volatility: rt.Volatility}
				dev = rating.Decay(p, rating.Periods(time.Since(rt.Updated).Hours()/24)).Deviation
			}
			out[slot] = rating.Display(rt.Rating, dev)
		}
	}
	return out
}

// watchKey handles keys while watching.
func (m *Lobby) watchKey(s string) tea.Cmd {
	w := m.watch
	if s == "?" {
		// A watcher's keys, whole: the footer may have had to cut them.
		w.helping = !w.helping
		if !w.helping {
			w.view.SetPrompt()
			return nil
		}
		lines := []string{"Keys", w.keys}
		if gv := w.view.Plugin(); gv != nil && gv.LookHelp() != "" {
			lines = append(lines, gv.LookHelp())
		}
		w.view.SetPrompt(append(lines, "t/enter chat · ? or any key closes this")...)
		return nil
	}
	if w.helping {
		w.helping = false
		w.view.SetPrompt()
	}
	switch s {
	case "q", "esc":
		if s == "esc" && w.follow.Load() >= 0 {
			w.follow.Store(-1)
			return nil
		}
		return tea.Sequence(m.stopWatching(), m.openChooser(""))
	case "0":
		// The overview: no player followed, and no free camera either.
		w.follow.Store(-1)
		w.view.Look("0")
	case "1", "2", "3", "4", "5", "6", "7", "8":
		if n := int(s[0] - '1'); n < w.room.Mode.Seats {
			w.follow.Store(int32(n))
		}
	case "tab":
		fr, _ := w.room.Latest()
		if fr == nil {
			return nil
		}
		next := int(w.follow.Load())
		for range len(fr.Seats) + 1 {
			next++
			if next >= len(fr.Seats) {
				next = -1
			}
			if next == -1 || fr.Seats[next].Taken {
				break
			}
		}
		w.follow.Store(int32(next))
	case "n", "p":
		rooms, _ := m.d.Rooms.Live()
		if len(rooms) == 0 {
			return nil
		}
		i := 0
		for k, r := range rooms {
			if r == w.room {
				i = k
			}
		}
		if s == "n" {
			i = (i + 1) % len(rooms)
		} else {
			i = (i + len(rooms) - 1) % len(rooms)
		}
		if rooms[i] == w.room {
			return nil
		}
		stop := m.stopWatching()
		return tea.Sequence(stop, m.spectate(rooms[i]))
	default:
		if w.view.Plugin() != nil {
			w.view.Look(s) // the game view's camera keys
		}
	}
	return nil
}

// renderChooser lists live rooms with their players, score and watchers.
func (m *Lobby) renderChooser() string {
	var b strings.Builder
	b.WriteString(lipgloss.NewStyle().Bold(true).Foreground(colText).Render("Watch a live room") + "\n\n")
	if m.notice != "" {
		b.WriteString(m.renderNotice() + "\n\n")
	}
	head := b.String()
	tail := "\n" + style(colDim).Render("↑/↓ choose · enter watch · esc back")
	if len(m.live) == 0 {
		return head + style(colDim).Render("  nothing is being played right now") + "\n" + tail
	}
	b.Reset()
	start, end, hint := listWindow(len(m.live), m.liveSel, m.listRows(head+tail))
	for i := start; i < end; i++ {
		r := m.live[i]
		ri := r.Info()
		line := fmt.Sprintf("%-5s %-16s %s", ri.ID, ri.Label, roomSummary(ri, m.liveLabels[r], m.scoreboard(ri.Game)))
		if n := ri.Watchers; n > 0 {
			line += fmt.Sprintf("  · %d watching", n)
		}
		st, cur := style(colText), "  "
		if i == m.liveSel {
			st, cur = lipgloss.NewStyle().Bold(true).Foreground(colGood), "▸ "
		}
		b.WriteString(st.Render(m.listLine(cur+line)) + "\n")
	}
	if hint != "" {
		b.WriteString(style(colDim).Render(hint) + "\n")
	}
	return head + b.String() + tail
}

// roomSummary is "alice 1520? 3 · bob 1480? 5" or the phase and names:
// scores as the game's scoreboard writes them (sb; nil: the standing).
func roomSummary(ri lobby.RoomInfo, labels seatLabels, sb gameview.Scoreboard) string {
	if !ri.Started {
		return "starting"
	}
	var parts []string
	for _, s := range ri.Players {
		p := s.Name
		if s.Slot < maxSeats && labels[s.Slot] != "" {
			p += " " + labels[s.Slot]
		}
		switch {
		case ri.Phase == game.Waiting:
		case sb != nil:
			p += sb.ScoreText(ri.State, s.Slot, false)
		case s.Slot < len(ri.Standing):
			p += fmt.Sprintf(" %d", ri.Standing[s.Slot])
		}
		parts = append(parts, p)
	}
	return fmt.Sprintf("%-9s %s", ri.Phase.String(), strings.Join(parts, " · "))
}
