package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/termarena/termarena/chat"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/pace"
	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/store"
)

// Online is the live player count the lobby shows; the channel is closed
// when the count changes.
type Online interface {
	Online() (int, <-chan struct{})
}

// KeyTaker is a play screen the session's terminal offers keys to first
// (RoomView.TakeKey): it answers whether it took the key; one it does not
// take goes to the menu.
type KeyTaker interface {
	TakeKey(ctx context.Context, key string, repeat, release bool) bool
}

// Terminal is the session's terminal as the lobby hands it to a play
// screen: Play offers every key to k first, until release is called.
type Terminal interface {
	Play(k KeyTaker) (release func())
}

// ScreenDriver is a Terminal that runs a player's room screen in the
// session's own loop (the server's play loop) instead of on a goroutine of
// its own: one goroutine a playing session fewer, and a key reaches the
// screen without a goroutine switch. Drive hands it the screen until ctx
// ends; it calls the screen's Begin, then Handle and Beat as its Wakes say,
// and End once ctx has ended or the session does, all on its goroutine.
type ScreenDriver interface {
	Drive(ctx context.Context, v *RoomView)
}

// LobbyDeps is what the lobby needs from the server.
type LobbyDeps struct {
	Ctx    context.Context // the session's context: watchers end with it
	Player game.Player
	Online Online
	Rooms  *lobby.Rooms
	// Commands and TermCommands list the plain and the terminal (ssh -t)
	// commands with their arguments, for the help screen.
	Commands     []string
	TermCommands []string
	// WebURL is the web face's address (server.Config.WebURL): L in a
	// room shows the room's link under it; "" = no web face.
	WebURL string
	// Join names a room to enter at once (`ssh -t host join r3 [side]`).
	Join     string
	JoinSide int // -1 = any free side
	// Session output and pacing for the game screen.
	Out FrameWriter
	// Terminal, when set, is the session's terminal: a player's room
	// screen takes its keys straight from it (the menu sees only what the
	// screen leaves); nil: every key comes through the menu.
	Terminal Terminal
	Profile  colorprofile.Profile
	FPS      int
	Clocks   *pace.Clocks // shared frame clocks; nil = one per view
	Palettes *Palettes    // shared game palettes; nil = one per view
	RTT      func() time.Duration
	NoReply  func() time.Duration // RoomViewConfig.NoReply
	InputAt  func() time.Time     // when the session last read input (RoomViewConfig.InputAt)
	// Ranked play: the matchmaker, the store for ratings and profiles, and
	// a mode to queue for at once (`ssh -t host play [mode]`).
	Matchmaker *lobby.Matchmaker
	// BotOfferAfter is how long a player waits alone in a ranked queue
	// before it offers a bot (0: DefaultBotOfferAfter).
	BotOfferAfter time.Duration
	Store         Store
	Play          lobby.RankedMode
	// Challenges, when set, lets players challenge each other (y/n answer,
	// C challenges, /challenge in chat: challenges.go). Quick runs the
	// casual quick-match queues (a, or Casual: `play MODE --casual`).
	Challenges *lobby.Challenges
	// Notify, when set, hands msg to this session's program from any
	// goroutine without blocking (the path notices take): what changes
	// rarely (the challenge inbox) wakes the session through it instead
	// of a goroutine parked for the session's life.
	Notify func(msg tea.Msg)
	Quick  *lobby.QuickMatch
	Casual string
	// Queries answer the leaderboard and profile screens, as they answer
	// the plain commands; nil means the service over Store.
	Queries Queries
	// Games are the server's games, for menus and replays; nil means the
	// rooms' (Rooms.Games). Views are the games' own room-screen views by
	// name; a room of a game without one shows only its waiting screen.
	Games game.Catalog
	Views Views
	// Spectating and replays: `ssh -t host spectate [room]`, `replay ID`.
	Spectate      string
	SpectateStart bool // open the live-room chooser at once
	Replay        uint64
	// Metrics receives frame telemetry from the game screens; nil = none.
	Metrics FrameMetrics
	// Chat, when set, enables the chat pane. ChatMember is this session as chat
	// knows it (Role set from admin keys / stored moderator role). ChatAct carries
	// out a moderation action (a moderator's /mute, /kick, /ban …, or an automatic
	// flood mute from Send's Result.Action) — it persists it and returns a line to
	// show the sender; it may block briefly, so call it from a tea.Cmd.
	// Who, when set, names who is online in the lobby and counts the
	// ranked queues (online.go).
	Who        WhoSource
	Chat       *chat.Chat
	ChatMember chat.Member
	ChatAct    func(chat.ModAction) string
	// OnPanic is called with what a goroutine the lobby started for this
	// session (a room view, a replay) panicked with; it ends the session.
	// nil lets the panic through.
	OnPanic func(any)
	// Notice is shown in the lobby when the session starts (why a new
	// player got the name they have); "" for none.
	Notice string
	// Watchers shares watchers' room screens among those who see the same
	// (the server's one hub); nil gives each watcher a screen of its own.
	Watchers *WatchHub
}

type lobbyState int

// The menus' states: the rooms list, or a menu page over or instead of
// it. A game screen is not one of them: it is a model of its own
// (Lobby.play).
const (
	stLobby lobbyState = iota
	stMenu             // a menu screen (Lobby.scr) is up
)

// Lobby is the session's model: the menus' router, and the session's
// hand-off to a game screen (a seat, a watch, a replay: playScreen),
// which owns the terminal's keys while it is up.
type Lobby struct {
	d      LobbyDeps
	w, h   int
	online int
	// onlineLive, roomsLive: a watcher for that figure is armed. They are
	// not re-armed while a game screen is up (see livePaused).
	onlineLive, roomsLive bool
	// clockOn: a refresh tick is armed (wantsClock); at most one is.
	clockOn  bool
	people   people
	state    lobbyState
	help     bool
	notice   string
	final    bool
	quitting bool

	// play is the game screen up, or nil in the menus; kept is what the
	// menus keep meanwhile.
	play playScreen
	kept menuState
	// joining: the room the session was opened for (join REF, or the
	// seat it holds) is being sat in; early are the keys typed meanwhile,
	// for the room screen once it is up. Keys are read from the first
	// byte, before that join is done: an r typed at once would otherwise
	// reach the rooms list, not the room.
	joining bool
	early   []tea.KeyPressMsg

	// home is the rooms list, shown in state stLobby; scr is the menu
	// page shown in state stMenu. board, chooser and create are kept
	// between visits.
	home    *roomsPage
	scr     page
	board   *boardScreen
	chooser *chooserPage
	create  *createPage

	views map[string]gameview.View // the lobby's own, by game (gameView)

	chat       *chatState      // nil when the server has no chat
	challenges *challengeState // nil for guests and without challenges
	memo       frameMemo       // the last screen frame drew
	boxed      boxMemo         // the last body drawBox boxed

	ratings ratingReader // d.Store, or nil
	queries Queries      // d.Queries, or one over d.Store; nil without a store
}

// maxEarlyKeys bounds the keys kept while the session's first room is
// being joined (Lobby.early): a person types a few in that moment.
const maxEarlyKeys = 16

// Lobby layout needs this much room; below it the too-small screen shows.
const (
	lobbyMinW = 40
	lobbyMinH = 12
)

type (
	onlineMsg struct {
		n  int
		ch <-chan struct{}
	}
	roomsMsg struct {
		rooms  []*lobby.Room
		remote []lobby.RoomInfo // other nodes' (a cluster)
		ch     <-chan struct{}
	}
	refreshMsg     struct{}
	roomEndedMsg   struct{ room *lobby.Room }
	viewStoppedMsg struct{}
)

// Store is what the lobby reads from the store: a player's rating (the
// queue, ranked rooms' seats), a replay with its record, and what the
// service answers the leaderboard and profile screens from.
type Store interface {
	service.Store
	ratingReader
}

// NewLobby returns the lobby model.
func NewLobby(d LobbyDeps) *Lobby {
	n, _ := d.Online.Online()
	m := &Lobby{d: d, online: n, w: 80, h: 24, notice: d.Notice}
	if d.Store != nil {
		m.ratings = d.Store
	}
	m.queries = d.Queries
	if m.queries == nil && d.Store != nil {
		var rooms service.Rooms
		if d.Rooms != nil {
			rooms = d.Rooms
		}
		m.queries = service.New(d.Store, rooms)
	}
	if d.Chat != nil {
		m.chat = newChatState(d)
		m.chat.local = m.chatCommand
	}
	m.home = &roomsPage{sh: m, status: m, hand: m, menu: m.menu(), me: d.Player, listed: d.Rooms != nil}
	if d.Rooms != nil {
		rooms, _ := d.Rooms.List()
		m.home.games = d.Rooms.Games()
		m.home.list(rooms, d.Rooms.Remote(lobby.Public))
	}
	return m
}

// FinalNotice is the text to print after the program ends, so a player who
// was disconnected by the server sees why on their normal screen.
func (m *Lobby) FinalNotice() string {
	if m.final {
		return m.notice
	}
	return ""
}

// Detach is called when the session ends without the player leaving: the
// seat is kept for the room's grace period so the same key can come back.
func (m *Lobby) Detach(ctx context.Context) {
	m.closeChat()
	m.leavePage()
	m.closeChallenges()
	if s := m.play; s != nil {
		m.play = nil
		s.detach(ctx)
	}
}

func (m *Lobby) Init() tea.Cmd {
	// Start from the count as it is now (the session registered itself
	// after the model was built), then follow changes.
	// No clock: the lobby wakes for what changes (the online count, who
	// is where, the rooms as lists show them) and for nothing else.
	cmds := []tea.Cmd{m.readOnline(), m.readWho()}
	m.onlineLive = true
	if m.d.Rooms != nil {
		cmds = append(cmds, m.watchRooms(m.d.Rooms.Shown()))
		m.roomsLive = true
	}
	if m.chat != nil {
		cmds = append(cmds, m.chat.join())
		m.chat.publish()
	}
	cmds = append(cmds, m.openChallenges())
	if m.d.Join != "" {
		m.joining = true
		cmds = append(cmds, func() tea.Msg { return joinMsg{m.d.Join, m.d.JoinSide, nil} })
	} else if m.d.Spectate != "" || m.d.SpectateStart {
		ref := m.d.Spectate
		cmds = append(cmds, func() tea.Msg { return spectateMsg{ref} })
	} else if m.d.Replay != 0 {
		id, st, ctx := m.d.Replay, m.d.Store, m.d.Ctx
		cmds = append(cmds, func() tea.Msg {
			data, err := st.Replay(ctx, id)
			msg := replayDataMsg{id: id, data: data, err: err}
			if rec, err := st.Match(ctx, id); err == nil {
				msg.rec = &rec // for a ranked match's rating changes
			}
			return msg
		})
	} else if m.d.Play != "" {
		mode := m.d.Play
		cmds = append(cmds, func() tea.Msg { return playMsg{mode} })
	} else if m.d.Casual != "" {
		key := m.d.Casual
		cmds = append(cmds, func() tea.Msg { return quickMsg{key} })
	} else if m.d.Rooms != nil && !m.d.Player.Guest {
		// A player whose connection dropped mid-match goes straight back.
		if r, ok := m.d.Rooms.Holding(m.d.Player.ID); ok {
			m.joining = true
			cmds = append(cmds, func() tea.Msg { return joinMsg{"", -1, r} })
		}
	}
	return tea.Batch(cmds...)
}

type playMsg struct{ mode lobby.RankedMode }

type quickMsg struct{ key string }

type spectateMsg struct{ ref string }

type replayDataMsg struct {
	id   uint64
	data []byte
	err  error
	rec  *store.MatchRecord // nil when the record cannot be read
}

type joinMsg struct {
	ref  string
	side int
	room *lobby.Room
}

// refresh is the lobby's clock: one tick a second, armed only while
// something on screen counts time (wantsClock).
func refresh() tea.Cmd {
	return func() tea.Msg {
		// A timer, not a goroutine asleep in tea.Tick, until it fires.
		tick := make(chan struct{})
		time.AfterFunc(time.Second, func() { close(tick) })
		return WaitMsg{Until: tick, Then: func(bool) tea.Msg { return refreshMsg{} }}
	}
}

// clocked is a page that shows a clock (the queue's wait): the lobby
// ticks once a second while it is on screen.
type clocked interface{ clocked() bool }

// wantsClock says whether anything the session shows counts time: a
// clocked page, or the chat pane's mute countdown or banner. Nothing else
// does, so an idle lobby asks for no tick at all (issue 21: a tick a
// second redrew every lobby's whole screen).
func (m *Lobby) wantsClock() bool {
	if m.chat != nil && m.chat.counting() {
		return true
	}
	if m.state == stMenu {
		if c, ok := m.scr.(clocked); ok && c.clocked() {
			return true
		}
	}
	return false
}

// livePaused: a game screen is up, so the lobby's online count and room
// list are not on screen. Their watchers are not re-armed then: every
// change would otherwise wake every player in every game and copy the
// room list for each, which grows with players × rooms.
func (m *Lobby) livePaused() bool { return m.play != nil }

// GameScreen reports whether a game screen (a seat, a watcher, a replay)
// is up: its room view draws the screen, and the session's play loop, not
// a Bubble Tea program, drives the lobby meanwhile.
func (m *Lobby) GameScreen() bool { return m.livePaused() }

// resumeLive re-reads (and so re-arms) what was not followed during a game.
func (m *Lobby) resumeLive() tea.Cmd {
	if m.livePaused() {
		return nil
	}
	var cmds []tea.Cmd
	if !m.onlineLive {
		m.onlineLive = true
		cmds = append(cmds, m.readOnline())
	}
	if !m.roomsLive && m.d.Rooms != nil {
		m.roomsLive = true
		cmds = append(cmds, m.readRooms())
	}
	cmds = append(cmds, m.resumeWho())
	return tea.Batch(cmds...)
}

// readOnline and readRooms read a figure as it is now, with the channel
// that says when it next changes; the watchers run them after a change.
func (m *Lobby) readOnline() tea.Cmd {
	o := m.d.Online
	return func() tea.Msg { n, next := o.Online(); return onlineMsg{n, next} }
}

func (m *Lobby) readRooms() tea.Cmd {
	rs := m.d.Rooms
	return func() tea.Msg {
		// What lists show, followed from before it is read: nothing that
		// changes meanwhile is missed.
		next := rs.Shown()
		rooms, _ := rs.List()
		return roomsMsg{rooms, rs.Remote(lobby.Public), next}
	}
}

func (m *Lobby) watchOnline(ch <-chan struct{}) tea.Cmd {
	return afterChange(m.d.Ctx, ch, liveGapFor(m.online), m.readOnline())
}

// liveGap is the least time between two reads of a figure every login
// changes (the online count, who is online): a burst of a hundred logins
// is one redraw a second in every lobby, not a hundred, and the first
// change after a quiet second still shows at once.
const liveGap = time.Second

// liveRedrawsPerSec bounds what logins cost every lobby on a busy server.
// Every lobby redraws once a gap while players come and go, and a redraw
// is about a millisecond of a core (the whole lobby, 80×24): with a
// second's gap a thousand lobbies were a whole core for as long as logins
// kept coming (a thousand players arriving at 100 a second saturated the
// server and refused a fifth of them). The gap grows with the count
// online so that all lobbies together redraw this many times a second.
const liveRedrawsPerSec = 250

// liveGapFor is the gap between reads of the figures logins change with
// online players online: liveGap, or longer on a busy server (4 s at
// 1,000 online), where a count a few seconds old tells as much.
func liveGapFor(online int) time.Duration {
	return max(liveGap, time.Duration(online)*time.Second/liveRedrawsPerSec)
}

// afterChange waits until ch closes (or the session ends), then reads the
// new state, not sooner than gap after the last read: the shape every
// live-updating figure and list here shares.
func afterChange(ctx context.Context, ch <-chan struct{}, gap time.Duration, read func() tea.Msg) tea.Cmd {
	w := WaitMsg{Until: ch, Stop: ctx.Done(), Then: func(bool) tea.Msg { return read() }}
	if gap > 0 {
		w.NotBefore = time.Now().Add(gap)
	}
	return waitFor(w)
}

func (m *Lobby) watchRooms(ch <-chan struct{}) tea.Cmd {
	return afterChange(m.d.Ctx, ch, 0, m.readRooms())
}

func (m *Lobby) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(refreshMsg); ok {
		m.clockOn = false
	}
	_, cmd := m.update(msg)
	if resume := m.resumeLive(); resume != nil {
		cmd = tea.Batch(cmd, resume)
	}
	if !m.clockOn && m.wantsClock() {
		m.clockOn = true
		cmd = tea.Batch(cmd, refresh())
	}
	if m.chat != nil {
		// Wherever the message took the player, chat follows, and the room
		// view gets the pane as it now is.
		m.syncChat()
		m.chat.publish()
	}
	if m.play != nil {
		m.play.sync()
	}
	return m, cmd
}

func (m *Lobby) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		if m.play != nil {
			m.play.resize(msg.Width, msg.Height)
		}
		return m, nil
	case spectateMsg:
		if msg.ref == "" {
			return m, m.openChooser("")
		}
		r, err := m.d.Rooms.Watchable(msg.ref)
		var elsewhere *lobby.ElsewhereError
		if errors.As(err, &elsewhere) {
			return m, m.openChooser(upperFirst(fmt.Sprintf("%s is on node %s: %s.", elsewhere.What(), elsewhere.Node, elsewhere.Reach("watch it", "spectate", elsewhere.Ref()))))
		}
		if err != nil {
			return m, m.openChooser(fmt.Sprintf("No live room %q: pick one below.", msg.ref))
		}
		return m, m.spectate(r)
	case replayDataMsg:
		if msg.err != nil {
			m.notice = fmt.Sprintf("No replay of match %d is stored (it may have been pruned).", msg.id)
			return m, nil
		}
		return m, m.startReplay(msg.id, msg.data, msg.rec)
	case tea.ColorProfileMsg:
		m.d.Profile = msg.Profile
		if m.play != nil {
			m.play.setProfile(msg.Profile)
		}
		return m, nil
	case whoMsg:
		return m.onWho(msg)
	case onlineMsg:
		m.online = msg.n
		if m.livePaused() {
			m.onlineLive = false
			return m, nil
		}
		return m, m.watchOnline(msg.ch)
	case roomsMsg:
		if m.livePaused() {
			// The menus hold no list during a game (backToMenus).
			m.roomsLive = false
			return m, nil
		}
		m.home.list(msg.rooms, msg.remote)
		return m, m.watchRooms(msg.ch)
	case refreshMsg:
		if m.chat != nil {
			m.chat.tick() // the mute's time left counts down
		}
		if m.state == stMenu {
			return m, m.route(msg) // the page's clock
		}
		return m, nil
	case chatMsg:
		if cs := m.chat; cs != nil && msg.sub == cs.sub && !cs.closed {
			cs.drain()
			return m, cs.wait()
		}
		return m, nil
	case chatHelpMsg:
		if m.chat != nil {
			for _, l := range chatHelpLines {
				m.chat.system(l)
			}
		}
		return m, nil
	case chatActMsg:
		if m.chat != nil && !msg.auto && msg.line != "" {
			// An automatic mute's line is written for moderators; the
			// muted player was already told by Send's reply.
			m.chat.system(msg.line)
		}
		return m, nil
	case tea.PasteMsg:
		if m.chat != nil && m.chat.typing {
			m.chat.insert(msg.Content)
		}
		return m, nil
	case NoticeMsg:
		m.notice, m.final = msg.Text, msg.Final
		if m.chat != nil && !msg.Final {
			m.chat.announce(msg.Text) // a game screen shows no notice line
		}
		if msg.Final {
			m.quitting = true
			m.closeChat()
			return m, tea.Quit
		}
		return m, nil
	case joinMsg:
		cmd := m.join(msg)
		if m.joining {
			m.joining = false
			early := m.early
			m.early = nil
			cmds := []tea.Cmd{cmd}
			for _, k := range early {
				cmds = append(cmds, m.key(k))
			}
			return m, tea.Batch(cmds...)
		}
		return m, cmd
	case playMsg:
		return m, m.queueFor(msg.mode)
	case quickMsg:
		return m, m.queueQuick(msg.key)
	case challengeMsg:
		return m, m.onChallenge(msg)
	case challengeWakeMsg:
		return m, m.takeInbox()
	case matchedMsg:
		if _, ok := m.scr.(*queuePage); ok && m.state == stMenu {
			return m, m.route(msg)
		}
		// A match made as the player left the queue: they hold its seat
		// and the others wait for them, so they sit down all the same.
		return m, m.seatMatch(msg.room)
	case viewStoppedMsg:
		// The menus repaint whole when the terminal comes back to them,
		// and no game frame is written after that (the session's writer
		// takes frames only while the game screen has the terminal): a
		// clear here would repaint the whole lobby a second time.
		return m, nil
	case forfeitMsg:
		if m.state == stLobby && m.play == nil {
			m.notice = msg.text
		}
		return m, nil
	case WaitMsg:
		// A driver that does not wait for us: the wait is a command.
		return m, msg.block(m.d.Ctx)
	case tea.KeyPressMsg:
		if m.joining && msg.String() != "ctrl+c" {
			if len(m.early) < maxEarlyKeys {
				m.early = append(m.early, msg)
			}
			return m, nil
		}
		return m, m.key(msg)
	default:
		// The rest is the game screen's (a key release, its room's end)
		// or the menu screen's (a leaderboard read, …); one that comes
		// when its screen is gone is dropped.
		if m.play != nil {
			return m, m.playUpdate(msg)
		}
		if m.state == stMenu {
			return m, m.route(msg)
		}
	}
	return m, nil
}

func (m *Lobby) key(k tea.KeyPressMsg) tea.Cmd {
	if m.play != nil {
		// The game screen's: the menus are not on screen.
		return m.playUpdate(k)
	}
	s := k.String()
	if s == "ctrl+c" {
		m.quitting = true
		m.closeChat()
		m.leavePage()
		return tea.Quit
	}
	if m.tooSmall() {
		// Only "Terminal too small" is on screen: the menu under it is
		// not, so a key must not act on it unseen; q quits, as it says.
		if s == "q" {
			m.quitting = true
			m.closeChat()
			m.leavePage()
			return tea.Quit
		}
		return nil
	}
	if cs := m.chat; cs != nil {
		if cs.typing {
			return cs.key(k)
		}
		if m.startsChat(s) {
			cs.start()
			return nil
		}
	}
	// The offer reads "y accept · n decline" wherever it is shown: y and
	// n answer it on the rooms list and on every menu page that takes no
	// letters (leaderboard, profile, watch list, queue), not in a dialog,
	// where they may be typed (a join code) or mean something else.
	if m.state == stLobby || !isDialog(m.scr) {
		if cmd, ok := m.challengeKey(s); ok {
			return cmd
		}
	}
	return m.route(k) // the rooms list or the menu page shown
}

// tooSmall: the menus show only "Terminal too small".
func (m *Lobby) tooSmall() bool { return m.w < lobbyMinW || m.h < lobbyMinH }

// menu is every key of the rooms list that opens a screen or hands the
// player on, with its label in the rooms page's key line: the one place a
// menu screen opens from.
func (m *Lobby) menu() []menuKey {
	ranked := func(label string) string {
		if m.d.Matchmaker == nil {
			return ""
		}
		return label
	}
	rooms := func(label string) string {
		if m.d.Rooms == nil {
			return ""
		}
		return label
	}
	return []menuKey{
		{keys: []string{"p"}, label: ranked("p play ranked"), open: func(*lobby.Room) (page, tea.Cmd) {
			if modes := m.rankedModes(); len(modes) > 0 {
				return nil, m.queueFor(modes[0])
			}
			return nil, nil
		}},
		{keys: []string{"P"}, label: ranked("P mode"), open: func(*lobby.Room) (page, tea.Cmd) {
			switch {
			case m.d.Matchmaker == nil:
			case m.d.Player.Guest:
				m.notice = guestRanked
			default:
				m.notice = ""
				return &pickerPage{hand: m, modes: m.rankedModes, games: m.games, count: m.queueCount}, nil
			}
			return nil, nil
		}},
		{keys: []string{"w"}, label: ranked("w watch"), open: func(*lobby.Room) (page, tea.Cmd) {
			if m.d.Rooms == nil {
				return nil, nil
			}
			return nil, m.openChooser("")
		}},
		{keys: []string{"L"}, label: ranked("L leaderboard"), open: func(*lobby.Room) (page, tea.Cmd) {
			if m.queries == nil {
				return nil, nil
			}
			if m.board == nil {
				m.board = newBoard(m, m.queries, m.d.Ctx, string(m.d.Player.ID), m.rankedModes())
			}
			m.notice = ""
			return m.board, m.board.open()
		}},
		{keys: []string{"m"}, label: ranked("m me"), open: func(*lobby.Room) (page, tea.Cmd) {
			switch {
			case m.queries == nil:
			case m.d.Player.Guest:
				m.notice = guestProfile
			default:
				p := &profileScreen{sh: m}
				m.notice = ""
				return p, p.load(m.queries, m.d.Ctx, string(m.d.Player.ID), "")
			}
			return nil, nil
		}},
		{keys: []string{"a"}, label: m.quickLabel(), row: 2, open: func(*lobby.Room) (page, tea.Cmd) {
			if m.d.Quick == nil || m.d.Rooms == nil {
				return nil, nil
			}
			m.notice = ""
			return &quickPickerPage{m: m}, nil
		}},
		{keys: []string{"C"}, label: m.challengeLabel(), row: 2, open: func(*lobby.Room) (page, tea.Cmd) {
			return m.openChallengeDialog()
		}},
		{keys: []string{"c"}, label: rooms("c create"), row: 1, open: func(*lobby.Room) (page, tea.Cmd) {
			if m.d.Rooms == nil {
				return nil, nil
			}
			if m.create == nil {
				m.create = &createPage{sh: m, hand: m, rooms: m.d.Rooms, games: m.games}
			}
			m.create.open()
			m.notice = ""
			return m.create, nil
		}},
		{keys: []string{"enter"}, label: rooms("enter join"), row: 1, open: func(sel *lobby.Room) (page, tea.Cmd) {
			if sel == nil {
				return nil, nil
			}
			return nil, m.join(joinMsg{room: sel, side: -1})
		}},
		{keys: []string{"/", "J"}, label: rooms("/ code"), row: 1, open: func(*lobby.Room) (page, tea.Cmd) {
			if m.d.Rooms == nil {
				return nil, nil
			}
			m.notice = ""
			return &codePage{hand: m}, nil
		}},
		{keys: []string{"b"}, open: func(*lobby.Room) (page, tea.Cmd) { return nil, m.backToMatch() }},
	}
}

// quit, toggleHelp and closeHelp are the rooms page's q, ? and esc.
func (m *Lobby) quit() tea.Cmd {
	m.quitting = true
	m.closeChat()
	return tea.Quit
}

func (m *Lobby) toggleHelp() { m.help = !m.help }
func (m *Lobby) closeHelp()  { m.help = false }

// onlineNow is the online line as wide as the lobby's box.
func (m *Lobby) onlineNow() string { return m.onlineLine(max(m.w-boxChrome, 20)) }

// join seats the player in a room and starts the room view.
func (m *Lobby) join(j joinMsg) tea.Cmd {
	if m.d.Rooms == nil || m.seat() != nil {
		return nil
	}
	r := j.room
	if r == nil {
		var err error
		if r, err = m.d.Rooms.Find(j.ref); err != nil {
			// A ranked room is not found by id, but its own players may
			// come back to it from another terminal, and anyone else is
			// told whose room it is.
			rr, werr := m.d.Rooms.Watchable(j.ref)
			var elsewhere *lobby.ElsewhereError
			if errors.As(werr, &elsewhere) {
				m.notice = elsewhereNotice(elsewhere)
				return nil
			}
			if werr != nil || rr.Ranked == "" {
				m.notice = fmt.Sprintf("No room %q is open. Pick one from the list or create one (c).", j.ref)
				return nil
			}
			if _, mine := rr.Seats[m.d.Player.ID]; !mine {
				m.notice = fmt.Sprintf("%s is a ranked match: only its players sit in it. Watch it with w.", rr.ID())
				return nil
			}
			r = rr
		}
	}
	if held := m.rankedSeat(); r.Ranked != "" && held != nil && held != r {
		// Sitting down again in an older ranked room would let a rematch
		// start there while this match is played.
		m.notice = fmt.Sprintf("You are playing a ranked %s match in %s: one ranked match at a time. b goes back to it.", held.Ranked, held.ID())
		return nil
	}
	slot, err := r.Join(m.d.Ctx, m.d.Player, j.side)
	if err != nil {
		var taken *game.SlotTakenError
		switch {
		case errors.Is(err, game.ErrRoomFull):
			m.notice = fmt.Sprintf("Room %s is full.", r.ID())
		case errors.Is(err, game.ErrNotExpected):
			m.notice = fmt.Sprintf("%s is a ranked match: only its players sit in it. Watch it with w.", r.ID())
		case errors.Is(err, game.ErrStarted):
			m.notice = fmt.Sprintf("The match in %s has started without you. Watch it with w.", r.ID())
		case errors.Is(err, game.ErrInvalidSlot):
			m.notice = fmt.Sprintf("%s is a %s room with no %s: its seats are %s.", r.ID(), r.Mode.Name, r.Mode.SeatName(j.side), r.Mode.SeatList())
		case errors.As(err, &taken):
			var free []string
			for _, f := range taken.Free {
				free = append(free, r.Mode.SeatName(f))
			}
			m.notice = fmt.Sprintf("In %s, %s is taken; free: %s.", r.ID(), r.Mode.SeatName(taken.Slot), strings.Join(free, ", "))
		default:
			m.notice = fmt.Sprintf("Could not join %s: %v", r.ID(), err)
		}
		return nil
	}
	title := fmt.Sprintf("%s · %s · casual", r.ID(), r.Mode.Name)
	if r.Private {
		title = fmt.Sprintf("%s · %s · private · code %s", r.ID(), r.Mode.Name, r.Code)
	}
	if r.Ranked != "" {
		title = fmt.Sprintf("%s · %s · ranked", r.ID(), r.Ranked)
	}
	if r.Practice > 0 {
		title = fmt.Sprintf("%s · %s · practice, bots level %d", r.ID(), r.Mode.Name, r.Practice)
	}
	seat, wait := startSeat(&m.d, m, m.chat, r, slot, title, ratingLabels(m.d.Ctx, m.ratings, r), m.w, m.h, m.metricsFor(r.Game.Name()))
	m.startPlay(seat)
	return wait
}

func (m *Lobby) View() tea.View {
	if m.play != nil {
		// The game screen draws while it is up, and the session's driver
		// does not draw the menus meanwhile; a constant view says so
		// should anything ask. Not an empty one: Bubble Tea v2.0.10
		// treats empty content as a zero-height frame whose bounds never
		// match its buffer, and erases the screen on every flush.
		v := tea.NewView(" ")
		v.AltScreen = true
		v.WindowTitle = "termarena"
		v.KeyboardEnhancements.ReportEventTypes = true
		return v
	}
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "termarena"
	return v
}

func (m *Lobby) render() string {
	if m.tooSmall() {
		return tooSmall(m.w, m.h, lobbyMinW, lobbyMinH)
	}
	switch {
	case m.help:
		return m.frame(m.helpText() + "\n" + style(colDim).Render("? or esc close help"))
	case m.state == stMenu && !isDialog(m.scr):
		return m.frame(m.scr.view())
	}
	dialog := "" // the create dialog, the join code, the ranked chooser
	if m.state == stMenu {
		dialog = m.scr.view()
	}
	return m.frame(m.home.viewOver(dialog))
}

// renderNotice is the notice line, wrapped to the box so that a long one
// neither breaks the box nor runs off an 80-column screen.
func (m *Lobby) renderNotice() string {
	return style(colWarn).Width(min(lipgloss.Width(m.notice), max(m.w-boxChrome, 20))).Render(m.notice)
}

// boxChrome is the columns the lobby box adds around its body (border and
// padding).
const boxChrome = 8

// listRows is how many lines a screen's list gets, given the screen's
// body with a list of no rows: everything the terminal has left, less the
// chat marker (and on a tall terminal the chat pane), so an 80×24 list
// shows what fits rather than a fixed three rows.
func (m *Lobby) listRows(without string) int {
	budget := m.h - 4 // the box's border and padding
	if m.chat != nil {
		budget-- // the chat marker or input line
		if m.h >= 30 {
			budget -= min(5+(m.h-24)/3, chatLobbyRows) - 1
		}
	}
	return max(budget-lipgloss.Height(without), 3)
}

// listLine cuts a list line to the box, so one long line (four players'
// names) does not break the box for all the others.
func (m *Lobby) listLine(s string) string {
	if w := max(m.w-boxChrome, 20); lipgloss.Width(s) > w {
		return ansi.Truncate(s, w-1, "…")
	}
	return s
}

// listWindow picks which of n items show in rows lines so that sel is
// visible. When they do not all fit, the last line is a hint of how many
// are above and below ("↓ 4 more").
func listWindow(n, sel, rows int) (start, end int, hint string) {
	if n <= rows {
		return 0, n, ""
	}
	shown := max(rows-1, 1)
	start = max(0, min(sel-shown+1, n-shown))
	end = start + shown
	var parts []string
	if start > 0 {
		parts = append(parts, fmt.Sprintf("↑ %d above", start))
	}
	if end < n {
		parts = append(parts, fmt.Sprintf("↓ %d more", n-end))
	}
	return start, end, "  " + strings.Join(parts, " · ")
}

// drawFrame boxes a screen's body and centres it; a body too large for the
// terminal drops the box, and nothing is ever wider than the terminal.
func (m *Lobby) drawFrame(body string) string {
	box, boxW, boxH := m.box(body)
	if m.chat != nil {
		pw := min(m.w, max(boxW, chatLobbyWidth))
		if pane := m.chat.render(pw, m.h-boxH, max(chatLobbyRows, m.h/3)); pane != "" {
			box = lipgloss.JoinVertical(lipgloss.Center, box, pane)
		}
	}
	return fit(lipgloss.Place(m.w, m.h, lipgloss.Center, lipgloss.Center, box), m.w, m.h)
}

// drawBox is the body in its box, as much of it as leaves the chat pane a
// line.
func (m *Lobby) drawBox(body string) string {
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(colAccent).Padding(1, 3).
		Render(body)
	chatRows := 0
	if m.chat != nil {
		chatRows = 1 // at least the chat marker or the input line
	}
	if lipgloss.Width(box) > m.w || lipgloss.Height(box)+chatRows > m.h {
		// Pad every line to the block's width so the block is centred as
		// a whole, not line by line.
		box = lipgloss.NewStyle().Width(lipgloss.Width(body)).Render(body)
	}
	if m.chat != nil {
		if over := lipgloss.Height(box) + chatRows - m.h; over > 0 {
			// The menu gives up its last lines before chat gives up the
			// line that shows what the player is typing.
			lines := strings.Split(box, "\n")
			box = strings.Join(lines[:max(len(lines)-over, 0)], "\n")
		}
	}
	return box
}

// listH is the height list screens size themselves by: the terminal, less
// what the chat pane below them would like.
func (m *Lobby) listH() int {
	if m.chat == nil || m.h < 20 {
		return m.h
	}
	return m.h - min(5+(m.h-24)/3, chatLobbyRows)
}

// metricsFor is the frame telemetry for a room of game name: labelled by
// game when the server's telemetry can.
func (m *Lobby) metricsFor(name string) FrameMetrics {
	if gm, ok := m.d.Metrics.(GameMetrics); ok {
		return gm.ForGame(name)
	}
	return m.d.Metrics
}

// games is the server's catalogue.
func (m *Lobby) games() game.Catalog {
	if m.d.Games == nil && m.d.Rooms != nil {
		return m.d.Rooms.Games()
	}
	return m.d.Games
}

// rankedModes lists the rating queues, in menu order.
func (m *Lobby) rankedModes() []lobby.RankedMode {
	if m.d.Matchmaker != nil {
		return m.d.Matchmaker.Modes()
	}
	var out []lobby.RankedMode
	for _, q := range m.games().RankedQueues() {
		out = append(out, lobby.RankedMode(q))
	}
	return out
}

func (m *Lobby) helpText() string {
	var b strings.Builder
	bold := lipgloss.NewStyle().Bold(true).Foreground(colText)
	b.WriteString(bold.Render("Keys") + "\n")
	lines := []string{"?  help · esc  back · q ^C  quit"}
	if m.d.Rooms != nil {
		// One row with the help keys: the help fills 80×24 whole.
		lines = []string{"↑/↓ enter  join a room · c  create one · /  join by code", "w  watch a live room · " + lines[0]}
	}
	if u := m.d.WebURL; u != "" {
		// --public-url: where to send a friend (L in a room gives its own link).
		l := "web  " + u
		if more := l + "  TV, live rooms, profiles, replays"; lipgloss.Width(more) <= m.w-4 {
			l = more
		}
		lines = append(lines, l)
	}
	if qs := m.games().RankedQueues(); m.d.Matchmaker != nil && len(qs) > 0 {
		lines = append([]string{"p  ranked " + qs[0] + " · P  choose the mode · L  leaderboard · m  your profile"}, lines...)
	}
	if f := m.findHelp(); f != "" && m.h > 24 {
		// 80×24 has no row to spare (the rooms page's key line names
		// these keys at any size).
		lines = append([]string{f}, lines...)
	}
	if r := m.rankedSeat(); r != nil {
		lines = append([]string{"b  back to your ranked match in " + r.ID()}, lines...)
	}
	for _, l := range lines {
		b.WriteString(style(colDim).Render("  "+l) + "\n")
	}
	if m.d.Rooms != nil {
		b.WriteString("\n" + bold.Render("In a game") + "\n")
		var keys []string
		for _, k := range m.games() {
			if gv := m.gameView(k.Name()); gv != nil {
				keys = append(keys, k.Title()+": "+gv.Help())
			}
		}
		for _, l := range append(keys, gameKeys...) {
			b.WriteString(style(colDim).Render("  "+l) + "\n")
		}
	}
	if len(m.d.TermCommands) > 0 {
		b.WriteString("\n" + bold.Render("ssh -t HOST …") + "\n")
		b.WriteString(style(colDim).Render(wrapWords(m.d.TermCommands, " · ", max(m.w-12, 30), "  ")) + "\n")
	}
	if len(m.d.Commands) > 0 {
		b.WriteString("\n" + bold.Render("ssh HOST …") + style(colDim).Render("  (ssh HOST help explains each)") + "\n")
		b.WriteString(style(colDim).Render(wrapWords(m.d.Commands, " · ", max(m.w-12, 30), "  ")) + "\n")
	}
	return b.String()
}

// gameKeys is the help's "In a game" part every game shares.
var gameKeys = []string{
	"t enter  chat · r  ready, rematch · n  next ranked match",
	"q  leave (a ranked match asks first) · esc never leaves",
}

// wrapWords joins items with sep into lines of at most width cells.
func wrapWords(items []string, sep string, width int, indent string) string {
	var lines []string
	cur := indent
	for _, it := range items {
		switch {
		case cur == indent:
			cur += it
		case lipgloss.Width(cur+sep+it) > width:
			lines = append(lines, cur)
			cur = indent + it
		default:
			cur += sep + it
		}
	}
	return strings.Join(append(lines, cur), "\n")
}
