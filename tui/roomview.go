package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/pace"
	"github.com/termarena/termarena/screen"
)

// FrameWriter is the session output the room view draws on. A frame it
// does not write (an error: the menus have the terminal, or the write
// failed) leaves the terminal showing something else than the view last
// drew, so the view paints its next frame whole.
type FrameWriter interface {
	WriteFrame(p []byte) error
}

// GivenNotifier is a FrameWriter that tells the view when the terminal is
// handed to the game screen (the menus drew on it before), so the view
// paints it whole at once instead of at its next change. OnGiven's f must
// not block; the returned func unregisters.
type GivenNotifier interface {
	OnGiven(f func()) (remove func())
}

// FrameMetrics receives the view's frame telemetry; *telemetry.Metrics
// implements it. Every call is cheap and allocation-free.
type FrameMetrics interface {
	FrameWritten(bytes int, took time.Duration)
	FramesSkipped(n int)
	InputToFrame(d time.Duration)
}

// GameMetrics is frame telemetry that labels what it counts by game: a
// room screen reports to ForGame of its room's game (game.Kind.Name).
type GameMetrics interface {
	ForGame(name string) FrameMetrics
}

// RoomHandle is what the view needs of a room. The view polls LatestAt
// once per frame it draws rather than waking for every room tick: a room
// ticks at 60 Hz and a view draws at 30, and a goroutine wake-up per tick
// per session costs more than drawing the frame. The publish time keeps
// extrapolation exact however late in a tick the poll comes.
type RoomHandle interface {
	ID() string
	LatestAt() (*game.Frame, time.Time)
	Submit(id game.PlayerID, in game.Input) bool
}

// RoomViewConfig wires a view to its session.
type RoomViewConfig struct {
	Room    RoomHandle
	Me      game.PlayerID
	Slot    int
	Title   string // e.g. "r3 · 1v1 · casual" (and the join code when private)
	Out     FrameWriter
	Profile colorprofile.Profile
	FPS     int
	// Clocks are the server's shared frame clocks; nil gives the view a
	// clock of its own (tests, tools).
	Clocks *pace.Clocks
	Width  int
	Height int
	RTT    func() time.Duration // measured round trip to the player; nil = unknown
	// NoReply is how long the client has left the latest probe unanswered;
	// from staleAfter on the HUD says so instead of showing an RTT that is
	// no longer true. nil = always answered.
	NoReply func() time.Duration
	// InputAt is when the session last read input from the client; a key
	// is timed from then rather than from when the program handled it, so
	// the input-to-frame figure includes decoding and the program's queue.
	// nil = when the view gets the key.
	InputAt func() time.Time
	Now     func() time.Time // nil = time.Now
	// Ranked rooms offer "back to queue" after a match, and show rating
	// changes once Outcome has them.
	Ranked bool
	// WarmUp: a lone player may start the game alone to warm up
	// (lobby.Room.WarmsUp); the waiting screen offers it.
	WarmUp bool
	// Bots: b on the waiting screen fills the free seats with bots
	// (lobby.Rooms.FillWithBots); the screen says so.
	Bots    bool
	Outcome func() *lobby.Outcome
	// Watchers reports how many people watch the room (players see it).
	Watchers func() int
	// Watching views have Slot -1 and may follow a player: Follow returns
	// the followed slot (-1 = overview), Labels a seat's extra HUD text
	// (its rating; players of ranked rooms get it too), Footer replaces the
	// title and key help line: a status (title, progress) and the keys,
	// which the view keeps whole when the line must be shortened.
	Follow func() int
	Labels func(slot int) string
	Footer func() (status, keys string)
	// StatusFirst keeps the Footer's status over the match or follow line
	// when the footer cannot hold both: a replay's clock and progress bar
	// are what its footer is for.
	StatusFirst bool
	// OverKeys and WaitText are what a viewer without a seat (Slot -1:
	// watchers, replays) sees instead of a player's prompts: the keys under
	// the results ("n next room · q back") and the line of the pre-game
	// screen.
	OverKeys string
	WaitText string
	// Metrics, when set, gets every frame written, paced frames missed,
	// and keypress-to-frame latency.
	Metrics FrameMetrics
	// Game is the room's game view (made with the palette base
	// viewBase); without one only the waiting screen is drawn. Look: the
	// viewer's keys reach its camera (a watcher's), so the footer names
	// them.
	Game gameview.View
	Look bool
	// Chat, when set, is the chat pane's current snapshot. It is called
	// every frame, so it must be cheap (an atomic load); the snapshot is
	// never modified, and a new pointer is what tells the view to repaint
	// the pane.
	Chat func() *ChatLines
	// Drawn, when set, is called on the view's goroutine after each frame
	// is drawn (written or unchanged), with the grid the terminal now
	// shows: a painter whose frames several watchers share hands a
	// watcher who joins or fell behind the whole screen from it.
	Drawn func(scr *screen.Screen)

	// Palettes are the server's shared game palettes; nil gives the view
	// palettes of its own.
	Palettes *Palettes
}

// Key timing for terminals that send no key release: a lone press is a
// tap, which moves the paddle one cell; a press that repeats the one before
// within repeatGap is auto-repeat (terminals repeat 10 to 40 times a
// second), so the key is held: the paddle moves at full speed until
// holdRepeat passes with no repeat. The auto-repeat delay before the first
// repeat is longer than repeatGap, so a held key moves a cell, then
// another, then glides, as a text cursor does; and two quick deliberate
// taps move two cells.
const (
	holdRepeat = 110 * time.Millisecond
	repeatGap  = 150 * time.Millisecond
	// tapMax ends a tap's prediction when its frames stop coming.
	tapMax = 500 * time.Millisecond
	// submitGap bounds how often one session sends direction changes: the
	// room's input buffer is shared by every seat, so a key flood from one
	// player must not crowd out the others. The latest direction is sent
	// on a later frame.
	submitGap = 8 * time.Millisecond
)

// RoomView draws one session's room screen on one goroutine that owns its
// screen grid, prediction state and frame pacing: its own (Run), or the
// session driver's that runs its loop (Begin, Handle, Beat, End). The menu
// hands it keys and sizes through non-blocking channels, so a flood of
// keys or a slow terminal never stalls the menu or the room.
//
// It is the wiring of its parts (the package doc lists them): it paints
// them around the game's board (gameview.go) where boardLayout puts it,
// and hands each what it needs of the others: a part knows another only through an interface
// it declares (roomHUD's footerChat) or what RoomView passes it.
type RoomView struct {
	cfg  RoomViewConfig
	keys chan keyEvent
	// stopped is closed when Run returns (End).
	stopped chan struct{}

	// owned by Run (or whoever drives Begin, Handle, Beat and End)
	// ends undo what Begin set up.
	ends []func()
	// canvas is the grid the parts draw on and the terminal's size.
	canvas
	mode viewMode
	// scores is the game's view when it is a scoreboard (nil: not).
	scores gameview.Scoreboard
	// lay is where the board and the chat pane go.
	lay boardLayout

	// The parts, each owning its fields: when frames are drawn and
	// written, the player's inputs and prediction, and what is drawn
	// around the board (the header and footer, the chat pane, the
	// overlay and prompt) or instead of it (the waiting screen).
	pace framePace
	in   inputs
	head roomHUD
	chat chatPane
	ov   roomOverlay
	wait waitScreen
}

// canvas is the grid a room screen's parts paint and the terminal size it
// stands for; a new size comes with the beat (applyChanges).
type canvas struct {
	scr  *screen.Screen
	w, h int
}

type viewMode int

const (
	modeNone viewMode = iota
	modeSmall
	modeWaiting
	modeBoard
)

// NewRoomView prepares a view; Run draws it.
func NewRoomView(cfg RoomViewConfig) *RoomView {
	if cfg.FPS <= 0 {
		cfg.FPS = 30
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	v := &RoomView{
		cfg:     cfg,
		keys:    make(chan keyEvent, 64),
		stopped: make(chan struct{}),
		canvas:  canvas{w: cfg.Width, h: cfg.Height},
		pace: framePace{rate: cfg.FPS, now: cfg.Now, metrics: cfg.Metrics,
			fps: cfg.FPS}, // until the first second has been measured
		in: inputs{room: cfg.Room, me: cfg.Me, slot: cfg.Slot, game: cfg.Game, now: cfg.Now, rtt: cfg.RTT},
	}
	v.in.steer, _ = cfg.Game.(gameview.Steered)
	v.lay.game = cfg.Game
	v.lay.scaled, _ = cfg.Game.(gameview.Scaled)
	v.scores, _ = cfg.Game.(gameview.Scoreboard)
	v.scr = screen.New(cfg.Width, cfg.Height, v.palette(cfg.Profile))
	v.chat = chatPane{cv: &v.canvas, feed: cfg.Chat, now: cfg.Now}
	v.head = roomHUD{cfg: &v.cfg, cv: &v.canvas, chat: &v.chat, colour: hasColour(cfg.Profile)}
	v.ov = roomOverlay{cfg: &v.cfg, cv: &v.canvas, scores: v.scores}
	v.wait = waitScreen{cfg: &v.cfg, cv: &v.canvas}
	return v
}

func hasColour(p colorprofile.Profile) bool { return p >= colorprofile.ANSI }

// palette is the game palette for p, with the game view's styles after
// the screen's own.
func (v *RoomView) palette(p colorprofile.Profile) *screen.Palette {
	return v.cfg.Palettes.of(p, v.cfg.Game)
}

// key queues a Steered game's direction press or release, already
// mapped (tests; GameKey maps on Run); it never blocks.
func (v *RoomView) key(dir int8, release, repeat bool) {
	select {
	case v.keys <- keyEvent{dir: dir, release: release, repeat: repeat, at: v.readAt()}:
	default:
	}
}

// Resize hands a new terminal size to the view (latest wins).
func (v *RoomView) Resize(w, h int) {
	v.pace.size.Store(&[2]int{w, h})
	v.poke()
}

// SetProfile changes the colour profile (latest wins).
func (v *RoomView) SetProfile(p colorprofile.Profile) {
	v.pace.pal.Store(&p)
	v.poke()
}

// SetPrompt shows a question for the player over the board (and on the
// too-small screen), one line per element, until it is called with none.
func (v *RoomView) SetPrompt(lines ...string) {
	if len(lines) == 0 {
		v.ov.prompt.Store(nil)
	} else {
		v.ov.prompt.Store(&promptText{lines: slices.Clone(lines), keysAt: -1})
	}
	v.poke()
}

// SetHelp shows key help as SetPrompt shows a question, with the game's
// own key line inserted before lines[at]: a player's keys for their seat,
// or a watcher's camera keys (none: nothing is inserted). The game's view
// is asked on Run's goroutine, as for everything else it says.
func (v *RoomView) SetHelp(lines []string, at int) {
	v.ov.prompt.Store(&promptText{lines: slices.Clone(lines), keysAt: min(max(at, 0), len(lines))})
	v.poke()
}

// poke tells Run a new size, palette or prompt waits; the next beat
// applies it. If the key buffer is full, Run is about to wake anyway.
func (v *RoomView) poke() {
	select {
	case v.keys <- keyEvent{poke: true}:
	default:
	}
}

// pokeWhole wakes Run to paint the whole screen: the terminal was handed
// to the game screen.
func (v *RoomView) pokeWhole() {
	select {
	case v.keys <- keyEvent{poke: true, whole: true}:
	default:
	}
}

// applyChanges takes a new size or palette, if there is one.
func (v *RoomView) applyChanges() {
	s, p := v.pace.changes()
	if s != nil {
		v.w, v.h = s[0], s[1]
		v.scr.Resize(s[0], s[1])
		v.mode = modeNone
		v.chat.forget()
	}
	if p != nil {
		if v.cfg.Game != nil {
			v.cfg.Game.SetProfile(*p)
		}
		v.scr.SetPalette(v.palette(*p))
		v.head.colour = hasColour(*p)
	}
}

// Run draws frames until ctx ends. Frames are paced at FPS; a frame is
// written only when something on screen changed, and a write that blocks
// (the player's terminal is not reading) simply delays the next frame: the
// room's latest-wins mailbox means nothing queues up behind it.
//
// A key is carried out at once (sent to the room, timed from its read),
// and the first key after a beat is drawn at once too, in the frame of the
// beat to come, which then draws nothing (drawEarly): a frame per key let
// the key rate set the frame rate (a flood of 20,000 keys a second was
// answered with up to 11,600 frames a second), while waiting for the next
// beat put up to a frame's time between a key and its move. A resize or a
// prompt waits for the beat. Only Bubble Tea's own writes, which its
// renderer paces, are painted over at once.
func (v *RoomView) Run(ctx context.Context) {
	v.Begin()
	defer v.End()
	for {
		beat, keys := v.Wakes()
		select {
		case <-ctx.Done():
			return
		case k := <-keys:
			v.Handle(k)
		case <-beat:
			v.Beat()
		}
	}
}

// ScreenEvent is what wakes a room screen besides its beats (Wakes): a
// key, a camera key or a poke. Only the screen reads it (Handle).
type ScreenEvent = keyEvent

// Begin starts the screen's loop: its place on the frame clock and its
// first frame. Run is Begin, then Handle and Beat as Wakes says, then End;
// a session that waits on other things too (the server's play loop) calls
// them from its own select instead of giving the screen a goroutine, all
// on one goroutine, and calls End when done with it.
func (v *RoomView) Begin() {
	v.ends = append(v.ends, v.pace.start(v.cfg.Clocks))
	if n, ok := v.cfg.Out.(GivenNotifier); ok {
		// Handed the terminal after the menus drew on it: the whole
		// screen at once, not a beat later.
		v.ends = append(v.ends, n.OnGiven(v.pokeWhole))
	}
	v.poll()
	v.draw()
}

// Wakes is what the loop waits for next: the clock's next beat (Beat) and
// the screen's events (Handle).
func (v *RoomView) Wakes() (beat <-chan struct{}, events <-chan ScreenEvent) {
	return v.pace.beat, v.keys
}

// End ends the loop Begin started: the screen leaves its frame clock and
// takes no more keys, and Done is closed. It does what it can even without
// a Begin (a screen handed to a session that ended first), and only once.
func (v *RoomView) End() {
	select {
	case <-v.stopped:
		return
	default:
	}
	// The terminal offers no more keys (TakeKey) once the loop is gone.
	defer close(v.stopped)
	for i := len(v.ends) - 1; i >= 0; i-- {
		v.ends[i]()
	}
	v.ends = nil
}

// Done is closed once the screen's loop has ended (End; Run returned).
func (v *RoomView) Done() <-chan struct{} { return v.stopped }

// Handle carries out an event from Wakes: a key is carried out at once
// (sent to the room, timed from its read), and the first key after a beat
// is drawn at once too (drawEarly).
func (v *RoomView) Handle(k ScreenEvent) {
	switch {
	case k.whole:
		v.scr.Invalidate()
		v.applyChanges()
		v.poll()
		v.draw()
	case k.poke:
		// A new size, palette or prompt: the next beat shows it.
	case k.key != "" && !v.mapKey(&k):
		// Not one of the game's keys: nothing to draw.
	case k.acted || k.look != "":
		v.poll()
		if k.acted {
			v.in.sendAction(k)
		} else if v.cfg.Game != nil {
			v.cfg.Game.Look(k.look)
		}
		v.drawEarly()
	default:
		v.poll()
		v.in.steerKey(k)
		v.drawEarly()
	}
}

// Beat draws the frame of a beat of the clock (from Wakes), unless a key
// drew it already.
func (v *RoomView) Beat() {
	// Beats go on while the loop is blocked writing to a client that does
	// not read: count the ones it slept through.
	v.pace.next()
	v.in.ctl.expire(v.cfg.Now())
	v.in.submit()
	if v.pace.drawn() {
		// A key drew this beat's frame already.
		return
	}
	v.applyChanges()
	v.poll()
	v.draw()
	v.pace.countFrame()
}

// drawEarly draws the frame of the next beat now, for a key, unless a key
// already took it: the first key after a beat is on screen at once (input
// to frame ≈ the write, not up to a frame's wait), the beat it took draws
// nothing, and later keys wait for the beat after, so however fast keys
// come the session writes no more frames than its rate.
func (v *RoomView) drawEarly() {
	if !v.pace.takeEarly() {
		return
	}
	v.applyChanges()
	v.poll()
	v.draw()
	v.pace.countFrame()
}

// poll takes the room's newest frame if it is not the one shown.
func (v *RoomView) poll() {
	if fr, at := v.cfg.Room.LatestAt(); fr != nil && fr != v.in.fr {
		v.setFrame(fr, at)
	}
}

// setFrame shows fr, published at `at`; the inputs it acknowledges are
// no longer predicted.
func (v *RoomView) setFrame(fr *game.Frame, at time.Time) { v.in.setFrame(fr, at) }

// draw updates the grid for now and writes whatever changed.
func (v *RoomView) draw() {
	now := v.cfg.Now()
	v.paint(now)
	done, wrote, err := v.pace.write(v.scr, v.cfg.Out)
	if err != nil {
		return
	}
	if wrote {
		v.in.shown(done, v.pace.metrics)
	}
	v.in.settled()
	if v.cfg.Drawn != nil {
		v.cfg.Drawn(v.scr)
	}
}

// Frames is how many frames the view has written (for tests and telemetry;
// only meaningful after Run returns).
func (v *RoomView) Frames() uint64 { return v.pace.frames }

// paint draws the frame for now: the board and the parts around it, or
// the waiting screen, then the chat pane.
func (v *RoomView) paint(now time.Time) {
	if v.chat.take() {
		// A banner whose time is up gives its row back to the header
		// drawn next, in this frame.
		v.textGone()
	}
	if fr := v.in.fr; v.cfg.Game != nil && fr != nil && fr.Phase != game.Waiting {
		v.paintBoard(fr, now)
	} else {
		if v.mode != modeWaiting {
			v.clearScreen()
			v.mode = modeWaiting
			v.textGone()
		}
		v.paintWaiting(v.in.fr)
	}
	if v.chat.paint() {
		v.textGone()
	}
}

// textGone has the header and footer, or the waiting screen, drawn again
// whole: something was drawn over them, or under them the screen changed.
func (v *RoomView) textGone() {
	v.head.invalidate()
	v.wait.forget()
}

// clearScreen blanks the grid; the pane is repainted on the next frame.
func (v *RoomView) clearScreen() {
	v.scr.Clear()
	v.chat.forget()
}

// paintWaiting is the pre-game screen, with the chat pane under it.
func (v *RoomView) paintWaiting(fr *game.Frame) {
	warning := ""
	if v.cfg.Slot >= 0 && v.tooSmallToPlay(fr) {
		warning = v.smallWarning(fr)
	}
	lines := v.wait.lines(fr, v.ov.teams(fr), warning, v.ov.promptLines())
	rows := v.chat.waitingPane(len(lines))
	if !v.wait.changed(lines, v.chat.pane) {
		return
	}
	v.clearScreen()
	v.wait.draw(lines, rows)
}

// paintTooSmall says the terminal cannot show the board, which needs
// needW×needH; over: the match has ended.
func (v *RoomView) paintTooSmall(fr *game.Frame, needW, needH int, over bool) {
	if v.mode != modeSmall {
		v.clearScreen()
		v.mode = modeSmall
	}
	lines := []string{"Terminal too small", fmt.Sprintf("need %d×%d, have %d×%d", needW, needH, v.w, v.h), "enlarge the window, or q to leave"}
	if v.cfg.Slot >= 0 && (fr.Phase == game.Countdown || fr.Phase == game.Playing) && !over {
		// The match goes on without this terminal: the player must know
		// that points are being played, not that the game waits.
		lines = append(lines, "match in progress — enlarge the terminal")
	}
	lines = fitLines(append(lines, v.ov.promptLines()...), v.w, v.h)
	// Every row is cleared first: the prompt comes and goes, and a resize
	// moves the lines.
	v.scr.Fill(0, 0, v.w, v.h, ' ', stDefault)
	top := max((v.h-len(lines))/2, 0)
	for i, l := range lines {
		v.scr.Text(max((v.w-len([]rune(l)))/2, 0), top+i, l, stWarn)
	}
}

// fitLines breaks lines between words to w columns and keeps the first h
// rows: a too-small screen must itself fit the smallest terminal (20×8
// holds the whole message).
func fitLines(lines []string, w, h int) []string {
	var out []string
	for _, l := range lines {
		if len([]rune(l)) <= w {
			out = append(out, l) // as written: its spacing may mean something
			continue
		}
		out = append(out, strings.Split(wrapWords(strings.Fields(l), " ", w, ""), "\n")...)
	}
	return out[:min(len(out), max(h, 0))]
}

// tooSmallToPlay: this terminal cannot show fr's board.
func (v *RoomView) tooSmallToPlay(fr *game.Frame) bool {
	if fr == nil || v.cfg.Game == nil {
		return false
	}
	_, _, w, h := v.lay.size(fr)
	return v.w < w || v.h < h+chromeRows
}

func (v *RoomView) smallWarning(fr *game.Frame) string {
	_, _, w, h := v.lay.size(fr)
	return fmt.Sprintf("too small for the board (need %d×%d, have %d×%d): the match will not wait", w, h+chromeRows, v.w, v.h)
}

// staleAfter is how long an unanswered probe takes to make the last RTT
// stale: longer than any round trip a game is playable over.
const staleAfter = 2 * time.Second
