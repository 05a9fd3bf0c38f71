package tui

import (
	"bytes"
	"context"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/pace"
	"github.com/termarena/termarena/screen"
)

// WatchHub shares room screens among SSH watchers: the watchers of a room
// who would see the same picture (the same size, colour profile, frame
// rate, followed player and chat pane, with no prompt or camera of their
// own) get the frames of one painter instead of one each. A watcher whose
// picture differs — resized, following someone else, a help prompt open,
// the camera moved, chat of their own on the pane — moves to the painter
// of what it sees now, its own if nobody else sees that.
//
// The painter keeps the diff state (what its last frame showed) and every
// frame it paints is kept, as bytes, in a short ring: a watcher whose
// terminal shows the frame before gets the painter's own diff, byte for
// byte what a painter of its own would have written; one that joins, fell
// behind further than the diffs it missed are worth, or had its terminal
// written by the menu gets the whole screen (screen.AppendRepaint), then
// diffs again. The hub's few writer goroutines (watchWriters) write each
// frame to the watchers in turn, and a terminal that stops reading holds
// up only itself: the painter never waits for a watcher, and the room
// never waits for the painter.
//
// Players' screens are never shared: prediction and the own paddle make
// every player's frame their own.
type WatchHub struct {
	clocks  *pace.Clocks
	seed    maphash.Seed
	writers *watchWriters
	mu      sync.Mutex
	groups  map[watchKey]*watchGroup
}

// NewWatchHub returns an empty hub whose painters pace on clocks (nil:
// a clock of their own each).
func NewWatchHub(clocks *pace.Clocks) *WatchHub {
	return &WatchHub{clocks: clocks, seed: maphash.MakeSeed(), writers: newWatchWriters(), groups: map[watchKey]*watchGroup{}}
}

// WatchPainterStat is one painter's figures, for tests and telemetry.
type WatchPainterStat struct {
	Room          string
	Width, Height int
	Watchers      int
	Frames        uint64 // frames painted
}

// Painters lists the painters now shared (a watcher's own, for a prompt
// or a moved camera, is not listed).
func (h *WatchHub) Painters() []WatchPainterStat {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []WatchPainterStat
	for k, g := range h.groups {
		g.mu.Lock()
		n := len(g.seats)
		g.mu.Unlock()
		out = append(out, WatchPainterStat{Room: k.room.ID(), Width: k.w, Height: k.h, Watchers: n, Frames: g.seq.Load()})
	}
	return out
}

// watchKey is what a watcher's picture depends on.
type watchKey struct {
	room    *lobby.Room
	w, h    int
	profile colorprofile.Profile
	fps     int
	follow  int
	chat    uint64 // the chat pane's content (chatSig)
	// own, when set, makes the key the watcher's alone: a prompt over
	// the board or a camera of its own.
	own *watchSeat
}

// watchRing is how many painted frames a watcher may be behind and still
// be sent the diffs it missed rather than the whole screen.
const watchRing = 32

// watchFrame is one painted frame's bytes: a diff from the frame before
// (seq-1), or the whole screen as of frame seq.
type watchFrame struct {
	seq uint64
	b   []byte
}

// watchGroup is one painter and the watchers who share its frames.
type watchGroup struct {
	hub    *WatchHub
	key    watchKey
	view   *RoomView
	cancel context.CancelFunc
	done   chan struct{} // closed when the painter stops
	failed atomic.Value  // what the painter panicked with
	seq    atomic.Uint64 // frames painted
	ring   [watchRing]atomic.Pointer[watchFrame]
	whole  atomic.Pointer[watchFrame]
	// wantWhole: a watcher needs the whole screen; the painter builds it
	// after its next frame.
	wantWhole atomic.Bool
	chat      atomic.Pointer[ChatLines] // the pane's snapshot (any member's: they are equal)
	follow    atomic.Int32              // an own painter's followed seat
	mu        sync.Mutex
	seats     map[*watchSeat]struct{}
}

// WriteFrame keeps a painted frame for the watchers and queues them to be
// written; it is called on the painter's goroutine and never waits for one.
func (g *watchGroup) WriteFrame(p []byte) error {
	n := g.seq.Load() + 1
	g.ring[n%watchRing].Store(&watchFrame{seq: n, b: bytes.Clone(p)})
	g.seq.Store(n)
	g.wakeAll()
	return nil
}

// drawn builds the whole screen when a watcher asked for it, on the
// painter's goroutine, from the grid its last frame left.
func (g *watchGroup) drawn(scr *screen.Screen) {
	if !g.wantWhole.Load() {
		return
	}
	g.wantWhole.Store(false)
	g.whole.Store(&watchFrame{seq: g.seq.Load(), b: scr.AppendRepaint(nil)})
	g.wakeAll()
}

func (g *watchGroup) wakeAll() {
	g.mu.Lock()
	g.hub.writers.kickAll(g.seats)
	g.mu.Unlock()
}

func (g *watchGroup) stopped() bool {
	select {
	case <-g.done:
		return true
	default:
		return false
	}
}

// watchSeat is one watching session's place among the painters: the
// Bubble Tea program (sync) decides which painter its picture is, and the
// hub's writers (serve) write that painter's frames to its terminal.
type watchSeat struct {
	hub     *WatchHub
	room    *lobby.Room
	base    RoomViewConfig // the watcher's room screen, less what a painter sets
	newGame func() gameview.View
	hasGame bool // newGame makes a view (else only the waiting screen is drawn)
	out     FrameWriter
	metrics FrameMetrics
	onPanic func(any)
	chat    func() *ChatLines
	done    chan struct{} // closed when the seat has ended: nothing more is written
	group   atomic.Pointer[watchGroup]
	// state is where the seat is with the writers (seatIdle, …).
	state atomic.Int32
	// whole: the terminal was handed to the game screen; the writer
	// serving the seat next writes the whole screen.
	whole atomic.Bool

	// owned by the program (sync, stop)
	key      watchKey
	chatSeen *ChatLines
	chatSig  uint64
	prompt   []string
	helpAt   int

	// set by start, before the seat is first queued
	ctx    context.Context
	unhook []func() bool // what start registered

	// owned by the writer serving the seat (seatWriting)
	shown *watchGroup // whose frame the terminal shows
	seq   uint64      // which frame of it
	buf   []byte
}

// poke queues the seat with the hub's writers.
func (s *watchSeat) poke() { s.hub.writers.kick(s) }

// watchPicture is what a watcher's screen shows besides the room.
type watchPicture struct {
	w, h   int
	follow int
	prompt []string // nil: none
	helpAt int      // ≥ 0: the prompt is key help (RoomView.SetHelp)
	camera bool     // the game view's camera was moved
}

// sync moves the watcher to the painter of its picture, if that changed.
// It runs on the program's goroutine, after every message.
func (s *watchSeat) sync(p watchPicture) {
	k := watchKey{room: s.room, w: p.w, h: p.h, profile: s.base.Profile, fps: s.base.FPS, follow: p.follow}
	cl := s.chatNow()
	if cl != s.chatSeen {
		s.chatSeen, s.chatSig = cl, s.hub.chatSig(cl)
	}
	k.chat = s.chatSig
	if p.prompt != nil || p.camera {
		k.own = s
	}
	cur := s.group.Load()
	if k.own != nil && cur != nil && cur.key.own == s && !cur.stopped() {
		// Its own painter already: it takes the change itself, and
		// keeps the camera.
		if k.w != s.key.w || k.h != s.key.h {
			cur.view.Resize(k.w, k.h)
		}
		if !equalLines(p.prompt, s.prompt) || p.helpAt != s.helpAt {
			showPrompt(cur.view, p)
		}
		cur.follow.Store(int32(p.follow))
		s.key, s.prompt, s.helpAt = k, p.prompt, p.helpAt
		return
	}
	if cur != nil && k == s.key && !cur.stopped() {
		s.shareGeometry(cur)
		return
	}
	s.key, s.prompt, s.helpAt = k, p.prompt, p.helpAt
	g := s.hub.join(s, k)
	if k.own != nil {
		g.follow.Store(int32(p.follow))
		showPrompt(g.view, p)
	}
	s.group.Store(g)
	if cur != nil {
		s.hub.leave(s, cur)
	}
	s.poke()
}

// shareGeometry tells the watcher's chat where the shared pane is, so its
// paging keys page by the rows the pane has: the painter reports them to
// the snapshot it draws, which may be another watcher's.
func (s *watchSeat) shareGeometry(g *watchGroup) {
	mine, drawn := s.chatSeen, g.chat.Load()
	if mine == nil || drawn == nil || mine.geo == nil || drawn.geo == nil || mine.geo == drawn.geo {
		return
	}
	if v := drawn.geo.Load(); mine.geo.Load() != v {
		mine.geo.Store(v)
	}
}

func (s *watchSeat) chatNow() *ChatLines {
	if s.chat == nil {
		return nil
	}
	return s.chat()
}

// look hands a camera key to the watcher's own painter (sync has made it).
func (s *watchSeat) look(key string) {
	if g := s.group.Load(); g != nil && g.key.own == s {
		g.view.Look(key)
	}
}

// stop leaves the painter; run ends with ctx.
func (s *watchSeat) stop() {
	if g := s.group.Swap(nil); g != nil {
		s.hub.leave(s, g)
	}
}

// start has the hub's writers write the painter's frames to the watcher's
// terminal until ctx ends or the painter stops for good; done is closed
// then. A painter that panicked ends the watcher's session as a panicking
// screen of its own would (onPanic).
func (s *watchSeat) start(ctx context.Context) {
	s.ctx = ctx
	stop := context.AfterFunc(ctx, s.poke)
	s.unhook = append(s.unhook, stop)
	if n, ok := s.out.(GivenNotifier); ok {
		// Handed the terminal after the menus drew on it: the whole
		// screen, at once.
		remove := n.OnGiven(func() { s.whole.Store(true); s.poke() })
		s.unhook = append(s.unhook, func() bool { remove(); return true })
	}
	s.state.Store(seatIdle)
	s.poke()
}

// serve runs on a writer: it writes what the terminal lacks, or ends the
// seat when its context or its painter has ended.
func (s *watchSeat) serve() {
	defer func() {
		if v := recover(); v != nil && s.state.Load() != seatEnded {
			// One session's fault: the writer goes on with the others.
			s.end(v)
		}
	}()
	for {
		if s.ctx.Err() != nil {
			s.end(nil)
			return
		}
		g := s.group.Load()
		if g == nil {
			s.end(nil)
			return
		}
		if !g.stopped() {
			s.deliver()
			return
		}
		if v := g.failed.Load(); v != nil {
			s.end(v)
			return
		}
		if s.group.Load() == g {
			s.end(nil) // stopped, and not for another painter
			return
		}
		// Moved to another painter as this one stopped: serve that.
	}
}

// end ends the seat on its writer: nothing is written to the terminal
// after done is closed. A painter's panic (v) goes to onPanic, as a
// panicking screen's own goroutine would; without one the seat just ends
// (a writer serves other sessions and must not die with this one).
func (s *watchSeat) end(v any) {
	s.state.Store(seatEnded)
	for _, f := range s.unhook {
		f()
	}
	s.unhook = nil
	close(s.done)
	if v != nil && s.onPanic != nil {
		s.onPanic(v)
	}
}

// deliver writes what the terminal lacks of the painter's newest frame: the
// diffs since the frame it shows, or the whole screen when it shows
// another painter's, someone else wrote on it, or the diffs it missed
// would be more than the whole.
func (s *watchSeat) deliver() {
	g := s.group.Load()
	if g == nil {
		return
	}
	if s.whole.Swap(false) {
		s.shown = nil
	}
	latest := g.seq.Load()
	buf := s.buf[:0]
	from := s.seq
	if s.shown != g {
		w := g.whole.Load()
		if w == nil || latest > w.seq+watchRing/2 {
			g.wantWhole.Store(true)
			return // the painter wakes us with it
		}
		buf, from = append(buf, w.b...), w.seq
		latest = max(latest, w.seq)
	} else if latest == from {
		return
	}
	limit := 8 << 10
	if w := g.whole.Load(); w != nil {
		limit = max(len(w.b), 1<<10)
	}
	for n := from + 1; n <= latest; n++ {
		f := g.ring[n%watchRing].Load()
		if f == nil || f.seq != n || (s.shown == g && len(buf)+len(f.b) > limit) {
			// Too far behind: the whole screen costs less.
			s.shown = nil
			g.wantWhole.Store(true)
			return
		}
		buf = append(buf, f.b...)
	}
	s.buf = buf
	if len(buf) == 0 {
		s.shown, s.seq = g, latest
		return
	}
	start := time.Now()
	if err := s.out.WriteFrame(buf); err != nil {
		s.shown = nil // not on the terminal: the whole screen next
		return
	}
	if s.metrics != nil {
		s.metrics.FrameWritten(len(buf), time.Since(start))
	}
	s.shown, s.seq = g, latest
}

// join puts s among the watchers of k's painter, starting one if there is
// none (an own key's painter is never shared, so never listed).
func (h *WatchHub) join(s *watchSeat, k watchKey) *watchGroup {
	h.mu.Lock()
	defer h.mu.Unlock()
	g := h.groups[k]
	if g == nil || g.stopped() {
		g = h.start(s, k)
		if k.own == nil {
			h.groups[k] = g
		}
	}
	g.mu.Lock()
	g.seats[s] = struct{}{}
	g.mu.Unlock()
	return g
}

// leave takes s from g; the last to leave stops the painter.
func (h *WatchHub) leave(s *watchSeat, g *watchGroup) {
	h.mu.Lock()
	defer h.mu.Unlock()
	g.mu.Lock()
	delete(g.seats, s)
	last := len(g.seats) == 0
	g.mu.Unlock()
	if !last {
		return
	}
	if h.groups[g.key] == g {
		delete(h.groups, g.key)
	}
	g.cancel()
}

// start makes k's painter from s's room screen and runs it; h.mu is held.
func (h *WatchHub) start(s *watchSeat, k watchKey) *watchGroup {
	ctx, cancel := context.WithCancel(context.Background())
	g := &watchGroup{hub: h, key: k, cancel: cancel, done: make(chan struct{}), seats: map[*watchSeat]struct{}{}}
	g.chat.Store(s.chatNow())
	cfg := s.base
	cfg.Game = s.newGame()
	cfg.Out, cfg.Width, cfg.Height, cfg.Clocks = g, k.w, k.h, h.clocks
	cfg.Metrics = nil // each watcher's writes are counted where they are written
	cfg.Drawn = g.drawn
	if s.chat != nil {
		cfg.Chat = g.chat.Load
		if k.own != nil {
			cfg.Chat = s.chat
		}
	}
	if k.own != nil {
		cfg.Follow = func() int { return int(g.follow.Load()) }
	} else {
		f := k.follow
		cfg.Follow = func() int { return f }
	}
	g.view = NewRoomView(cfg)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				g.failed.Store(v)
			}
			close(g.done)
			// Its watchers learn it from their writers: each moves to
			// its new painter or ends.
			g.wakeAll()
		}()
		g.view.Run(ctx)
	}()
	return g
}

// chatSig sums up what the chat pane shows, so watchers whose panes are
// alike share a painter (0: no pane). A banner counts while it is up, by
// its text only: every watcher gets an announcement within milliseconds of
// the others, and the painter takes it down on its own watcher's time.
func (h *WatchHub) chatSig(cl *ChatLines) uint64 {
	if cl == nil {
		return 0
	}
	var m maphash.Hash
	m.SetSeed(h.seed)
	str := func(s string) {
		m.WriteString(s)
		m.WriteByte(0)
	}
	str(cl.header)
	str(cl.prompt)
	str(cl.status)
	str(cl.marker)
	if cl.banner != "" && time.Now().Before(cl.bannerUntil) {
		str(cl.banner)
	}
	m.WriteByte(byte(cl.scroll))
	m.WriteByte(byte(cl.scroll >> 8))
	if cl.typing {
		m.WriteByte(1)
	}
	for _, l := range cl.lines {
		for _, sg := range l {
			m.WriteByte(byte(sg.st))
			str(sg.text)
		}
		m.WriteByte(1)
	}
	return m.Sum64() | 1
}

// showPrompt puts p's prompt (or none) over v's board.
func showPrompt(v *RoomView, p watchPicture) {
	switch {
	case p.prompt == nil:
		v.SetPrompt()
	case p.helpAt >= 0:
		v.SetHelp(p.prompt, p.helpAt)
	default:
		v.SetPrompt(p.prompt...)
	}
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
