package tui

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/chat"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/rating"
	"github.com/termarena/termarena/spectator"
	"github.com/termarena/termarena/store"
)

// watchScreen is a session spectating a room: the game screen whose keys
// follow a player (tab, 1-8, 0), move the game's camera, go to the next
// live room (n, p) or back to the watch list (q).
type watchScreen struct {
	kit  watchKit
	room *lobby.Room
	// view is the watcher's own room screen; with a WatchHub it is nil and
	// seat has the watcher's place among the shared painters, which see
	// prompt and camera.
	view   *RoomView
	seat   *watchSeat
	w, h   int
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

// watchKit is what a watch screen is built from: the session's, and the
// lobby's per-game views (which say whether a game has a camera).
type watchKit struct {
	d        *LobbyDeps
	chat     *chatState // nil without chat
	ratings  ratingReader
	metrics  func(game string) FrameMetrics
	gameView func(game string) gameview.View
	live     func() ([]*lobby.Room, <-chan struct{}) // the live rooms, for n and p
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
	if w, ok := m.play.(*watchScreen); ok {
		m.play = nil
		w.close()
	}
	k := watchKit{d: &m.d, chat: m.chat, ratings: m.ratings, metrics: m.metricsFor, gameView: m.gameView}
	if m.d.Rooms != nil {
		k.live = m.d.Rooms.Live
	}
	w, wait, err := startWatch(k, r, m.w, m.h)
	if err != nil {
		// The room has as many watchers as it takes.
		return m.openChooser(err.Error() + ".")
	}
	m.startPlay(w)
	return wait
}

// startWatch starts the watch screen of r; the command waits for the
// room's end.
func startWatch(k watchKit, r *lobby.Room, width, height int) (*watchScreen, tea.Cmd, error) {
	d := k.d
	feed, stop, err := r.Watch()
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(d.Ctx)
	w := &watchScreen{kit: k, room: r, w: width, h: height, cancel: cancel, done: make(chan struct{}), stop: stop, helpAt: -1}
	w.follow.Store(-1)
	labels := ratingLabels(ctx, k.ratings, r)
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
	var chatFeed func() *ChatLines
	if k.chat != nil {
		chatFeed = k.chat.feed
	}
	cfg := RoomViewConfig{
		Game: d.Views.newGameView(r.Game.Name(), d.Profile), Look: true,
		Room: watchFeed{r, feed}, Slot: -1, Title: title, Out: d.Out, Profile: d.Profile, FPS: d.FPS, Clocks: d.Clocks,
		Width: width, Height: height, Ranked: r.Ranked != "", Outcome: r.Outcome, Watchers: r.Watchers,
		Follow:   func() int { return int(w.follow.Load()) },
		Labels:   func(slot int) string { return labels[slot] },
		Footer:   func() (string, string) { return title, keys },
		OverKeys: "match over · n next room · q back",
		WaitText: "waiting for the match to start · n next room · q back",
		Metrics:  k.metrics(r.Game.Name()),
		Chat:     chatFeed,
		Palettes: d.Palettes,
	}
	if hub := d.Watchers; hub != nil {
		views, name, profile := d.Views, r.Game.Name(), d.Profile
		cfg.Game = nil // each painter makes its own
		w.seat = &watchSeat{hasGame: views[name] != nil, hub: hub, room: r, base: cfg, out: d.Out, metrics: cfg.Metrics, onPanic: d.OnPanic,
			chat: cfg.Chat, done: w.done,
			newGame: func() gameview.View { return views.newGameView(name, profile) }}
		w.seat.sync(w.picture())
		w.seat.start(ctx)
	} else {
		w.view = NewRoomView(cfg)
		goGuarded(d.OnPanic, func() {
			defer close(w.done)
			w.view.Run(ctx)
		})
	}
	return w, func() tea.Msg {
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
	}, nil
}

// close ends the watch view; the returned command repaints once the view
// has stopped drawing.
func (w *watchScreen) close() tea.Cmd {
	if w.seat != nil {
		w.seat.stop()
	}
	w.cancel()
	w.stop()
	return viewStopped(w.done)
}

func (w *watchScreen) detach(context.Context) {
	w.close()
	<-w.done
}

func (w *watchScreen) where() string { return "watching " + w.room.ID() }

func (w *watchScreen) setProfile(colorprofile.Profile) {}

func (w *watchScreen) chatAt(cs *chatState) {
	id := w.room.ID()
	cs.setChannels(chat.WatchChannel(id), "", "watching "+id, "t/enter to chat")
}

func (w *watchScreen) update(msg tea.Msg) (tea.Cmd, *playEnd) {
	switch msg := msg.(type) {
	case watchEndedMsg:
		if msg.room != w.room {
			return nil, nil
		}
		ended := fmt.Sprintf("The match in %s ended.", msg.room.ID())
		switch {
		case msg.roomFailed:
			ended = fmt.Sprintf("The match in %s ended because of a server error.", msg.room.ID())
		case msg.feedFailed:
			ended = fmt.Sprintf("Watching %s stopped because of a server error; pick it again to watch on.", msg.room.ID())
		}
		return nil, &playEnd{stopped: w.close(), chooser: true, notice: ended}
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+c" {
			return nil, &playEnd{stopped: w.close(), quit: true}
		}
		if cmd, ok := chatKey(w.kit.chat, msg); ok {
			return cmd, nil
		}
		return w.key(msg.String())
	}
	return nil, nil
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

// key handles the watcher's keys.
func (w *watchScreen) key(s string) (tea.Cmd, *playEnd) {
	if s == "?" {
		// A watcher's keys, whole: the footer may have had to cut them.
		w.helping = !w.helping
		if !w.helping {
			w.setPrompt()
			return nil, nil
		}
		// The game's camera keys go after the watcher's (SetHelp).
		w.setHelp([]string{"Keys", w.keys, "t/enter chat · ? or any key closes this"}, 2)
		return nil, nil
	}
	if w.helping {
		w.helping = false
		w.setPrompt()
	}
	switch s {
	case "q", "esc":
		if s == "esc" && w.follow.Load() >= 0 {
			w.follow.Store(-1)
			return nil, nil
		}
		return nil, &playEnd{stopped: w.close(), chooser: true}
	case "0":
		// The overview: no player followed, and no free camera either.
		w.follow.Store(-1)
		w.look("0")
	case "1", "2", "3", "4", "5", "6", "7", "8":
		if n := int(s[0] - '1'); n < w.room.Mode.Seats {
			w.follow.Store(int32(n))
		}
	case "tab":
		fr, _ := w.room.Latest()
		if fr == nil {
			return nil, nil
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
		if w.kit.live == nil {
			return nil, nil
		}
		rooms, _ := w.kit.live()
		if len(rooms) == 0 {
			return nil, nil
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
			return nil, nil
		}
		stopped := w.close()
		next, wait, err := startWatch(w.kit, rooms[i], w.w, w.h)
		if err != nil {
			// The room has as many watchers as it takes.
			return nil, &playEnd{stopped: stopped, chooser: true, notice: err.Error() + "."}
		}
		return wait, &playEnd{stopped: stopped, next: next}
	default:
		if w.hasGame() {
			w.look(s) // the game view's camera keys
		}
	}
	return nil, nil
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

// picture is what the watcher's screen shows besides the room.
func (w *watchScreen) picture() watchPicture {
	return watchPicture{w: w.w, h: w.h, follow: int(w.follow.Load()), prompt: w.prompt, helpAt: w.helpAt, camera: w.camera}
}

// sync puts a watcher among the watchers who see what it sees (after
// every message: a resize, a key, a chat line may each change that).
func (w *watchScreen) sync() {
	if w.seat != nil {
		w.seat.sync(w.picture())
	}
}

// setPrompt shows lines over the board (none: closes it).
func (w *watchScreen) setPrompt(lines ...string) {
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
func (w *watchScreen) setHelp(lines []string, at int) {
	if w.seat == nil {
		w.view.SetHelp(lines, at)
		return
	}
	w.prompt, w.helpAt = lines, at
}

// hasGame reports whether the room's game has a view (else no key is the
// game's).
func (w *watchScreen) hasGame() bool {
	if w.seat != nil {
		return w.seat.hasGame
	}
	return w.view.HasGame()
}

// resize takes the watcher's new terminal size.
func (w *watchScreen) resize(width, height int) {
	w.w, w.h = width, height
	if w.view != nil {
		w.view.Resize(width, height)
	}
}

// look hands a camera key to the game's view. A shared painter's camera
// is everyone's, so a watcher who moves it gets a painter of its own until
// it goes back to the overview (0). A game without a camera takes no key.
func (w *watchScreen) look(key string) {
	if w.seat == nil {
		w.view.Look(key)
		return
	}
	// The lobby's own view of the game says whether it has a camera.
	if gv := w.kit.gameView(w.room.Game.Name()); gv == nil || gv.LookHelp() == "" {
		return
	}
	w.camera = key != "0"
	w.sync()
	w.seat.look(key)
}
