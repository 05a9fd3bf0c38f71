package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/chat"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

// seatScreen is a player's seat in a room on screen: the game screen
// whose keys are the game's, the room's (r ready, q leave, n next ranked
// match, b bots, L the web link, ? help) and the chat line's.
type seatScreen struct {
	d    *LobbyDeps
	host playHost
	chat *chatState // nil without chat

	room   *lobby.Room
	id     string          // the room's id, for its chat channel
	team   chat.ChannelKey // the player's 2v2 team channel, or ""
	slot   int
	view   *RoomView
	cancel context.CancelFunc
	done   <-chan struct{}
	// confirming: the player pressed q in a ranked match in play and the
	// view asks whether to forfeit it.
	confirming bool
	// prompted: the view shows a notice that the next key clears.
	prompted bool
	helping  bool // the game's key help is shown (?): helpKey
	// askBots: the player pressed b on the waiting screen and the view
	// asks for the bots' level; the next key answers.
	askBots bool
}

// startSeat starts the room view of the player's seat in r; the command
// waits for the room's end.
func startSeat(d *LobbyDeps, host playHost, cs *chatState, r *lobby.Room, slot int, title string, labels seatLabels, w, h int, metrics FrameMetrics) (*seatScreen, tea.Cmd) {
	vctx, cancel := context.WithCancel(d.Ctx)
	var team chat.ChannelKey
	if t := r.Mode.Team(slot); t >= 0 {
		team = chat.TeamChannel(r.ID(), t)
	}
	var feed func() *ChatLines
	if cs != nil {
		feed = cs.feed
	}
	view := NewRoomView(RoomViewConfig{
		Labels: func(slot int) string { return labels[slot] },
		Room:   r, Me: d.Player.ID, Slot: slot, Title: title, Out: d.Out,
		Profile: d.Profile, FPS: d.FPS, Clocks: d.Clocks, Width: w, Height: h, RTT: d.RTT, NoReply: d.NoReply, InputAt: d.InputAt,
		Ranked: r.Ranked != "", WarmUp: r.WarmsUp(), Bots: d.Rooms != nil && d.Rooms.BotsFor(r), Outcome: r.Outcome, Watchers: r.Watchers, Metrics: metrics,
		Chat: feed, Game: d.Views.newGameView(r.Game.Name(), d.Profile), Palettes: d.Palettes,
	})
	if t := d.Terminal; t != nil {
		// The terminal hands keys to the room screen first from now on,
		// until the player leaves the room (cancel).
		release, stop := t.Play(view), cancel
		cancel = func() { release(); stop() }
	}
	s := &seatScreen{d: d, host: host, chat: cs, room: r, id: r.ID(), team: team, slot: slot, view: view, cancel: cancel, done: view.Done()}
	if sd, ok := d.Terminal.(ScreenDriver); ok {
		sd.Drive(vctx, view)
	} else {
		goGuarded(d.OnPanic, func() { view.Run(vctx) })
	}
	return s, waitFor(WaitMsg{Until: r.Done(), Stop: vctx.Done(), Then: func(bool) tea.Msg { return roomEndedMsg{r} }})
}

// serverErrorNotice is what the players of a room that failed (its game
// or the server's code for it panicked) read back in the lobby. The cause
// is in the server's log.
const serverErrorNotice = "The match ended because of a server error."

// leaveRankedPrompt is the question a ranked player answers before leaving
// a match in play.
var leaveRankedPrompt = []string{"Leave ranked match? You lose it.", "y = leave · any other key = stay"}

// rankedQuitNotice is what a player who closed the program in a ranked
// match in play reads on their own terminal; grace is how long the room
// keeps the seat.
func rankedQuitNotice(grace time.Duration) string {
	return fmt.Sprintf("You closed termarena in a ranked match. Your seat is kept for %d s, as after a dropped connection: "+
		"connect again with the same key to play on; if you do not, the match counts as a loss.", int(grace.Seconds()))
}

// inRankedPlay: the player sits in a ranked match that is counting down or
// being played, where leaving forfeits it.
func (s *seatScreen) inRankedPlay() bool {
	if s.room.Ranked == "" {
		return false
	}
	fr, _ := s.room.Latest()
	return fr != nil && (fr.Phase == game.Countdown || fr.Phase == game.Playing)
}

func (s *seatScreen) where() string { return "room " + s.id }

func (s *seatScreen) resize(w, h int) { s.view.Resize(w, h) }

func (s *seatScreen) setProfile(p colorprofile.Profile) { s.view.SetProfile(p) }

func (s *seatScreen) sync() {}

func (s *seatScreen) chatAt(cs *chatState) {
	cs.setChannels(chat.RoomChannel(s.id), s.team, "room "+s.id, "t/enter to chat")
}

// leave stops the view and, when the player chose to, gives up the seat;
// tell: say what leaving a ranked match cost (not when the session quits).
func (s *seatScreen) leave(give, tell bool, notice string) playEnd {
	s.cancel()
	e := playEnd{notice: notice, stopped: viewStopped(s.done)}
	if give {
		before, _ := s.room.Latest()
		_ = s.room.Leave(s.d.Ctx, s.d.Player.ID)
		if tell {
			e.told = s.forfeitNotice(before)
		}
	}
	return e
}

// close gives up the seat: the player goes elsewhere (a challenge's room).
func (s *seatScreen) close() tea.Cmd {
	e := s.leave(true, true, "")
	return tea.Batch(e.stopped, e.told)
}

func (s *seatScreen) detach(ctx context.Context) {
	s.cancel()
	<-s.done
	_ = s.room.Disconnect(ctx, s.d.Player.ID)
}

func (s *seatScreen) update(msg tea.Msg) (tea.Cmd, *playEnd) {
	switch msg := msg.(type) {
	case roomEndedMsg:
		if msg.room != s.room {
			return nil, nil
		}
		notice := "The room closed."
		if fr, _ := msg.room.Latest(); fr != nil && fr.Failed {
			notice = serverErrorNotice
		}
		e := s.leave(false, false, notice)
		return nil, &e
	case tea.KeyReleaseMsg:
		// Only a kitty-protocol terminal says a key was let go; the room
		// screen maps it (a held paddle stops).
		s.view.GameKey(msg.String(), false, true)
	case tea.KeyPressMsg:
		return s.key(msg)
	}
	return nil, nil
}

func (s *seatScreen) key(k tea.KeyPressMsg) (tea.Cmd, *playEnd) {
	key := k.String()
	if key == "ctrl+c" {
		if s.inRankedPlay() {
			// Ctrl-C is how people close a program, not a decision to
			// lose: like a dropped connection it keeps the seat for the
			// grace period (Detach), and the player is told so — unless
			// another terminal of theirs plays the seat, which goes on
			// with no grace at all.
			e := playEnd{quit: true, keep: true, final: true, notice: rankedQuitNotice(s.room.Grace())}
			if fr, _ := s.room.Latest(); fr != nil && s.slot < len(fr.Seats) && fr.Seats[s.slot].Sessions > 1 {
				e.notice = fmt.Sprintf("You closed this terminal. Your ranked match in %s goes on in your other terminal.", s.room.ID())
			}
			return nil, &e
		}
		e := s.leave(true, false, "")
		e.quit = true
		return nil, &e
	}
	if s.confirming {
		// The answer to "leave ranked match?": only y leaves.
		s.confirming = false
		s.view.SetPrompt()
		if key == "y" {
			e := s.leave(true, true, "")
			return nil, &e
		}
		return nil, nil
	}
	if cmd, ok := chatKey(s.chat, k); ok {
		return cmd, nil
	}
	if s.helpKey(key) {
		return nil, nil
	}
	if (key == "y" || key == "n") && s.challengeAnswers() {
		if cmd, ok := s.host.challengeKey(key); ok {
			return cmd, nil
		}
	}
	if s.askBots {
		s.askBots = false
		s.view.SetPrompt()
		if lv, err := strconv.Atoi(key); err == nil && lv >= 1 && lv <= bot.Levels {
			if _, err := s.d.Rooms.FillWithBots(s.room, lv); err != nil {
				s.view.SetPrompt("No bots: "+err.Error()+".", "any key goes on")
				s.prompted = true
			}
		}
		return nil, nil
	}
	if s.prompted {
		s.prompted = false
		s.view.SetPrompt()
	}
	if s.linkKey(key) {
		return nil, nil
	}
	switch key {
	case "esc":
		// Esc also ends chat typing: one Esc too many must not cost
		// the match, so it never leaves the room.
	case "q":
		if s.inRankedPlay() {
			s.confirming = true
			s.view.SetPrompt(leaveRankedPrompt...)
			return nil, nil
		}
		e := s.leave(true, true, "")
		return nil, &e
	case "n":
		// Back to the queue, from a finished ranked match.
		if fr, _ := s.room.Latest(); s.room.Ranked != "" && fr != nil && fr.Phase == game.Finished {
			mode := s.room.Ranked
			e := s.leave(true, true, "")
			e.then = func() tea.Msg { return playMsg{mode} }
			return nil, &e
		}
	case "b":
		// Bots in the free seats, before a match (FillWithBots).
		fr, _ := s.room.Latest()
		if s.d.Rooms != nil && s.d.Rooms.BotsFor(s.room) && fr != nil && (fr.Phase == game.Waiting || fr.Phase == game.Finished) {
			s.askBots = true
			s.view.SetPrompt(fmt.Sprintf("Bots in the free seats: which level, 1 (easiest) to %d?", bot.Levels),
				"any other key: no bots · their matches are practice, unrated")
		}
	case "r":
		if held := s.host.rankedSeat(); s.room.Ranked != "" && held != nil && held != s.room {
			// A rematch here would be a second ranked match at once.
			s.view.SetPrompt(fmt.Sprintf("You are playing a ranked %s match in %s:", held.Ranked, held.ID()),
				"no rematch here until it ends · q leave")
			s.prompted = true
			return nil, nil
		}
		fr, _ := s.room.Latest()
		ready := false
		if fr != nil && s.slot < len(fr.Seats) {
			ready = fr.Seats[s.slot].Ready
		}
		_ = s.room.SetReady(s.d.Ctx, s.d.Player.ID, !ready)
	default:
		// The game's key, or none: the room screen maps it on its own
		// goroutine.
		s.view.GameKey(key, k.IsRepeat, false)
	}
	return nil, nil
}

// challengeAnswers: y and n answer a challenge in the room (they are no
// game's keys), except while a forfeit question takes y and on a
// finished ranked match, where n is the next ranked match.
func (s *seatScreen) challengeAnswers() bool {
	if s.confirming {
		return false
	}
	fr, _ := s.room.Latest()
	return fr == nil || fr.Phase != game.Finished || s.room.Ranked == ""
}

// helpKey shows the game's keys over the room screen: ? shows and hides
// them; any other key hides them and then does what it always does, so a
// player who looked mid-rally loses no move. It reports whether it took
// the key.
func (s *seatScreen) helpKey(key string) bool {
	if key == "?" {
		s.helping = !s.helping
		if s.helping {
			s.view.SetHelp(s.help(), 1)
		} else {
			s.view.SetPrompt()
		}
		return true
	}
	if s.helping {
		s.helping = false
		s.view.SetPrompt()
	}
	return false
}

// help is the key help a player in a room sees, but for their game's
// keys for their seat, which the room screen puts after the first line
// (SetHelp): what every room shares.
func (s *seatScreen) help() []string {
	lines := append([]string{"Keys"}, gameKeys...)
	if s.d.Rooms != nil && s.d.Rooms.BotsFor(s.room) {
		// As the waiting screen offers it (b bots).
		lines = append(lines, "b  bots in the free seats (practice, unrated)")
	}
	if s.d.WebURL != "" {
		lines = append(lines, "L  this room's web link, to watch in a browser")
	}
	return append(lines, "? or any key closes this")
}

// linkKey shows the room's web link over the room screen (L), for a
// friend to watch in a browser, until the next key; it reports whether it
// took the key. A private room's link carries its join code, as `share`
// prints it.
func (s *seatScreen) linkKey(key string) bool {
	if key != "L" || s.d.WebURL == "" {
		return false
	}
	r := s.room
	ref := r.ID()
	if r.Private && r.Ranked == "" {
		ref = r.Code
	}
	s.view.SetPrompt("Watch this room in a browser:", s.d.WebURL+"/r/"+strings.ToLower(ref), "any key closes this")
	s.prompted = true
	return true
}

// roomKey: a key a player's room screen keeps for the room rather than the
// game (seatScreen.key: Ctrl-C; esc, q leave, n queue, r rematch; t and
// enter chat and the pane's scrolling; ? help; L the web link). The
// terminal hands every other key to the room screen first (TakeKey); these
// go to the seat screen's key handling, as a key the game does not know
// does. Naming a key here that is then passed on costs nothing: the game
// still gets it.
func roomKey(s string) bool {
	switch s {
	case "ctrl+c", "esc", "q", "n", "r", "t", "enter", "pgup", "pgdown", "end", "?", "L":
		return true
	}
	return false
}
