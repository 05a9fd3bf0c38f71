package server

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/inputguard"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/termkey"
	"github.com/termarena/termarena/tui"
)

// runProgram runs a session's model (the menus and game screens) on a PTY
// session and returns the exit code. Everything it starts ends when it
// returns.
//
// The model is a Bubble Tea model, driven by the session's own loops
// (driver) rather than a Bubble Tea program, so that (1) input passes
// through inputguard before a byte is decoded, (2) only clamped window
// sizes reach the renderer, (3) colour is decided from the client's
// environment, (4) output goes straight to the channel through one lock
// that game frames share, and (5) nothing runs between events.
func (srv *Server) runProgram(s *Session, build func(io *sessionIO) programModel) int {
	pty, _ := s.PTY()
	ctx, cancel := context.WithCancel(s.Context())
	defer cancel()

	env := append(s.Environ(), "TERM="+pty.Term)
	sio := &sessionIO{ctx: ctx, out: &lockedWriter{w: s}, profile: colorprofile.Env(env), rtt: &rttProbe{},
		input: inputguard.NewSessionReader(s, inputguard.DefaultLimits())}
	// Every key costs the program an update and a screen: one session's
	// keys are held to a rate no person types at.
	sio.input.LimitKeys(srv.cfg.MaxKeysPerSec)
	// One wake for everything rare the session's driver waits for: the
	// session's own (a window size), notices, screens handed over,
	// commands' messages, its timer and its end (driver.next).
	wake := s.wake
	if wake == nil {
		wake = make(chan struct{}, 1)
	}
	defer context.AfterFunc(ctx, wake.poke)()
	sio.term = &terminal{wake: wake}
	sio.notes = &msgQueue{wake: wake}
	if w := watchOf(s.sctx); w != nil {
		// The connection's probe: its sessions share one round trip.
		sio.rtt = &w.rtt
		defer w.watchWriter(sio.out)()
	}
	id := s.Identity()
	sio.guard = &sessionGuard{log: srv.log, player: id.Name, cancel: cancel}
	m := build(sio)
	out := sio.out
	// Where the session is, for `admin sessions`: the model says, after
	// each Update (on the driver's goroutine, so no lock is needed here).
	where := placeOf(m)
	d := &driver{ctx: ctx, sess: s, term: sio.term, out: out, input: sio.input,
		events: make(chan []termkey.Event), win: pty.Window, notes: sio.notes, wake: wake,
		scr: newMenuScreen(out, env, sio.profile, pty.Window.Width, pty.Window.Height), restAfter: srv.cfg.MenuRestAfter}
	d.run = cmdRunner{ctx: ctx, out: msgQueue{wake: wake}}
	if _, says := m.(interface{ Where() string }); says && srv.cfg.IdleTimeout > 0 {
		d.idle = newLobbyIdle(srv.cfg.IdleTimeout, where, time.Now())
	}
	var move func(string)
	d.gm = guardedModel{programModel: m, g: sio.guard, moved: func(pm programModel) {
		if now := placeOf(pm); now != where {
			where = now
			move(sanitizeWhere(now))
			if d.idle != nil {
				d.idle.moved(now, time.Now())
				d.armIdle()
			}
		}
	}}
	d.run.guard = d.gm.guardCmd

	var finalCode atomic.Int32
	move, leave := srv.deps.Hub.Enter(lobby.Presence{ID: id.ID, Name: id.Name, Guest: id.Guest,
		Addr: s.RemoteAddr().String(), Where: sanitizeWhere(where), Since: time.Now()}, func(n lobby.Notice) {
		if n.Final && n.Code != 0 {
			finalCode.Store(int32(n.Code))
		}
		d.notes.put(tui.NoticeMsg{Text: n.Text, Final: n.Final})
	})
	defer leave()

	// The reader ends when the channel's input does, which the session's
	// end brings (it may be blocked in Read until then), or on its next
	// read once ctx has ended.
	go d.readKeys()

	d.run.start(d.gm.Init())
	d.armIdle()
	for ctx.Err() == nil {
		var quit bool
		if d.gameScreen() {
			quit = d.play()
		} else {
			quit = d.menus()
		}
		if quit {
			break
		}
	}
	cancel()
	d.stopTimer()
	d.endScreens()
	d.restore()
	if dropped, pasted := sio.input.KeysOverBudget(); dropped > 0 {
		// Someone typed faster than people do: who, for the operator.
		srv.log.Info("session sent keys beyond its budget", "player", id.Name, "dropped", dropped, "pasted", pasted)
	}
	panicked := sio.guard.panicked()
	if panicked {
		sio.guard.tell(s, true)
	}
	// A dropped connection keeps the player's seat for the grace period.
	// After a panic too: the room is fine, and the player may come back.
	dctx, dcancel := context.WithTimeout(context.Background(), 2*time.Second)
	func() {
		defer func() {
			if r := recover(); r != nil {
				sio.guard.recovered(r, "detach")
			}
		}()
		m.Detach(dctx)
	}()
	dcancel()
	if panicked {
		return ExitFail
	}
	if text := m.FinalNotice(); text != "" {
		_, _ = io.WriteString(s, "\r\n"+wrapNotice(text, d.win.Width)+"\r\n")
		if c := finalCode.Load(); c != 0 {
			return int(c)
		}
		return ExitFail
	}
	return ExitOK
}

// lockedWriter serialises writes to a session: the menus' renderer, the
// game screen's frames and the terminal set-up between them share one
// channel, and an interleaved escape sequence would corrupt the screen.
//
// One of the two draws at a time, and the driver says which (handTo): a
// game frame is written only while the game screen has the terminal. A
// game screen starts drawing as soon as a session joins a room, which
// can be before the driver has handed it the terminal (`ssh -t host join
// r1`), and keeps drawing until the session is detached, after the
// terminal was given back (the server restarting mid-match): either way
// the board would land on the menus or the player's own screen. A frame
// refused (errNotShown) tells the view to paint its next one whole.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
	// frames: the game screen has the terminal (takeTerminal).
	frames bool
	// blocked is when the write in progress started (unix nanoseconds;
	// 0 = none): a write blocked for the client timeout drops the client.
	blocked atomic.Int64
	// watch, when set (connWatch.watchWriter, before the writer is
	// shared), is told when a write starts and when the game screen takes
	// or gives back the terminal: the connection's checks run only while
	// there is something to watch.
	watch outputWatch
	// given, while a game screen runs, has it paint the whole screen when
	// the terminal is handed to it, not at its next change.
	given atomic.Pointer[func()]
}

// handTo writes seq (the terminal's set-up for whoever draws next) and
// hands the terminal to the game screen (frames) or to the menus.
func (l *lockedWriter) handTo(frames bool, seq string) {
	l.mu.Lock()
	if l.watch != nil && l.frames != frames {
		l.watch.gameScreen(frames)
	}
	l.frames = frames
	l.writing()
	_, _ = io.WriteString(l.w, seq)
	l.blocked.Store(0)
	l.mu.Unlock()
	if f := l.given.Load(); frames && f != nil && *f != nil {
		(*f)()
	}
}

// OnGiven registers f (nil: none) to be called when the terminal is
// handed to the game screen; it must not block. It returns a function
// that removes f unless another has replaced it since.
func (l *lockedWriter) OnGiven(f func()) (remove func()) {
	p := &f
	l.given.Store(p)
	return func() { l.given.CompareAndSwap(p, nil) }
}

// writing marks a write in progress for connWatch, written until
// l.blocked.Store(0). (Not a returned func to defer: that closure was an
// allocation in every game frame.)
func (l *lockedWriter) writing() {
	now := time.Now().UnixNano()
	l.blocked.Store(now)
	if l.watch != nil {
		l.watch.writeStarted(now)
	}
}

// outputWatch is what a session's writer tells the connection's watch
// (connWatch), always under the writer's lock.
type outputWatch interface {
	writeStarted(now int64) // unix nanoseconds
	gameScreen(on bool)
}

// errNotShown tells the game view its frame was not written (so it is not
// counted as one): the menus have the terminal.
var errNotShown = errors.New("server: game frame not written: the menus have the terminal")

// Write is the menus' path. Without a TTY on our side the renderer assumes
// the terminal turns a bare \n into \r\n (a server-side PTY's ONLCR would)
// and moves to the next line with \n alone; the player's terminal is in raw
// mode, so we do the translation, as an emulated PTY writer does.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writing()
	defer l.blocked.Store(0)
	if _, err := (crlfWriter{l.w}).Write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteFrame is the game view's path: frames position every cell with
// cursor moves and never contain \n, so they are written as they are.
func (l *lockedWriter) WriteFrame(p []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.frames {
		return errNotShown
	}
	l.writing()
	defer l.blocked.Store(0)
	_, err := l.w.Write(p)
	return err
}

func sanitizeWhere(s string) string { return sanitize.Text(s, 40) }

// programModel is a session's Bubble Tea model as the server drives it.
type programModel interface {
	tea.Model
	// FinalNotice is printed after the session's model quit (why we ended
	// it).
	FinalNotice() string
	// Detach runs when the model has stopped: a model in a room keeps the
	// seat for the room's grace period.
	Detach(ctx context.Context)
}

// sessionIO is what a model needs of its session to draw game frames.
type sessionIO struct {
	ctx     context.Context
	out     *lockedWriter
	profile colorprofile.Profile
	rtt     *rttProbe
	input   *inputguard.SessionReader
	term    *terminal     // where decoded keys go: the room screen first
	guard   *sessionGuard // ends the session on a panic in its goroutines
	notes   *msgQueue     // messages for the model from outside, for whichever driver runs
}

// notify hands msg to the session's model without blocking, as notices go
// (tui.LobbyDeps.Notify): the driver running takes it with its keys.
func (s *sessionIO) notify(msg tea.Msg) { s.notes.put(msg) }

// placeOf is where a model says its session is; "lobby" for a model that
// does not say.
func placeOf(m programModel) string {
	if w, ok := m.(interface{ Where() string }); ok {
		return w.Where()
	}
	return "lobby"
}

// wrapNotice breaks text between words into lines of at most w columns
// (a word longer than a line keeps its own), joined for a raw terminal;
// w under 20 leaves the terminal to wrap.
func wrapNotice(text string, w int) string {
	if w < 20 {
		return text
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > w:
			lines = append(lines, line)
			line = word
		default:
			line += " " + word
		}
	}
	return strings.Join(append(lines, line), "\r\n")
}
