package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/hinshun/vt10x"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/spectator"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/tui"
)

// LiveRooms is the room directory live pages watch: *lobby.Rooms
// implements it.
type LiveRooms interface {
	// Watchable finds a room by id (private casual rooms only by their
	// join code).
	Watchable(ref string) (*lobby.Room, error)
	// Games is the server's catalogue: /tv/GAME takes its names.
	Games() game.Catalog
}

// Ratings label a ranked match's seats: a store.Ratings implements it.
type Ratings interface {
	Rating(ctx context.Context, mode, fp string) (store.Rating, bool, error)
}

// The live board's terminal: what most terminals open at, in 256
// colours; and how often it is painted for the web (a watcher's terminal
// gets 30 frames a second; a browser over the internet is served well by
// fewer, and each is a third of the bytes).
const (
	liveW, liveH = 80, 24
	liveFPS      = 15
	// liveWriteTimeout drops a viewer whose connection takes a frame
	// this long.
	liveWriteTimeout = 10 * time.Second
	// liveHeartbeat keeps proxies from closing a quiet stream (a room
	// waiting for players paints nothing).
	liveHeartbeat = 15 * time.Second
)

// live paints each watched room once for all its web viewers and fans the
// frames out: every viewer gets the newest frame when its connection can
// take one (latest wins), so a slow browser never slows the room, the
// painter or the other viewers.
type live struct {
	ctx     context.Context
	views   tui.Views
	ratings Ratings
	log     interface {
		Error(msg string, args ...any)
	}
	mu    sync.Mutex
	rooms map[*lobby.Room]*liveRoom
}

// liveRoom is one room's painter and its viewers.
type liveRoom struct {
	room    *lobby.Room
	latest  atomic.Pointer[liveEvent] // the newest frame
	seq     uint64                    // frames painted, owned by the painter
	prev    [][]byte                  // each row's JSON in the frame before, owned by the painter
	painter *tui.WatchPainter
	term    vt10x.Terminal
	cancel  context.CancelFunc
	ended   chan struct{} // closed when the painter stops
	mu      sync.Mutex
	subs    map[chan struct{}]struct{}
	line    string
	// scratch for encoding, owned by the painter
	rows [][]run
	zip  sharedZip
}

// run is cells of one style in a row: [text, fg, bg, attrs] in JSON, fg
// and bg a 256-colour index or -1 for the default.
type run struct {
	text   strings.Builder
	fg, bg int
	attrs  int
}

func (r *run) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{r.text.String(), r.fg, r.bg, r.attrs})
}

// liveEvent is one painted frame, encoded once for every viewer: whole
// (rows: every row), and as the rows that changed since the frame before
// (diff: row number → row), for a viewer who got that one. Encoding and
// compressing the few changed rows instead of the screen is most of what
// a viewer costs the server.
type liveEvent struct {
	seq        uint64
	full, diff []byte
	z          *zipChunk // the frame in the room's shared deflate stream
}

// watch registers a web viewer of r: counted in the room's watchers and
// refused like an SSH watcher when the room has as many as it takes. It
// returns the room's painter and the viewer's wake-up channel; leave must
// be called once.
func (l *live) watch(r *lobby.Room) (lr *liveRoom, wake chan struct{}, leave func(), err error) {
	feed, stop, err := r.Watch()
	if err != nil {
		return nil, nil, nil, err
	}
	l.mu.Lock()
	lr = l.rooms[r]
	if lr != nil && lr.done() {
		lr = nil // its painter failed: the next viewer gets a fresh one
	}
	if lr == nil {
		lr = l.start(r, feed)
		l.rooms[r] = lr
	}
	wake = make(chan struct{}, 1)
	lr.mu.Lock()
	lr.subs[wake] = struct{}{}
	lr.mu.Unlock()
	l.mu.Unlock()
	if lr.latest.Load() != nil {
		wake <- struct{}{}
	}
	return lr, wake, func() {
		stop()
		l.mu.Lock()
		lr.mu.Lock()
		delete(lr.subs, wake)
		last := len(lr.subs) == 0
		lr.mu.Unlock()
		if last && l.rooms[r] == lr {
			delete(l.rooms, r)
			lr.cancel()
		}
		l.mu.Unlock()
	}, nil
}

// start paints r for the web until its last viewer leaves, the room
// ends, or the server stops. A painter that panics ends its viewers'
// streams alone.
func (l *live) start(r *lobby.Room, feed *spectator.Delay) *liveRoom {
	ctx, cancel := context.WithCancel(l.ctx)
	lr := &liveRoom{room: r, cancel: cancel, ended: make(chan struct{}), subs: map[chan struct{}]struct{}{},
		term: vt10x.New(vt10x.WithSize(liveW, liveH))}
	lr.painter = tui.NewWatchPainter(tui.WatchPainterConfig{Room: r, Feed: feed, Views: l.views, Ratings: l.ratings,
		Width: liveW, Height: liveH, FPS: liveFPS, Profile: colorprofile.ANSI256, Out: lr})
	go func() {
		defer close(lr.ended)
		defer func() {
			if v := recover(); v != nil {
				l.log.Error("web painter panicked; its viewers were disconnected", "room", r.ID(), "panic", v, "stack", string(debug.Stack()))
			}
		}()
		go func() {
			select {
			case <-r.Done():
				cancel()
			case <-ctx.Done():
			}
		}()
		lr.painter.Run(ctx)
	}()
	return lr
}

// WriteFrame takes what the room screen drew, on the painter's goroutine:
// the terminal applies it, and the whole screen becomes the newest event.
func (lr *liveRoom) WriteFrame(p []byte) error {
	lr.term.Write(p)
	ev := lr.encode()
	lr.latest.Store(&ev)
	lr.mu.Lock()
	for c := range lr.subs {
		select {
		case c <- struct{}{}:
		default: // it has a wake-up waiting: it will take the newest
		}
	}
	lr.mu.Unlock()
	return nil
}

func (lr *liveRoom) done() bool {
	select {
	case <-lr.ended:
		return true
	default:
		return false
	}
}

// vt10x's attribute bits (its Glyph.Mode).
const (
	vtReverse   = 1
	vtUnderline = 2
	vtBold      = 4
)

func colour(c vt10x.Color) int {
	if c >= 256 {
		return -1
	}
	return int(c)
}

// encode is the screen as an event, whole and as a diff from the frame
// before. Rows are JSON arrays of runs.
func (lr *liveRoom) encode() liveEvent {
	line, _ := json.Marshal(lr.painter.Line())
	rows := make([][]byte, liveH)
	lr.term.Lock()
	for y := range liveH {
		var runs []*run
		var cur *run
		for x := range liveW {
			g := lr.term.Cell(x, y)
			fg, bg, attrs := colour(g.FG), colour(g.BG), int(g.Mode)&(vtReverse|vtUnderline|vtBold)
			if cur == nil || cur.fg != fg || cur.bg != bg || cur.attrs != attrs {
				cur = &run{fg: fg, bg: bg, attrs: attrs}
				runs = append(runs, cur)
			}
			ch := g.Char
			if ch == 0 {
				ch = ' '
			}
			cur.text.WriteRune(ch)
		}
		rows[y], _ = json.Marshal(runs)
	}
	lr.term.Unlock()
	lr.seq++
	full := append([]byte(`data: {"rows":[`), bytes.Join(rows, []byte(","))...)
	full = append(append(append(full, `],"line":`...), line...), "}\n\n"...)
	diff := []byte(`data: {"diff":{`)
	n := 0
	for y, r := range rows {
		if y < len(lr.prev) && bytes.Equal(lr.prev[y], r) {
			continue
		}
		if n > 0 {
			diff = append(diff, ',')
		}
		diff = append(append(append(diff, '"'), strconv.Itoa(y)...), `":`...)
		diff = append(diff, r...)
		n++
	}
	diff = append(append(append(diff, `},"line":`...), line...), "}\n\n"...)
	lr.prev = rows
	return liveEvent{seq: lr.seq, full: full, diff: diff, z: lr.zip.chunk(full, diff, time.Now())}
}

// liveStream serves /r/REF/live: the room's frames as Server-Sent Events,
// the newest each time this viewer's connection can take one.
func (s *Server) liveStream(w http.ResponseWriter, r *http.Request) {
	room, err := s.findRoom(r.PathValue("ref"))
	if err != nil {
		http.Error(w, "no such room", http.StatusNotFound)
		return
	}
	lr, wake, leave, err := s.live.watch(room)
	var full *lobby.WatchersFullError
	if errors.As(err, &full) {
		http.Error(w, full.Error(), http.StatusServiceUnavailable)
		return
	}
	if err != nil {
		http.Error(w, "cannot watch that room", http.StatusServiceUnavailable)
		return
	}
	defer leave()
	st := s.newStreamer(w, r)
	defer st.stop()
	if st.follow(r.Context(), s.live.ctx, lr, wake, nil) {
		st.send([]byte("event: end\ndata: {}\n\n"))
	}
}

// streamer writes one viewer's events.
type streamer struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	beat *time.Ticker
	sent *liveEvent
	dead bool
	gz   *zipStream // nil: the client takes no gzip
}

// newStreamer starts an event stream: its headers, gzipped by the
// streamer itself when the client takes gzip (the room's frames are
// compressed once for all viewers in step, sharedzip.go).
func (s *Server) newStreamer(w http.ResponseWriter, r *http.Request) *streamer {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	st := &streamer{w: w, rc: http.NewResponseController(w), beat: time.NewTicker(liveHeartbeat)}
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip") // and the compressing middleware stands aside
		st.gz = &zipStream{pool: s.flate}
	}
	w.WriteHeader(http.StatusOK)
	return st
}

// stop ends the stream: the gzip trailer, when the connection still works.
func (st *streamer) stop() {
	st.beat.Stop()
	if st.gz != nil {
		if st.gz.opened && !st.dead {
			st.write(st.gz.close())
		}
		st.gz.release()
	}
}

// event is ev as this viewer needs it: the changed rows when it has the
// frame before, else the whole screen.
func (st *streamer) event(ev *liveEvent) []byte {
	if st.inStep(ev) {
		return ev.diff
	}
	return ev.full
}

// inStep: the viewer got the frame before ev.
func (st *streamer) inStep(ev *liveEvent) bool {
	return st.sent != nil && ev.seq == st.sent.seq+1
}

// sendFrame writes lr's frame ev: the room's shared compressed bytes when
// the viewer is in step with them, else its own; one out of step asks the
// room to restart its shared stream so that it can join it.
func (st *streamer) sendFrame(lr *liveRoom, ev *liveEvent) bool {
	b := st.event(ev)
	if z := st.gz; z != nil {
		switch c := ev.z; {
		case z.follows(c, st.inStep(ev)) && c.start:
			b = z.fromShared(c, ev.full)
		case z.follows(c, st.inStep(ev)):
			b = z.fromShared(c, ev.diff)
		default:
			if c != nil {
				lr.zip.want.Store(true)
			}
			b = z.plain(b)
		}
	}
	st.sent = ev
	// A beat only when the stream is quiet: it would put the viewer out
	// of step with the shared stream.
	st.beat.Reset(liveHeartbeat)
	return st.write(b)
}

// send writes a text event of the stream's own (not a frame); false once
// the connection has failed.
func (st *streamer) send(b []byte) bool {
	if st.gz != nil {
		b = st.gz.plain(b)
	}
	return st.write(b)
}

// write puts bytes on the wire; false once the connection has failed.
func (st *streamer) write(b []byte) bool {
	if st.dead {
		return false
	}
	st.rc.SetWriteDeadline(time.Now().Add(liveWriteTimeout))
	if _, err := st.w.Write(b); err != nil || st.rc.Flush() != nil {
		st.dead = true
	}
	return !st.dead
}

// follow streams lr's frames until the room's painter ends (true), or the
// request, the server or the connection does (false), or moveOn fires
// (true).
func (st *streamer) follow(req, server context.Context, lr *liveRoom, wake chan struct{}, moveOn <-chan struct{}) bool {
	st.sent = nil // a diff is of this room's frames only
	for {
		select {
		case <-req.Done():
			return false
		case <-server.Done():
			return false
		case <-moveOn:
			return true
		case <-lr.ended:
			if ev := lr.latest.Load(); ev != nil && ev != st.sent {
				st.sendFrame(lr, ev)
			}
			return !st.dead
		case <-st.beat.C:
			if !st.send([]byte(": beat\n\n")) {
				return false
			}
		case <-wake:
			ev := lr.latest.Load()
			if ev == nil || ev == st.sent {
				continue
			}
			if !st.sendFrame(lr, ev) {
				return false
			}
		}
	}
}

// findRoom finds a watchable room by id or join code.
func (s *Server) findRoom(ref string) (*lobby.Room, error) {
	if s.d.Rooms == nil {
		return nil, errNoRoom
	}
	r, err := s.d.Rooms.Watchable(ref)
	if err != nil {
		// The cause stays wrapped: a room on another node names it.
		return nil, fmt.Errorf("room %q: %w: %w", ref, errNoRoom, err)
	}
	return r, nil
}
