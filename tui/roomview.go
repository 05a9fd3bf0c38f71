package tui

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/pace"
	"github.com/termarena/termarena/rating"
	"github.com/termarena/termarena/screen"
)

// FrameWriter is the session output the room view draws on. Foreign counts
// writes made by anyone else (Bubble Tea's renderer): when it moves, the
// terminal no longer shows what the view last drew, so it repaints.
type FrameWriter interface {
	WriteFrame(p []byte) error
	Foreign() uint64
}

// FrameMetrics receives the view's frame telemetry; *telemetry.Metrics
// implements it. Every call is cheap and allocation-free.
type FrameMetrics interface {
	FrameWritten(bytes int, took time.Duration)
	FramesSkipped(n int)
	InputToFrame(d time.Duration)
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
	// Chat, when set, is the chat pane's current snapshot. It is called
	// every frame, so it must be cheap (an atomic load); the snapshot is
	// never modified, and a new pointer is what tells the view to repaint
	// the pane.
	Chat func() *ChatLines
}

// keyEvent is a direction intent from the Bubble Tea program.
type keyEvent struct {
	dir     int8 // -1 up/left, +1 down/right
	release bool
	repeat  bool
	poke    bool // no key: a new size or palette is waiting
	at      time.Time
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

// control turns key presses (and releases, when the terminal reports them)
// into the paddle direction the room should apply.
type control struct {
	dir       int8
	sentDir   int8
	holdUntil time.Time
	lastPress time.Time
	lastDir   int8
	releases  bool // the terminal reports key releases (kitty protocol)
	// at is when dir was chosen: the key's read time, or when the view
	// ended a hold or a tap for the player. The room judges the input
	// against what the player's screen showed then (seenTick).
	at time.Time
	// tap: dir is a tap's, which the view ends once the room has moved the
	// paddle one cell (see RoomView.checkTap), not a held key's.
	tap bool
}

func (c *control) press(e keyEvent) {
	repeat := e.repeat || (e.dir == c.lastDir && e.at.Sub(c.lastPress) < repeatGap)
	c.dir, c.lastPress, c.lastDir, c.at = e.dir, e.at, e.dir, e.at
	// With key releases the key is held until it is released.
	c.tap = !c.releases && !repeat
	if !c.releases && repeat {
		c.holdUntil = e.at.Add(holdRepeat)
	}
}

func (c *control) release(e keyEvent) {
	c.releases = true
	if c.dir == e.dir {
		c.dir, c.tap, c.at = 0, false, e.at
	}
}

func (c *control) expire(now time.Time) {
	if !c.releases && !c.tap && c.dir != 0 && now.After(c.holdUntil) {
		c.dir, c.at = 0, now
	}
}

// tapState follows a tap from the press until the room has applied its
// stop. The room moves the paddle a whole number of ticks, so the view
// picks the first position, whole ticks away, where the paddle is drawn one
// cell on (to), sends the direction, and sends the stop as soon as a frame
// shows the paddle there: the room applies it before its next tick.
type tapState struct {
	active   bool // the direction is in force; the stop is not sent yet
	clamp    bool // prediction stops at to: until the room applied the stop
	dir      int8
	seq      uint32 // the tap's direction input, 0 until sent
	stopSeq  uint32
	to       int32
	last     int32  // confirmed position at lastTick
	lastTick uint64 // 0: no frame seen since the room applied the tap
	began    time.Time
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
	v.scr = screen.New(cfg.Width, cfg.Height, gamePalette(cfg.Profile))
	v.colour = hasColour(cfg.Profile)
	v.tapTimer = time.NewTimer(time.Hour)
	v.tapTimer.Stop()
	return v
}

func hasColour(p colorprofile.Profile) bool { return p >= colorprofile.ANSI }

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
		v.scr.SetPalette(gamePalette(*p))
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

// keyTap updates the tap after a key press (or release) and reports
// whether a new tap has begun.
func (v *RoomView) keyTap(press bool) bool {
	if !v.ctl.tap {
		// A held key, or the release of the tap's key, takes over from
		// a tap: the paddle moves as the key says from now on.
		v.tap.active, v.tap.clamp = false, false
		v.tapTimer.Stop()
		return false
	}
	if !press {
		return false // another key's release: the tap goes on
	}
	v.tapTimer.Stop()
	dir := v.ctl.dir
	v.tap = tapState{active: true, dir: dir, began: v.cfg.Now()}
	if s := v.snapshot(); s != nil && v.cfg.Slot >= 0 && v.cfg.Slot < len(s.Paddles) {
		v.tap.clamp = true
		v.tap.to = v.tapTarget(s, s.Paddles[v.cfg.Slot].Pos, dir)
	}
	return true
}

// tapTarget is where a tap from pos stops: the first position a whole
// number of ticks away at which the paddle is drawn one cell further (two
// pixels down a side, a half-row each; one across), or the wall.
func (v *RoomView) tapTarget(s *pong.Snapshot, pos int32, dir int8) int32 {
	slot := v.cfg.Slot
	vertical := slot == pong.Left || slot == pong.Right
	if v.mode != modeBoard {
		// No layout yet: one cell at 1:1, which is how 80×24 draws.
		cell := pong.Sub
		if vertical {
			cell = 2 * pong.Sub
		}
		n := (cell + s.Config.PaddleSpeed - 1) / s.Config.PaddleSpeed
		return s.Config.MovePaddle(pos, dir, n, slot)
	}
	cell, at := int32(1), func(r prect) int32 { return r.x0 }
	if vertical {
		cell, at = 2, func(r prect) int32 { return r.y0 }
	}
	plen := s.Paddles[slot].Len
	from := at(v.bd.paddleRect(slot, pos, plen))
	to := pos
	for n := int32(1); n <= 64; n++ {
		next := s.Config.MovePaddle(pos, dir, n, slot)
		if next == to {
			return to // at the wall
		}
		to = next
		if d := at(v.bd.paddleRect(slot, to, plen)) - from; d >= cell || -d >= cell {
			return to
		}
	}
	return to
}

// checkTap runs when a room frame is due during a tap: once the room has
// moved the paddle to the tap's end, it sends the stop. It reports whether
// to look again at the next frame.
func (v *RoomView) checkTap() bool {
	t := &v.tap
	if !t.active {
		return false
	}
	v.poll()
	s := v.snapshot()
	slot := v.cfg.Slot
	if s == nil || !v.live() || slot < 0 || slot >= len(s.Paddles) || v.cfg.Now().Sub(t.began) > tapMax {
		v.endTap()
		return false
	}
	if t.seq == 0 {
		if v.ctl.sentDir != t.dir {
			v.submit()
			return true // not sent yet (rate limit, full buffer)
		}
		t.seq = v.seq
	}
	if slot >= len(v.fr.Acks) || v.fr.Acks[slot] < t.seq {
		return true
	}
	pos := s.Paddles[slot].Pos
	there := (t.dir > 0 && pos >= t.to) || (t.dir < 0 && pos <= t.to)
	stuck := t.lastTick != 0 && s.Tick > t.lastTick && pos == t.last
	if s.Tick != t.lastTick {
		t.last, t.lastTick = pos, s.Tick
	}
	if there || stuck {
		v.endTap()
		return false
	}
	return true
}

// endTap stops the paddle: the stop goes out at once, whatever the submit
// gap, because the room's next tick would move the paddle past the cell.
func (v *RoomView) endTap() {
	v.tap.active = false
	v.ctl.tap = false
	if v.ctl.dir == v.tap.dir {
		v.ctl.dir, v.ctl.at = 0, v.cfg.Now()
	}
	if v.send(true) {
		v.tap.stopSeq = v.seq
	} else {
		v.tap.clamp = false // the stop goes out later: no prediction to hold
	}
}

// armTap sets the tap timer for when the room's next frame is due, and
// returns its channel.
func (v *RoomView) armTap() <-chan time.Time {
	period := time.Second / 60
	if v.fr != nil && v.fr.TickRate > 0 {
		period = time.Second / time.Duration(v.fr.TickRate)
	}
	d := v.frAt.Add(period + tapWakeLag).Sub(v.cfg.Now())
	d = min(max(d, time.Millisecond), 2*period)
	v.tapTimer.Reset(d)
	return v.tapTimer.C
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
		shown := !v.keyAt.IsZero() && v.ownRect != v.keyRect // the timed key's move is on screen
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
	if v.mode != modeSmall {
		v.clearScreen()
		v.mode = modeSmall
	}
	needW, needH := boardNeeds(snap)
	lines := []string{"Terminal too small", fmt.Sprintf("need %d×%d, have %d×%d", needW, needH, v.w, v.h), "enlarge the window, or q to leave", ""}
	if v.cfg.Slot >= 0 && (fr.Phase == game.Countdown || fr.Phase == game.Playing) && !snap.Over {
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
	snap, _ := fr.State.(*pong.Snapshot)
	if snap == nil {
		return false
	}
	w, h := boardNeeds(snap)
	return v.w < w || v.h < h
}

func (v *RoomView) smallWarning(fr *game.Frame) string {
	w, h := boardNeeds(fr.State.(*pong.Snapshot))
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

// staleAfter is how long an unanswered probe takes to make the last RTT
// stale: longer than any round trip a game is playable over.
const staleAfter = 2 * time.Second

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
	case k.finished && k.alone && v.cfg.Ranked:
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
	if slot < 0 || slot >= 4 {
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

// paintOverlay draws the centred message of the moment (countdown, pause,
// results) over the board, restoring the board where an old one was.
func (v *RoomView) paintOverlay(fr *game.Frame, snap *pong.Snapshot) {
	var lines []string
	switch {
	case fr.Paused:
		// Before the countdown: a countdown waiting for a dropped player
		// stands still, and the players must see why.
		for slot, s := range fr.Seats {
			if s.Taken && !s.Connected {
				lines = append(lines, fmt.Sprintf(" %s disconnected — %d s ", seatName(fr, slot), int(s.GraceLeft.Seconds()+0.999)))
			}
		}
	case fr.Phase == game.Countdown:
		lines = v.matchup(fr, snap)
		n := fmt.Sprintf("  %d  ", int(fr.Left.Seconds())+1)
		wid := 0
		for _, l := range lines {
			wid = max(wid, len([]rune(l)))
		}
		lines = append(lines, strings.Repeat(" ", max(wid-len(n), 0)/2)+n) // centred under the names
	case fr.Phase == game.Finished || snap.Over:
		lines = v.results(fr, snap)
	case !snap.Ball.Live && snap.LastPointAgainst >= 0 && snap.Tick-snap.LastPointTick < 45:
		if by := int(snap.LastPointBy); by >= 0 && seatName(fr, by) != "" {
			lines = []string{" point: " + seatName(fr, by) + " "}
		}
	}
	if p := v.promptLines(); len(p) > 0 {
		// The question waits for the player's answer: it covers whatever
		// else the overlay would say.
		lines = lines[:0]
		for _, l := range p {
			lines = append(lines, " "+l+" ")
		}
	}
	_, _, bw, _ := v.bd.cellRect()
	lines = wrapOverlay(lines, bw)
	if slices.Equal(lines, v.overlay) {
		return
	}
	// Restore the board under the old overlay.
	if len(v.overlay) > 0 {
		c0, r0, cw, rh := v.ovRect[0], v.ovRect[1], v.ovRect[2], v.ovRect[3]
		for r := r0; r < r0+rh; r++ {
			for c := c0; c < c0+cw; c++ {
				v.bd.paintCell(v.scr, c, r)
			}
		}
	}
	v.overlay = append(v.overlay[:0], lines...)
	if len(lines) == 0 {
		return
	}
	wid := 0
	for _, l := range lines {
		wid = max(wid, len([]rune(l)))
	}
	bc, br, _, bh := v.bd.cellRect()
	// Centred on the board, and never off the screen: a line that could
	// not be wrapped to the board spills over rather than losing its first
	// columns.
	c0 := max(min(bc+(bw-wid)/2, v.w-wid), 0)
	r0 := max(min(br+(bh-len(lines))/2, v.h-1-len(lines)), 1)
	v.ovRect = [4]int{c0, r0, wid, len(lines)}
	for i, l := range lines {
		st := stBold
		if fr.Paused {
			st = stWarn
		}
		pad := l + strings.Repeat(" ", wid-len([]rune(l)))
		v.scr.Text(c0, r0+i, pad, st)
	}
}

// wrapOverlay fits overlay lines to the board's width w (at 80 columns a
// free-for-all board beside the chat pane is 44 wide): a longer line is
// broken between its " · " or " + " separated items, each piece padded as
// overlay lines are.
func wrapOverlay(lines []string, w int) []string {
	fits := true
	for _, l := range lines {
		fits = fits && len([]rune(l)) <= w
	}
	if fits {
		return lines
	}
	var out []string
	for _, l := range lines {
		if len([]rune(l)) <= w {
			out = append(out, l)
			continue
		}
		cur := ""
		for _, item := range splitItems(strings.TrimSpace(l)) {
			switch {
			case cur == "":
				cur = item
			case len([]rune(cur+item))+2 <= w:
				cur += item
			default:
				out = append(out, " "+strings.TrimSpace(cur)+" ")
				cur = strings.TrimPrefix(item, " · ")
			}
		}
		out = append(out, " "+strings.TrimSpace(cur)+" ")
	}
	return out
}

// splitItems cuts s before each " · " and " + ", keeping the separators
// with the item they introduce.
func splitItems(s string) []string {
	var items []string
	for s != "" {
		i := -1
		for _, sep := range []string{" · ", " + "} {
			if j := strings.Index(s[1:], sep); j >= 0 && (i < 0 || j+1 < i) {
				i = j + 1
			}
		}
		if i < 0 {
			return append(items, s)
		}
		items = append(items, s[:i])
		s = s[i:]
	}
	return items
}

// matchup is who plays whom, with ratings in ranked ("alice 1520? vs bob
// 1480?"), shown over the countdown: on one line when it fits the board,
// else a side (or 2v2 team) a line.
func (v *RoomView) matchup(fr *game.Frame, snap *pong.Snapshot) []string {
	var groups []string
	add := func(slots ...int) {
		var names []string
		for _, slot := range slots {
			if slot >= len(fr.Seats) || !snap.Paddles[slot].Present {
				continue
			}
			n := seatName(fr, slot)
			if l := v.label(fr, slot); l != "" {
				n += " " + l
			}
			names = append(names, n)
		}
		if len(names) > 0 {
			groups = append(groups, strings.Join(names, " + "))
		}
	}
	if snap.Mode == pong.TwoVTwo {
		add(pong.Left, pong.Right)
		add(pong.Top, pong.Bottom)
	} else {
		for slot := range 4 {
			add(slot)
		}
	}
	if len(groups) < 2 {
		return nil
	}
	if one := " " + strings.Join(groups, " vs ") + " "; len([]rune(one)) <= min(int(v.bd.pw), v.w) {
		return []string{one, ""}
	}
	var lines []string
	for i, g := range groups {
		if i > 0 {
			lines = append(lines, " vs ")
		}
		lines = append(lines, " "+g+" ")
	}
	return append(lines, "")
}

func (v *RoomView) results(fr *game.Frame, snap *pong.Snapshot) []string {
	lines := []string{" game over "}
	var out *lobby.Outcome
	if v.cfg.Outcome != nil {
		if o := v.cfg.Outcome(); o != nil && o.Seed == fr.Seed {
			out = o
		}
	}
	if fr.Result != nil {
		lines = append(lines, v.placeLines(fr, snap, out)...)
	}
	if fr.Phase == game.Finished {
		if v.cfg.Slot < 0 {
			// A watcher or replay viewer has no seat: the rematch and
			// queue keys are not theirs.
			if v.cfg.Ranked && out == nil {
				lines = append(lines, " rating changes: saving… ")
			}
			if v.cfg.OverKeys != "" {
				lines = append(lines, "", " "+v.cfg.OverKeys+" ")
			}
			return lines
		}
		ready, seated := 0, 0
		for _, s := range fr.Seats {
			if s.Taken {
				seated++
			}
			if s.Taken && s.Ready {
				ready++
			}
		}
		var gone []string
		for slot, p := range fr.Roster {
			if p.ID != "" && (slot >= len(fr.Seats) || !fr.Seats[slot].Taken || fr.Seats[slot].Player.ID != p.ID) {
				gone = append(gone, p.Name)
			}
		}
		keys := fmt.Sprintf(" r rematch (%d ready) · q leave ", ready)
		if v.cfg.Ranked {
			keys = fmt.Sprintf(" r rematch (%d ready) · n back to queue · q leave ", ready)
			if out == nil {
				lines = append(lines, " rating changes: saving… ")
			}
		}
		// A rematch needs two players: with the others gone, say so
		// rather than count ready players forever.
		if seated < game.DefaultMinPlayers {
			keys = " waiting for players · q leave "
			if v.cfg.Ranked {
				keys = " n back to queue · q leave "
			}
		}
		if len(gone) > 0 {
			lines = append(lines, "", " "+strings.Join(gone, ", ")+" left ")
		}
		lines = append(lines, "", keys)
	}
	return lines
}

// placeLines lists the players by place, one per line so that four names
// of 16 characters with their rating changes still fit the 44 columns of
// a 2v2 or free-for-all board at 80×24; in 2v2 a team line with its score
// heads its two players.
func (v *RoomView) placeLines(fr *game.Frame, snap *pong.Snapshot, out *lobby.Outcome) []string {
	res := fr.Result
	change := func(slot int) string {
		if out == nil || slot >= len(out.Changes) || out.Changes[slot].Games <= 0 {
			return ""
		}
		c := out.Changes[slot]
		return fmt.Sprintf(" %s %+d", rating.Display(c.After, c.Games), int(math.Round(c.After))-int(math.Round(c.Before)))
	}
	left := func(slot int) string {
		if leftMatch(fr, slot) {
			return " (left)"
		}
		return ""
	}
	score := func(slot int) int {
		if slot < len(res.Scores) {
			return res.Scores[slot]
		}
		return 0
	}
	var lines []string
	teams := snap != nil && snap.Mode == pong.TwoVTwo
	for place := 1; place <= len(res.Places); place++ {
		first := true
		for slot, p := range res.Places {
			if p != place {
				continue
			}
			who := playedBy(fr, slot)
			if teams {
				if first {
					lines = append(lines, fmt.Sprintf(" %d. %s (%d) ", place, teamName(slot), score(slot)))
				}
				lines = append(lines, fmt.Sprintf("    %s%s%s ", who, left(slot), change(slot)))
			} else {
				lines = append(lines, fmt.Sprintf(" %d. %s (%d)%s%s ", place, who, score(slot), left(slot), change(slot)))
			}
			first = false
		}
	}
	return lines
}

// teamName names a 2v2 team the way the waiting room and HUD do: left and
// right play top and bottom.
func teamName(slot int) string {
	if slot/2 == 0 {
		return "team A"
	}
	return "team B"
}

// waitLine is one line of the pre-game screen.
type waitLine struct {
	text string
	st   screen.Style
}

// paintWaiting is the pre-game screen: who sits where and who is ready.
func (v *RoomView) paintWaiting(fr *game.Frame) {
	lines := []waitLine{{v.cfg.Title, stAccent}, {"", stDefault}}
	sides := []string{"left", "right", "top", "bottom"}
	if fr != nil {
		teams := false
		if s, ok := fr.State.(*pong.Snapshot); ok && s.Mode == pong.TwoVTwo {
			teams = true
		}
		for slot, s := range fr.Seats {
			label := fmt.Sprintf("%-7s", sides[slot%4])
			if teams {
				label += teamName(slot)
			}
			if !s.Taken {
				lines = append(lines, waitLine{label + "  (free)", stDim})
				continue
			}
			state := "not ready"
			if s.Ready {
				state = "ready ✓"
			}
			if !s.Connected {
				state = "disconnected"
			}
			if l := v.label(fr, slot); l != "" {
				state = fmt.Sprintf("%-6s %s", l, state)
			}
			me := ""
			if slot == v.cfg.Slot {
				me = " (you)"
			}
			lines = append(lines, waitLine{fmt.Sprintf("%s  %-16s %s%s", label, s.Player.Name, state, me), stSide0 + screen.Style(slot)})
		}
	}
	prompt := "needs 2 players, all ready · r ready · q leave"
	if v.cfg.Slot < 0 {
		prompt = v.cfg.WaitText
	}
	if v.cfg.Slot >= 0 && v.tooSmallToPlay(fr) {
		// Said before the countdown, while there is still time to
		// enlarge the window: the match will not wait for it.
		lines = append(lines, waitLine{"", stDefault}, waitLine{v.smallWarning(fr), stWarn})
	}
	lines = append(lines, waitLine{"", stDefault}, waitLine{prompt, stDim})
	rows := v.waitingPane(len(lines))
	key := fmt.Sprint(lines, v.w, v.h, v.pane)
	if key == v.hud {
		return
	}
	v.hud = key
	v.clearScreen()
	wid := 0
	for _, l := range lines {
		wid = max(wid, len([]rune(l.text)))
	}
	left := max((v.w-wid)/2, 0)
	top := max((rows-len(lines))/2, 0)
	for i, l := range lines {
		x := left
		if i == 0 { // the title is centred over the block
			x = max((v.w-len([]rune(l.text)))/2, 0)
		}
		v.scr.Text(x, top+i, l.text, l.st)
	}
}
