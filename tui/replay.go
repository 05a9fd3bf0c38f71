package tui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/chat"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/rating"
	"github.com/termarena/termarena/spectator"
	"github.com/termarena/termarena/store"
)

// Replay speeds, slowest to fastest.
var replaySpeeds = []float64{0.5, 1, 2, 4, 8}

const seekStep = 10 * time.Second

// replayer plays a recorded match: one goroutine re-simulates it at the
// chosen speed and publishes frames the way a room does, so the ordinary
// room view draws them.
type replayer struct {
	id   uint64
	r    *spectator.Replay
	ctl  chan func(*replayState)
	view *RoomView
	// left is, per slot, whether the match's record says its player left
	// (a forfeit): the results mark them as the live ones did.
	left []bool

	mu     sync.Mutex
	cur    *game.Frame
	curAt  time.Time
	status string
	keys   string

	cancel context.CancelFunc
	done   chan struct{}
	chat   *chatState // the session's, nil without chat
	// helping: the keys are shown over the board (?); the session's
	// goroutine's, as the keys are.
	helping bool
}

// replayHelp is what ? shows over a replay: its keys whole, with what the
// footer's short forms mean.
var replayHelp = []string{
	"Keys",
	"space  pause · +/-  speed (0.5×–8×) · ←/→  seek 10 s",
	"q esc  leave the replay · t enter  chat",
	"? or any key closes this",
}

// replayState is owned by the driver goroutine.
type replayState struct {
	pb      *spectator.Playback
	speed   int // index into replaySpeeds
	paused  bool
	err     error
	dirty   bool
	carried float64 // fractional ticks owed at this speed
}

func (rp *replayer) ID() string { return fmt.Sprintf("match %d", rp.id) }
func (rp *replayer) LatestAt() (*game.Frame, time.Time) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.cur, rp.curAt
}
func (rp *replayer) Submit(game.PlayerID, game.Input) bool { return false }

func (rp *replayer) publish(f *game.Frame, status, keys string) {
	rp.mu.Lock()
	rp.cur, rp.curAt, rp.status, rp.keys = f, time.Now(), status, keys
	rp.mu.Unlock()
}

// show publishes the playback's current frame and footer.
func (rp *replayer) show(st *replayState) {
	status, keys := rp.statusLine(st)
	rp.publish(rp.frame(st), status, keys)
}

func (rp *replayer) footer() (status, keys string) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.status, rp.keys
}

// startReplay decodes and plays the replay of match id: a game screen
// (replayer) whose keys pause, seek and change speed.
func (m *Lobby) startReplay(id uint64, data []byte, rec *store.MatchRecord) tea.Cmd {
	r, err := spectator.Decode(data)
	if err != nil {
		m.notice = fmt.Sprintf("The replay of match %d cannot be read: %v", id, err)
		return nil
	}
	pb, err := spectator.NewPlayback(r, m.games())
	if err != nil {
		m.notice = fmt.Sprintf("The replay of match %d cannot be played: %v", id, err)
		return nil
	}
	ctx, cancel := context.WithCancel(m.d.Ctx)
	rp := &replayer{id: id, r: r, ctl: make(chan func(*replayState), 16), cancel: cancel, done: make(chan struct{}), left: leftSlots(r, rec)}
	st := &replayState{pb: pb, speed: 1}
	rp.show(st)
	cfg := rp.viewConfig(rec, m.d.Views, m.d.Profile)
	cfg.Out, cfg.FPS, cfg.Clocks, cfg.Width, cfg.Height, cfg.Chat = m.d.Out, m.d.FPS, m.d.Clocks, m.w, m.h, m.chatFeed()
	cfg.Palettes = m.d.Palettes
	rp.view = NewRoomView(cfg)
	var wg sync.WaitGroup
	wg.Add(2)
	goGuarded(m.d.OnPanic, func() { defer wg.Done(); rp.drive(ctx, st) })
	goGuarded(m.d.OnPanic, func() { defer wg.Done(); rp.view.Run(ctx) })
	go func() { wg.Wait(); close(rp.done) }()
	rp.chat = m.chat
	m.startPlay(rp)
	return nil
}

// viewConfig is the room screen of a replay viewer, without its session
// (output, size, pace, chat): the same for a terminal and for an export
// (PaintReplay).
func (rp *replayer) viewConfig(rec *store.MatchRecord, views Views, p colorprofile.Profile) RoomViewConfig {
	out := recordOutcome(rp.r, rec)
	var before seatLabels // the ratings the players came in with
	if out != nil {
		for slot, c := range out.Changes {
			if slot < maxSeats && c.Games > 0 {
				// As their header showed then: provisional or not by the
				// deviation they came in with.
				before[slot] = rating.Display(c.Before, c.DeviationBefore)
			}
		}
	}
	return RoomViewConfig{
		Labels: func(slot int) string { return before[slot] },
		Room:   rp, Slot: -1, Title: rp.ID(), StatusFirst: true, Profile: p, Footer: rp.footer,
		Ranked: out != nil, Outcome: func() *lobby.Outcome { return out },
		OverKeys: "replay over · ←/→ seek · q back",
		Game:     views.newGameView(rp.r.Game, p),
	}
}

// leftSlots is, per slot of r, whether rec says its player left the
// match; nil without a record.
func leftSlots(r *spectator.Replay, rec *store.MatchRecord) []bool {
	if rec == nil {
		return nil
	}
	left := make([]bool, len(r.Seats))
	for _, p := range rec.Players {
		if p.Slot >= 0 && p.Slot < len(left) {
			left[p.Slot] = p.Left
		}
	}
	return left
}

// recordOutcome turns a ranked match's record into the rating changes the
// results screen shows, or nil for a casual or aborted match. The
// deviations are the record's, so a provisional rating keeps its "?". A
// record from before Glicko-2 has none: it is marked as Elo marked it then
// (provisional for its first 30 games), and one from before games were
// kept shows ratings without the mark.
func recordOutcome(r *spectator.Replay, rec *store.MatchRecord) *lobby.Outcome {
	if rec == nil || !rec.Ranked || rec.Aborted {
		return nil
	}
	out := &lobby.Outcome{Seed: r.Seed, MatchID: rec.ID, Changes: make([]lobby.RatingChange, len(r.Seats))}
	for _, p := range rec.Players {
		if p.Slot >= 0 && p.Slot < len(out.Changes) {
			games, before, after := p.GamesAfter, p.DeviationBefore, p.DeviationAfter
			if games <= 0 {
				games = eloProvisionalGames + 1
			}
			if after == 0 { // an Elo-era record
				before, after = eloDeviation(games-1), eloDeviation(games)
			}
			out.Changes[p.Slot] = lobby.RatingChange{Before: p.RatingBefore, After: p.RatingAfter, Games: games,
				DeviationBefore: before, DeviationAfter: after}
		}
	}
	return out
}

// eloProvisionalGames is how many games Elo kept a rating provisional,
// for records rated before Glicko-2.
const eloProvisionalGames = 30

// eloDeviation stands in for the deviation an Elo-era record lacks: one
// that marks (or does not mark) the rating as Elo's rule did.
func eloDeviation(games int) float64 {
	if games < eloProvisionalGames {
		return rating.InitialDeviation
	}
	return rating.MinDeviation
}

// drive advances the playback in real time × speed until ctx ends.
func (rp *replayer) drive(ctx context.Context, st *replayState) {
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	last := time.Now()
	rate := float64(max(rp.r.TickRate, 1))
	for {
		select {
		case <-ctx.Done():
			return
		case f := <-rp.ctl:
			f(st)
			st.dirty = true
		case now := <-tick.C:
			dt := now.Sub(last).Seconds()
			last = now
			if st.paused || st.err != nil || st.pb.Done() {
				break
			}
			st.carried += dt * rate * replaySpeeds[st.speed]
			for st.carried >= 1 && !st.pb.Done() {
				st.carried--
				if err := st.pb.Step(); err != nil && !errors.Is(err, spectator.ErrReplayEnded) {
					st.err = err
					break
				}
				st.dirty = true
			}
		}
		if st.dirty {
			st.dirty = false
			rp.show(st)
		}
	}
}

func (rp *replayer) frame(st *replayState) *game.Frame {
	seats := make([]game.Seat, len(rp.r.Seats))
	for i, p := range rp.r.Seats {
		seats[i] = game.Seat{Player: p, Taken: p.ID != "" || p.Name != "", Connected: true}
	}
	f := &game.Frame{Room: rp.ID(), Tick: st.pb.Tick(), TickRate: rp.r.TickRate, Phase: game.Playing, Seed: rp.r.Seed,
		Seats: seats, State: st.pb.Snapshot(), Roster: rp.r.Seats, Paused: st.paused}
	if st.pb.Done() && st.err == nil && !rp.r.Aborted { // an aborted match has no result to show
		res := rp.r.Result
		f.Phase, f.Result, f.Forfeited = game.Finished, &res, rp.left
	}
	return f
}

// statusLine is the footer: where playback is, and the keys.
func (rp *replayer) statusLine(st *replayState) (status, keys string) {
	if st.err != nil {
		return strings.TrimPrefix(st.err.Error(), "spectator: ") + " — the recording does not match this server's game", "q back"
	}
	el, dur := st.pb.Elapsed(), rp.r.Duration()
	// 12 cells keep the progress and every key on one line at 80 columns;
	// an aborted match (cut short when the server stopped: no result, it
	// ends where it was cut) takes 6 of them to say so.
	barW := 12
	if rp.r.Aborted {
		barW = 6
	}
	filled := 0
	if dur > 0 {
		filled = int(float64(barW) * float64(el) / float64(dur))
	}
	bar := strings.Repeat("█", min(filled, barW)) + strings.Repeat("░", barW-min(filled, barW))
	icon := "▶"
	if st.paused {
		icon = "⏸"
	}
	keys = "space pause · +/- speed · ←/→ 10s · q back"
	switch {
	case rp.r.Aborted && st.pb.Done():
		return fmt.Sprintf("■ %s / %s aborted here", mmss(el), mmss(dur)), keys
	case rp.r.Aborted:
		return fmt.Sprintf("%s %s / %s %s %g× aborted", icon, mmss(el), mmss(dur), bar, replaySpeeds[st.speed]), keys
	}
	return fmt.Sprintf("%s %s / %s %s %g×", icon, mmss(el), mmss(dur), bar, replaySpeeds[st.speed]), keys
}

func mmss(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

func (rp *replayer) where() string { return "replay " + strconv.FormatUint(rp.id, 10) }

func (rp *replayer) resize(w, h int) { rp.view.Resize(w, h) }

func (rp *replayer) setProfile(colorprofile.Profile) {}

func (rp *replayer) sync() {}

// chatAt: a replay's viewer talks in the lobby.
func (rp *replayer) chatAt(cs *chatState) {
	cs.setChannels(chat.LobbyChannel, "", "lobby", "t/enter to chat")
}

func (rp *replayer) close() tea.Cmd {
	rp.cancel()
	return viewStopped(rp.done)
}

func (rp *replayer) detach(context.Context) {
	rp.cancel()
	<-rp.done
}

func (rp *replayer) update(msg tea.Msg) (tea.Cmd, *playEnd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	s := k.String()
	if s == "ctrl+c" {
		return nil, &playEnd{stopped: rp.close(), quit: true}
	}
	if cmd, ok := chatKey(rp.chat, k); ok {
		return cmd, nil
	}
	return nil, rp.key(s)
}

// key handles the replay controls. ? shows and hides their help; any
// other key hides it and does what it always does, as in a room.
func (rp *replayer) key(s string) *playEnd {
	if s == "?" {
		rp.helping = !rp.helping
		if rp.helping {
			rp.view.SetPrompt(replayHelp...)
		} else {
			rp.view.SetPrompt()
		}
		return nil
	}
	if rp.helping {
		rp.helping = false
		rp.view.SetPrompt()
	}
	send := func(f func(*replayState)) {
		select {
		case rp.ctl <- f:
		default: // a flood of keys is dropped, never queued
		}
	}
	seek := func(by time.Duration) func(*replayState) {
		return func(st *replayState) {
			target := st.pb.Elapsed() + by
			if target < 0 {
				target = 0
			}
			if err := st.pb.Seek(st.pb.TickAt(target)); err != nil && !errors.Is(err, spectator.ErrReplayEnded) {
				st.err = err
			}
		}
	}
	switch s {
	case "q", "esc":
		return &playEnd{stopped: rp.close()}
	case "space", " ":
		send(func(st *replayState) { st.paused = !st.paused })
	case "+", "=":
		send(func(st *replayState) { st.speed = min(st.speed+1, len(replaySpeeds)-1) })
	case "-", "_":
		send(func(st *replayState) { st.speed = max(st.speed-1, 0) })
	case "right", "l":
		send(seek(seekStep))
	case "left", "h":
		send(seek(-seekStep))
	}
	return nil
}
