package server

import (
	"bytes"
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

// menuFPS is Bubble Tea's frame rate: see runProgram.
const menuFPS = 20

// runProgram runs one Bubble Tea program on a PTY session and returns the
// exit code. Everything it starts ends when it returns.
//
// We wire the program ourselves rather than through wish's middleware so
// that (1) input passes through inputguard before Bubble Tea decodes a byte,
// (2) only clamped window sizes reach the renderer, (3) colour is decided
// from the client's environment, and (4) output goes straight to the
// channel through one lock that game frames will share.
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
	sio.term = &terminal{}
	sio.notes = &noticeQueue{wake: make(chan struct{}, 1)}
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
		events: make(chan []termkey.Event), win: pty.Window,
		notes: sio.notes, acked: make(chan struct{}, 1)}
	d.run = cmdRunner{ctx: ctx, out: make(chan tea.Msg)}
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

	var err error
	init := true
	for ctx.Err() == nil {
		if d.handoff.Load() && d.gameScreen() {
			if d.play() {
				break
			}
		}
		d.handoff.Store(false)
		if err = srv.runMenu(ctx, d, env, sio, init); err != nil || !d.handoff.Load() {
			break
		}
		init = false
	}
	cancel()
	d.restore()
	if dropped, pasted := sio.input.KeysOverBudget(); dropped > 0 {
		// Someone typed faster than people do: who, for the operator.
		srv.log.Info("session sent keys beyond its budget", "player", id.Name, "dropped", dropped, "pasted", pasted)
	}
	panicked := sio.guard.panicked()
	switch {
	case errors.Is(err, tea.ErrProgramPanic) && !panicked:
		// Out of our guard's reach (a tea.Sequence command): Bubble Tea
		// recovered it and printed the stack to the process's stderr.
		srv.log.Error("session panicked; stack on stderr", "player", id.Name, "err", err)
		panicked = true
	case err != nil && !errors.Is(err, tea.ErrProgramKilled):
		srv.log.Warn("program ended with error", "player", id.Name, "err", err)
	}
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

// runMenu runs one Bubble Tea program for the menus on the session's
// terminal until it quits: for good, or for the play loop (d.handoff).
// init: the model's first program, which runs its Init.
func (srv *Server) runMenu(ctx context.Context, d *driver, env []string, sio *sessionIO, init bool) error {
	pctx, pcancel := context.WithCancel(ctx)
	defer pcancel()
	d.out.unmute()
	mm := menuModel{d: d, init: init}
	p := tea.NewProgram(mm,
		tea.WithContext(pctx),
		// Keys come from the session's own reader and decoder (pump): the
		// program reads nothing, and builds no key table of its own.
		tea.WithInput(nil),
		tea.WithOutput(d.out),
		tea.WithEnvironment(env),
		tea.WithColorProfile(sio.profile),
		tea.WithWindowSize(d.win.Width, d.win.Height),
		tea.WithoutSignalHandler(),
		// Bubble Tea draws only the menus: the game screen paces itself
		// (RoomView) while the program is not running.
		tea.WithFPS(menuFPS),
		tea.WithFilter(d.filter),
	)
	var pumping sync.WaitGroup
	ended := make(chan struct{})
	d.delivered.Store(0)
	pumping.Go(func() { d.pump(pctx, p, ended) })
	_, err := p.Run()
	close(ended)
	pcancel()
	pumping.Wait()
	return err
}

// lockedWriter serialises writes to a session: Bubble Tea's renderer and
// the game's frame writer share one channel, and an interleaved escape
// sequence would corrupt the screen. Bubble Tea's writes are counted so the
// game view knows when the terminal was drawn on behind its back.
//
// Game frames are written only while Bubble Tea has the terminal on its
// alternate screen. The view starts drawing as soon as a session joins a
// room, which can be before Bubble Tea has set the terminal up (`ssh -t
// host join r1`), and keeps drawing until the session is detached, after
// Bubble Tea has restored the terminal (the server restarting mid-match):
// either way the board would be drawn on the player's own screen and stay
// there, under the goodbye and ssh's "Connection closed".
//
// Nor is a frame written when Bubble Tea has written since the view read
// Foreign: the frame holds only what changed on a screen Bubble Tea has
// since drawn over (entering the alternate screen clears it), so it would
// show a board without its walls or footer. The view's next frame, seeing
// the new count, repaints everything.
type lockedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	foreign atomic.Uint64
	seen    atomic.Uint64 // foreign as the view last read it
	alt     bool          // Bubble Tea's last word on the alternate screen was "enter"
	// blocked is when the write in progress started (unix nanoseconds;
	// 0 = none): a write blocked for the client timeout drops the client.
	blocked atomic.Int64
	// onForeign, while a game view runs, wakes it after Bubble Tea writes,
	// so it repaints at once rather than at its next beat: the menu's last
	// frame can land after the game's first.
	onForeign atomic.Pointer[func()]
	// muted: a menu program that is ending for the play loop writes
	// nothing more (its last frame, its goodbye to the terminal).
	muted bool
}

func (l *lockedWriter) mute() {
	l.mu.Lock()
	l.muted = true
	l.mu.Unlock()
}

func (l *lockedWriter) unmute() {
	l.mu.Lock()
	l.muted = false
	l.mu.Unlock()
}

// control writes the terminal set-up f returns, under the lock (f may
// change the writer's state).
func (l *lockedWriter) control(f func(l *lockedWriter) string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	before := l.foreign.Load()
	seq := f(l)
	l.writing()
	defer l.blocked.Store(0)
	_, _ = io.WriteString(l.w, seq)
	if l.foreign.Load() != before {
		// The screen was set up anew: a game view repaints it whole now.
		if f := l.onForeign.Load(); f != nil && *f != nil {
			(*f)()
		}
	}
}

// OnForeign registers f (nil: none) to be called after each of Bubble
// Tea's writes; it must not block. It returns a function that removes f
// unless another has replaced it since.
func (l *lockedWriter) OnForeign(f func()) (remove func()) {
	p := &f
	l.onForeign.Store(p)
	return func() { l.onForeign.CompareAndSwap(p, nil) }
}

// writing marks a write in progress for connWatch, written until
// l.blocked.Store(0). (Not a returned func to defer: that closure was an
// allocation in every game frame.)
func (l *lockedWriter) writing() { l.blocked.Store(time.Now().UnixNano()) }

var (
	enterAltScreen = []byte("\x1b[?1049h")
	leaveAltScreen = []byte("\x1b[?1049l")
	// errNotShown tells the game view its frame was not written (so it is
	// not counted as one); the view repaints everything after Bubble
	// Tea's next write.
	errNotShown = errors.New("server: game frame not written: the terminal is not on the screen it was drawn for")
)

// Write is Bubble Tea's path. Without a TTY on our side Bubble Tea assumes
// the terminal turns a bare \n into \r\n (a server-side PTY's ONLCR would)
// and moves to the next line with \n alone; the player's terminal is in raw
// mode, so we do the translation, as an emulated PTY writer does.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.muted {
		return len(p), nil
	}
	l.foreign.Add(1)
	if enter, leave := bytes.LastIndex(p, enterAltScreen), bytes.LastIndex(p, leaveAltScreen); enter != leave {
		l.alt = enter > leave
	}
	l.writing()
	defer l.blocked.Store(0)
	if _, err := (crlfWriter{l.w}).Write(p); err != nil {
		return 0, err
	}
	if f := l.onForeign.Load(); f != nil && *f != nil {
		(*f)()
	}
	return len(p), nil
}

// WriteFrame is the game view's path: frames position every cell with
// cursor moves and never contain \n, so they are written as they are.
func (l *lockedWriter) WriteFrame(p []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.alt || l.foreign.Load() != l.seen.Load() {
		return errNotShown
	}
	l.writing()
	defer l.blocked.Store(0)
	_, err := l.w.Write(p)
	return err
}

// Foreign counts Bubble Tea's writes. The game view reads it before it
// draws each frame.
func (l *lockedWriter) Foreign() uint64 {
	f := l.foreign.Load()
	l.seen.Store(f)
	return f
}

func sanitizeWhere(s string) string { return sanitize.Text(s, 40) }

// programModel is a session's Bubble Tea model as the server drives it.
type programModel interface {
	tea.Model
	// FinalNotice is printed after the program ends (why we ended it).
	FinalNotice() string
	// Detach runs when the program has ended: a model in a room keeps the
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
	notes   *noticeQueue  // messages for the model from outside, for whichever driver runs
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
