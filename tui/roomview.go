package tui

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/pace"
	"github.com/termarena/termarena/screen"
)

// FrameWriter is the session output the room view draws on. Foreign counts
// writes made by anyone else (Bubble Tea's renderer): when it moves, the
// terminal no longer shows what the view last drew, so it repaints.
type FrameWriter interface {
	WriteFrame(p []byte) error
	Foreign() uint64
}

// ForeignNotifier is a FrameWriter that can tell the view when someone
// else (Bubble Tea) wrote, so the view repaints at once instead of at its
// next beat. OnForeign's f must not block; the returned func unregisters.
type ForeignNotifier interface {
	OnForeign(f func()) (remove func())
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
	Ranked  bool
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
	// OverKeys and WaitText are what a viewer without a seat (Slot -1:
	// watchers, replays) sees instead of a player's prompts: the keys under
	// the results ("n next room · q back") and the line of the pre-game
	// screen.
	OverKeys string
	WaitText string
	// Metrics, when set, gets every frame written, paced frames missed,
	// and keypress-to-frame latency.
	Metrics FrameMetrics
	// Game, when set, is the room's plug-in view (made with the palette
	// base viewBase); nil means the built-in Pong board. Look: the
	// viewer's keys reach its camera (a watcher's), so the footer names
	// them.
	Game GameView
	Look bool
	// Chat, when set, is the chat pane's current snapshot. It is called
	// every frame, so it must be cheap (an atomic load); the snapshot is
	// never modified, and a new pointer is what tells the view to repaint
	// the pane.
	Chat func() *ChatLines
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
	// tapWakeLag: after a room tick is due, the view looks at the frame
	// this much later, to send a tap's stop before the next tick.
	tapWakeLag = 3 * time.Millisecond
	// tapMax ends a tap whose frames stop coming.
	tapMax = 500 * time.Millisecond
	// extrapolation is capped so a stalled room freezes the picture rather
	// than letting objects drift away.
	maxAhead = 250 * time.Millisecond
	// submitGap bounds how often one session sends direction changes: the
	// room's input buffer is shared by every seat, so a key flood from one
	// player must not crowd out the others. The latest direction is sent
	// on a later frame.
	submitGap = 8 * time.Millisecond
	// pressLead is how many ticks ahead an unconfirmed press is drawn.
	pressLead = 2
)

// RoomView draws one session's room screen on one goroutine (Run) that
// owns its screen grid, prediction state and frame pacing. The Bubble Tea
// program hands it keys and sizes through non-blocking channels, so a
// flood of keys or a slow terminal never stalls the program or the room.
type RoomView struct {
	cfg  RoomViewConfig
	keys chan keyEvent
	// A new size or palette is rare: it waits in these (latest wins) and a
	// poke on keys wakes Run, which keeps Run's select at three cases.
	size   atomic.Pointer[[2]int]
	pal    atomic.Pointer[colorprofile.Profile]
	prompt atomic.Pointer[[]string] // a question for the player, over the board
	frames uint64                   // written, for the HUD's fps

	// owned by Run
	scr      *screen.Screen
	bd       board
	mode     viewMode
	fr       *game.Frame
	frAt     time.Time
	foreign  uint64
	ctl      control
	pending  []sent
	seq      uint32
	lastSent time.Time
	fps      int
	fpsCount int
	fpsAt    time.Time
	tap      tapState
	tapTimer *time.Timer
	keyAt    time.Time // read time of a move not yet shown in a written frame
	keyRect  prect     // where the own paddle was drawn when that key came
	ownPos   int32     // own paddle position and rectangle as last painted
	ownRect  prect
	hud      string
	hudKey   hudKey
	follow   int
	overlay  []string
	ovRect   [4]int
	colour   bool // the profile has colours (else paddles are marked)
	w, h     int
	// A plug-in view's board region (x, y, w, h), the size it was laid
	// out for, and scratch for its pending actions.
	region           [4]int
	layoutW, layoutH int
	acts             []int8

	chatNow   *ChatLines // this frame's chat snapshot
	chatShown *ChatLines // the snapshot the pane shows
	pane      chatRect   // where the pane goes in the current layout
	paneShown chatRect
	cells     []gridCell // scratch for drawing chat text
	wrap      chatWrapper
	// bannerShown: the top row shows the chat snapshot's banner.
	bannerShown bool
}

type viewMode int

const (
	modeNone viewMode = iota
	modeSmall
	modeWaiting
	modeBoard
)

type sent struct {
	seq uint32
	dir int8
	at  time.Time
}

// NewRoomView prepares a view; Run draws it.
func NewRoomView(cfg RoomViewConfig) *RoomView {
	if cfg.FPS <= 0 {
		cfg.FPS = 30
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	v := &RoomView{
		cfg:  cfg,
		keys: make(chan keyEvent, 64),
		w:    cfg.Width, h: cfg.Height,
		fps: cfg.FPS, // until the first second has been measured
	}
	v.scr = screen.New(cfg.Width, cfg.Height, v.palette(cfg.Profile))
	v.colour = hasColour(cfg.Profile)
	v.tapTimer = time.NewTimer(time.Hour)
	v.tapTimer.Stop()
	return v
}

func hasColour(p colorprofile.Profile) bool { return p >= colorprofile.ANSI }

// palette is the game palette for p, with a plug-in view's styles after
// the screen's own.
func (v *RoomView) palette(p colorprofile.Profile) *screen.Palette {
	if v.cfg.Game == nil {
		return gamePalette(p, nil)
	}
	return gamePalette(p, v.cfg.Game.Styles(p))
}

// Key hands a direction press or release to the view; it never blocks (a
// flood beyond the buffer is dropped).
func (v *RoomView) Key(dir int8, release, repeat bool) {
	at := v.cfg.Now()
	if f := v.cfg.InputAt; f != nil {
		if r := f(); !r.IsZero() && r.Before(at) {
			at = r
		}
	}
	select {
	case v.keys <- keyEvent{dir: dir, release: release, repeat: repeat, at: at}:
	default:
	}
}

// Resize hands a new terminal size to the view (latest wins).
func (v *RoomView) Resize(w, h int) {
	v.size.Store(&[2]int{w, h})
	v.poke()
}

// SetProfile changes the colour profile (latest wins).
func (v *RoomView) SetProfile(p colorprofile.Profile) {
	v.pal.Store(&p)
	v.poke()
}

// SetPrompt shows a question for the player over the board (and on the
// too-small screen), one line per element, until it is called with none.
func (v *RoomView) SetPrompt(lines ...string) {
	if len(lines) == 0 {
		v.prompt.Store(nil)
	} else {
		l := slices.Clone(lines)
		v.prompt.Store(&l)
	}
	v.poke()
}

func (v *RoomView) promptLines() []string {
	if p := v.prompt.Load(); p != nil {
		return *p
	}
	return nil
}

// poke wakes Run to look at size and pal. If the key buffer is full, Run is
// about to wake anyway and looks at them on every wake.
func (v *RoomView) poke() {
	select {
	case v.keys <- keyEvent{poke: true}:
	default:
	}
}

// applyChanges takes a new size or palette, if there is one.
func (v *RoomView) applyChanges() {
	if s := v.size.Swap(nil); s != nil {
		v.w, v.h = s[0], s[1]
		v.scr.Resize(s[0], s[1])
		v.mode = modeNone
		v.chatShown, v.paneShown = nil, chatRect{}
	}
	if p := v.pal.Swap(nil); p != nil {
		if v.cfg.Game != nil {
			v.cfg.Game.SetProfile(*p)
		}
		v.scr.SetPalette(v.palette(*p))
		v.colour = hasColour(*p)
	}
}

// Run draws frames until ctx ends. Frames are paced at FPS; a frame is
// written only when something on screen changed, and a write that blocks
// (the player's terminal is not reading) simply delays the next frame: the
// room's latest-wins mailbox means nothing queues up behind it.
func (v *RoomView) Run(ctx context.Context) {
	clocks := v.cfg.Clocks
	if clocks == nil {
		clocks = pace.New()
	}
	clk, release := clocks.Acquire(v.cfg.FPS)
	defer release()
	if n, ok := v.cfg.Out.(ForeignNotifier); ok {
		// A write by Bubble Tea (the menu's last frame landing after the
		// game's first) is repainted over at once, not a beat later.
		defer n.OnForeign(v.poke)()
	}
	beat, beats := clk.Next()
	v.fpsAt = v.cfg.Now()
	defer v.tapTimer.Stop()
	var tapC <-chan time.Time // the tap timer's channel while it is armed
	v.poll()
	v.draw()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tapC:
			tapC = nil
			if v.checkTap() {
				tapC = v.armTap()
			}
			continue
		case k := <-v.keys:
			if k.poke {
				break // a new size or palette: a full paced frame below
			}
			if k.acted || k.look != "" {
				v.applyChanges()
				v.poll()
				if k.acted {
					v.sendAction(k)
				} else if v.cfg.Game != nil {
					v.cfg.Game.Look(k.look)
				}
				n := v.fpsCount
				v.draw()
				v.fpsCount = n
				continue
			}
			v.applyChanges()
			v.poll()
			before := v.ctl.dir
			if k.release {
				v.ctl.release(k)
			} else {
				v.ctl.press(k)
			}
			if v.keyTap(!k.release) {
				tapC = v.armTap()
			} else if !v.tap.active {
				tapC = nil
			}
			// A key is timed until a frame shows the paddle move: only a
			// press that starts the paddle from rest towards where it can
			// go. A key during a pause or into a wall has no frame that
			// shows it, and a reversal may leave the paddle on the same
			// pixels it was drawn on, though it does change its course.
			if d := v.ctl.dir; d != 0 && before == 0 && v.keyAt.IsZero() && v.canMove(d) {
				v.keyAt, v.keyRect = k.at, v.ownRect
			}
			v.submit()
			// Draw at once so the paddle answers the key in this frame,
			// not the next paced one; it does not count as a paced frame.
			n := v.fpsCount
			v.draw()
			v.fpsCount = n
			continue
		case <-beat:
			// Beats go on while the loop is blocked writing to a client
			// that does not read: count the ones it slept through.
			next, n := clk.Next()
			if n > beats+1 && v.cfg.Metrics != nil {
				v.cfg.Metrics.FramesSkipped(int(n - beats - 1))
			}
			beat, beats = next, n
		}
		v.applyChanges()
		v.ctl.expire(v.cfg.Now())
		v.submit()
		v.poll()
		v.draw()
	}
}

// poll takes the room's newest frame if it is not the one shown.
func (v *RoomView) poll() {
	if fr, at := v.cfg.Room.LatestAt(); fr != nil && fr != v.fr {
		v.setFrame(fr, at)
	}
}

// submit sends the control's direction to the room when it changed. A
// rejected submit (room buffer full) is retried on the next frame.
func (v *RoomView) submit() { v.send(false) }

// send is submit; force skips the submit gap. It reports whether an input
// went out.
func (v *RoomView) send(force bool) bool {
	if v.ctl.dir == v.ctl.sentDir {
		return false
	}
	now := v.cfg.Now()
	if !force && now.Sub(v.lastSent) < submitGap {
		return false
	}
	v.seq++
	in := game.Input{Slot: v.cfg.Slot, Seq: v.seq, Action: v.ctl.dir, Seen: v.seenTick(v.ctl.at, now)}
	if !v.cfg.Room.Submit(v.cfg.Me, in) {
		v.seq--
		return false
	}
	v.ctl.sentDir = v.ctl.dir
	v.lastSent = now
	v.pending = append(v.pending, sent{v.seq, v.ctl.dir, now})
	if len(v.pending) > 64 { // never grows without bound if acks stop
		v.pending = append(v.pending[:0], v.pending[len(v.pending)-64:]...)
	}
	if v.tap.active && v.ctl.tap && v.tap.seq == 0 && v.ctl.dir == v.tap.dir {
		v.tap.seq = v.seq
	}
	return true
}

// seenTick is the room tick the player's screen showed at `at`, when they
// chose what the input says (game.Input.Seen): a frame written here reaches
// the screen half a round trip later and the key comes back in the other
// half, so the screen showed what this view drew a round trip before the
// key was read. The view draws the game extrapolated to the moment it
// writes, so that is the tick the room was at then. 0 (unknown) before a
// match has stepped.
func (v *RoomView) seenTick(at, now time.Time) uint64 {
	fr := v.fr
	if fr == nil || fr.Tick == 0 || fr.TickRate <= 0 {
		return 0
	}
	if at.IsZero() || at.After(now) {
		at = now
	}
	if v.cfg.RTT != nil {
		if rtt := v.cfg.RTT(); rtt > 0 {
			at = at.Add(-rtt)
		}
	}
	// Bounded so the product cannot overflow; the room caps the lag far
	// below a minute anyway.
	d := min(max(at.Sub(v.frAt), -time.Minute), time.Minute)
	t := int64(fr.Tick) + int64(d)*int64(fr.TickRate)/int64(time.Second)
	return uint64(max(t, 1))
}

// setFrame shows fr, published at `at`: extrapolation runs from then.
func (v *RoomView) setFrame(fr *game.Frame, at time.Time) {
	if fr == nil {
		return
	}
	if at.IsZero() {
		at = v.cfg.Now()
	}
	v.fr, v.frAt = fr, at
	if v.cfg.Slot >= 0 && v.cfg.Slot < len(fr.Acks) {
		ack := fr.Acks[v.cfg.Slot]
		i := 0
		for i < len(v.pending) && v.pending[i].seq <= ack {
			i++
		}
		v.pending = append(v.pending[:0], v.pending[i:]...)
		if v.tap.stopSeq != 0 && ack >= v.tap.stopSeq {
			v.tap.clamp, v.tap.stopSeq = false, 0
		}
	}
}

// canMove: the game is in play and a press in direction dir moves the own
// paddle, from where it was last drawn, to other pixels (near a wall it
// may not: then no frame will show the key).
func (v *RoomView) canMove(dir int8) bool {
	s := v.snapshot()
	if !v.live() || v.cfg.Slot < 0 || v.cfg.Slot >= len(s.Paddles) {
		return false
	}
	to := s.Config.MovePaddle(v.ownPos, dir, pressLead, v.cfg.Slot)
	return v.bd.paddleRect(v.cfg.Slot, to, s.Paddles[v.cfg.Slot].Len) != v.ownRect
}

// live: the game is in play, so the player's keys move their paddle.
func (v *RoomView) live() bool {
	if gv := v.cfg.Game; gv != nil {
		return v.fr != nil && v.fr.Phase == game.Playing && !v.fr.Paused && !gv.Over(v.fr.State)
	}
	s := v.snapshot()
	return s != nil && v.fr.Phase == game.Playing && !v.fr.Paused && !s.Over
}

func (v *RoomView) snapshot() *pong.Snapshot {
	if v.fr == nil {
		return nil
	}
	s, _ := v.fr.State.(*pong.Snapshot)
	return s
}

// draw updates the grid for now and writes whatever changed.
func (v *RoomView) draw() {
	if f := v.cfg.Out.Foreign(); f != v.foreign {
		v.foreign = f
		v.scr.Invalidate()
	}
	now := v.cfg.Now()
	v.paint(now)
	if out := v.scr.Render(); out != nil {
		m := v.cfg.Metrics
		var start time.Time
		if m != nil {
			start = time.Now()
		}
		if err := v.cfg.Out.WriteFrame(out); err != nil {
			return
		}
		v.frames++
		// The timed key's move is on screen: the paddle left its pixels,
		// or a plug-in view drew the action in the frame made for it.
		shown := !v.keyAt.IsZero() && (v.cfg.Game != nil || v.ownRect != v.keyRect)
		if m != nil {
			done := time.Now()
			m.FrameWritten(len(out), done.Sub(start))
			if shown {
				m.InputToFrame(done.Sub(v.keyAt))
			}
		}
		if shown {
			v.keyAt = time.Time{}
		}
	}
	if !v.live() {
		v.keyAt = time.Time{}
	}
	// The HUD's rate counts frames delivered on time, written or not (an
	// unchanged frame costs nothing to deliver): a terminal that stops
	// reading blocks WriteFrame, and this rate falls with it.
	v.fpsCount++
	if d := now.Sub(v.fpsAt); d >= time.Second {
		v.fps = int(float64(v.fpsCount)/d.Seconds() + 0.5)
		v.fpsCount, v.fpsAt = 0, now
	}
}

// Frames is how many frames the view has written (for tests and telemetry;
// only meaningful after Run returns).
func (v *RoomView) Frames() uint64 { return v.frames }

func (v *RoomView) paint(now time.Time) {
	if v.cfg.Chat != nil {
		v.chatNow = v.cfg.Chat()
	}
	fr, snap := v.fr, v.snapshot()
	if v.cfg.Game != nil && fr != nil && fr.Phase != game.Waiting {
		v.paintPlugin(fr)
		v.paintChat()
		return
	}
	want := modeWaiting
	if fr != nil && snap != nil && fr.Phase != game.Waiting {
		want = modeBoard
	}
	if want == modeBoard {
		if v.mode == modeNone || v.mode == modeWaiting || v.mode == modeSmall {
			if !v.layoutBoard(snap.Width, snap.Height) {
				v.pane = chatRect{}
				v.paintSmall(fr, snap)
				return
			}
			v.mode = modeBoard
			v.clearScreen()
			v.bd.walls = nil
			v.hud, v.overlay = "", nil
		}
		v.paintBoard(now, fr, snap)
		v.paintChat()
		return
	}
	if v.mode != modeWaiting {
		v.clearScreen()
		v.mode = modeWaiting
		v.hud = ""
	}
	v.paintWaiting(fr)
	v.paintChat()
}

func (v *RoomView) paintSmall(fr *game.Frame, snap *pong.Snapshot) {
	needW, needH := boardNeeds(snap)
	v.paintTooSmall(fr, needW, needH, snap.Over)
}

// paintTooSmall says the terminal cannot show the board, which needs
// needW×needH; over: the match has ended.
func (v *RoomView) paintTooSmall(fr *game.Frame, needW, needH int, over bool) {
	if v.mode != modeSmall {
		v.clearScreen()
		v.mode = modeSmall
	}
	lines := []string{"Terminal too small", fmt.Sprintf("need %d×%d, have %d×%d", needW, needH, v.w, v.h), "enlarge the window, or q to leave", ""}
	if v.cfg.Slot >= 0 && (fr.Phase == game.Countdown || fr.Phase == game.Playing) && !over {
		// The match goes on without this terminal: the player must know
		// that points are being played, not that the game waits.
		lines[3] = "match in progress — enlarge the terminal"
	}
	lines = append(lines, v.promptLines()...)
	for i := range 6 {
		// Rows are cleared first: the prompt comes and goes.
		v.scr.Fill(0, v.h/2-1+i, v.w, 1, ' ', stDefault)
		if i < len(lines) {
			v.scr.Text(max((v.w-len([]rune(lines[i])))/2, 0), v.h/2-1+i, lines[i], stWarn)
		}
	}
}

// boardNeeds is the smallest terminal the board fits at 1:1 with the HUD
// and the footer (board.layout's bound).
func boardNeeds(snap *pong.Snapshot) (w, h int) {
	return int(snap.Width), (int(snap.Height)+1)/2 + 2
}

// tooSmallToPlay: this terminal cannot show fr's board.
func (v *RoomView) tooSmallToPlay(fr *game.Frame) bool {
	if fr == nil {
		return false
	}
	if v.cfg.Game != nil {
		_, _, w, h := v.pluginSize(fr)
		return v.w < w || v.h < h+2
	}
	snap, _ := fr.State.(*pong.Snapshot)
	if snap == nil {
		return false
	}
	w, h := boardNeeds(snap)
	return v.w < w || v.h < h
}

func (v *RoomView) smallWarning(fr *game.Frame) string {
	var w, h int
	if v.cfg.Game != nil {
		_, _, mw, mh := v.pluginSize(fr)
		w, h = mw, mh+2
	} else {
		w, h = boardNeeds(fr.State.(*pong.Snapshot))
	}
	return fmt.Sprintf("too small for the board (need %d×%d): the match will not wait", w, h)
}

// predictedPaddle is where this session's paddle is now: the room's
// position at the last frame, moved by the direction in force, then by
// every input the room has not acknowledged yet from the moment it was
// sent. The same MovePaddle maths as the server makes it land where the
// server will.
func (v *RoomView) predictedPaddle(now time.Time, snap *pong.Snapshot, tickRate int) int32 {
	p := snap.Paddles[v.cfg.Slot]
	pos, dir := p.Pos, p.Dir
	t := v.frAt
	ticks := func(from, to time.Time) int32 {
		d := min(to.Sub(from), maxAhead)
		if d <= 0 {
			return 0
		}
		return int32(int64(d) * int64(tickRate) / int64(time.Second))
	}
	for _, s := range v.pending {
		if s.at.After(t) {
			pos = snap.Config.MovePaddle(pos, dir, ticks(t, s.at), v.cfg.Slot)
			t = s.at
		}
		dir = s.dir
	}
	unconfirmed := len(v.pending) > 0
	if c := v.ctl; c.dir != c.sentDir && c.dir != 0 {
		// A press not sent yet (submits are rate-limited) is drawn from
		// when it was pressed, as if it had gone out then.
		if c.lastPress.After(t) {
			pos = snap.Config.MovePaddle(pos, dir, ticks(t, c.lastPress), v.cfg.Slot)
			t = c.lastPress
		}
		dir, unconfirmed = c.dir, true
	}
	last := ticks(t, now)
	if dir != 0 && unconfirmed && !now.Before(t) {
		// A press the room has not confirmed yet shows at once: the
		// frame drawn for the key moves the paddle pressLead ticks (one
		// tick can stay inside a pixel), and real time catches up with
		// that lead within two ticks, so the motion goes on smoothly.
		// The room applies the press at its next tick or the one after,
		// so the lead is about where it will put the paddle.
		last = max(last, pressLead)
	}
	if t := v.tap; t.clamp {
		// A tap is drawn where the room will stop it, at once: the
		// cell it moves is the whole answer to the key, and the room
		// gets there within a few ticks. Should a late stop have let
		// the room go further, it is drawn where the room has it.
		if p := snap.Paddles[v.cfg.Slot].Pos; (t.dir > 0 && p > t.to) || (t.dir < 0 && p < t.to) {
			return p
		}
		return t.to
	}
	return snap.Config.MovePaddle(pos, dir, last, v.cfg.Slot)
}

func (v *RoomView) paintBoard(now time.Time, fr *game.Frame, snap *pong.Snapshot) {
	v.follow = -1
	if v.cfg.Follow != nil {
		v.follow = v.cfg.Follow()
	}
	marks := v.bd.setMarks(v.colour, v.cfg.Slot, snap.Mode)
	if v.bd.setWalls(snap) || marks {
		v.bd.paintAll(v.scr)
	}
	live := fr.Phase == game.Playing && !fr.Paused && !snap.Over
	ahead := now.Sub(v.frAt)
	if !live || ahead < 0 {
		ahead = 0
	}
	ahead = min(ahead, maxAhead)
	rate := max(fr.TickRate, 1)
	var objs [5]prect
	n := 0
	for side := range 4 {
		p := snap.Paddles[side]
		if !p.Present {
			continue
		}
		pos := p.Pos
		switch {
		case side == v.cfg.Slot && live:
			pos = v.predictedPaddle(now, snap, rate)
		case live:
			pos = snap.Config.MovePaddle(pos, p.Dir, int32(int64(ahead)*int64(rate)/int64(time.Second)), side)
		}
		objs[n] = v.bd.paddleRect(side, pos, p.Len)
		if side == v.cfg.Slot {
			v.ownPos, v.ownRect = pos, objs[n]
		}
		if v.follow == side {
			objs[n].c = pxBall // the followed player's paddle stands out
		}
		n++
	}
	bx, by := snap.BallAt(pong.FracTicks(ahead, rate))
	objs[n] = v.bd.ballRect(bx, by)
	n++
	v.bd.move(v.scr, objs[:n])
	v.paintHUD(fr, snap)
	v.paintOverlay(fr, snap)
}

// staleAfter is how long an unanswered probe takes to make the last RTT
// stale: longer than any round trip a game is playable over.
const staleAfter = 2 * time.Second
