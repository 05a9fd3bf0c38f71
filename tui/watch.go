package tui

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/rating"
	"github.com/termarena/termarena/spectator"
	"github.com/termarena/termarena/store"
)

// watching is a session spectating a room.
type watching struct {
	room *lobby.Room
	// view is the watcher's own room screen; with a WatchHub it is nil and
	// seat has the watcher's place among the shared painters, which see
	// prompt and camera.
	view   *RoomView
	seat   *watchSeat
	prompt []string
	helpAt int // the game's key line goes before prompt[helpAt]; -1: a plain prompt
	camera bool
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

// ratingReader is the store's rating lookup, all the chooser reads.
type ratingReader interface {
	Rating(ctx context.Context, mode, fp string) (store.Rating, bool, error)
}

// watchEndedMsg: the watched room ended, or its feed did; roomFailed and
// feedFailed say which ended on a server error (Frame.Failed).
type watchEndedMsg struct {
	room                   *lobby.Room
	roomFailed, feedFailed bool
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

// openChooser shows the live rooms to watch, with notice over them.
func (m *Lobby) openChooser(notice string) tea.Cmd {
	if m.chooser == nil {
		m.chooser = &chooserPage{sh: m, hand: m, rooms: m.d.Rooms, ctx: m.d.Ctx, rr: m.ratings, scores: m.scoreboard}
	}
	m.show(m.chooser)
	m.notice = notice
	return m.chooser.open()
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
	w := &watching{room: r, cancel: cancel, done: make(chan struct{}), stop: stop, helpAt: -1}
	w.follow.Store(-1)
	labels := ratingLabels(ctx, m.ratings, r)
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
	cfg := RoomViewConfig{
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
	}
	if hub := m.d.Watchers; hub != nil {
		views, name, profile := m.d.Views, r.Game.Name(), m.d.Profile
		cfg.Game = nil // each painter makes its own
		w.seat = &watchSeat{hasGame: views[name] != nil, hub: hub, room: r, base: cfg, out: m.d.Out, metrics: cfg.Metrics, onPanic: m.d.OnPanic,
			chat: cfg.Chat, done: w.done,
			newGame: func() gameview.View { return views.newGameView(name, profile) }}
		w.seat.sync(m.watchPicture(w))
		w.seat.start(ctx)
	} else {
		w.view = NewRoomView(cfg)
		goGuarded(m.d.OnPanic, func() {
			defer close(w.done)
			w.view.Run(ctx)
		})
	}
	m.watch, m.scr, m.state, m.notice, m.help = w, nil, stWatch, "", false
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
	if w.seat != nil {
		w.seat.stop()
	}
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

func ratingLabels(ctx context.Context, rr ratingReader, r *lobby.Room) seatLabels {
	var out seatLabels
	if r.Ranked == "" || rr == nil {
		return out
	}
	for id, slot := range r.Seats {
		if slot < 0 || slot >= maxSeats {
			continue
		}
		if rt, _, err := rr.Rating(ctx, string(r.Ranked), string(id)); err == nil {
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
			w.setPrompt()
			return nil
		}
		// The game's camera keys go after the watcher's (SetHelp).
		w.setHelp([]string{"Keys", w.keys, "t/enter chat · ? or any key closes this"}, 2)
		return nil
	}
	if w.helping {
		w.helping = false
		w.setPrompt()
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
		m.look(w, "0")
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
		if w.hasGame() {
			m.look(w, s) // the game view's camera keys
		}
	}
	return nil
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

// watchPicture is what the watcher's screen shows besides the room.
func (m *Lobby) watchPicture(w *watching) watchPicture {
	return watchPicture{w: m.w, h: m.h, follow: int(w.follow.Load()), prompt: w.prompt, helpAt: w.helpAt, camera: w.camera}
}

// syncWatch puts a watcher among the watchers who see what it sees (after
// every message: a resize, a key, a chat line may each change that).
func (m *Lobby) syncWatch() {
	if w := m.watch; w != nil && w.seat != nil {
		w.seat.sync(m.watchPicture(w))
	}
}

// setPrompt shows lines over the board (none: closes it).
func (w *watching) setPrompt(lines ...string) {
	if w.seat == nil {
		w.view.SetPrompt(lines...)
		return
	}
	w.prompt, w.helpAt = nil, -1
	if len(lines) > 0 {
		w.prompt = lines
	}
}

// setHelp shows key help over the board, the game's camera keys before
// lines[at] (RoomView.SetHelp).
func (w *watching) setHelp(lines []string, at int) {
	if w.seat == nil {
		w.view.SetHelp(lines, at)
		return
	}
	w.prompt, w.helpAt = lines, at
}

// hasGame reports whether the room's game has a view (else no key is the
// game's).
func (w *watching) hasGame() bool {
	if w.seat != nil {
		return w.seat.hasGame
	}
	return w.view.HasGame()
}

// resize takes the watcher's new terminal size.
func (w *watching) resize(width, height int) {
	if w.view != nil {
		w.view.Resize(width, height)
	}
}

// look hands a camera key to the game's view. A shared painter's camera
// is everyone's, so a watcher who moves it gets a painter of its own until
// it goes back to the overview (0). A game without a camera takes no key.
func (m *Lobby) look(w *watching, key string) {
	if w.seat == nil {
		w.view.Look(key)
		return
	}
	// The lobby's own view of the game says whether it has a camera.
	if gv := m.gameView(w.room.Game.Name()); gv == nil || gv.LookHelp() == "" {
		return
	}
	w.camera = key != "0"
	m.syncWatch()
	w.seat.look(key)
}
