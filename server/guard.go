package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
)

// internalError is what a player sees when their session's code panicked.
// It says nothing about the cause: the stack is in the server's log.
const internalError = "termarena: internal error; the session was closed"

// sessionGuard turns a panic in one session's code into the end of that
// session. Without it a nil map or an index out of range in one player's
// view would take every room and every other player down with the process.
//
// The session's driver runs the model itself (no Bubble Tea program to
// recover anything): Update, View and every command, in a batch or a
// sequence alike (cmdRunner), run under this guard, which logs the stack.
type sessionGuard struct {
	log    *slog.Logger
	player string
	cancel context.CancelFunc // ends the session's program; nil outside one
	hit    atomic.Bool
	once   sync.Once
}

// recovered logs a recovered panic with its stack and ends the session.
// Call it from the deferred function that recovered r, so the stack still
// shows where the panic happened.
func (g *sessionGuard) recovered(r any, where string) {
	g.hit.Store(true)
	g.once.Do(func() {
		g.log.Error("session panicked", "player", g.player, "in", where, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	})
	if g.cancel != nil {
		g.cancel()
	}
}

// panicked reports whether any of the session's code panicked.
func (g *sessionGuard) panicked() bool { return g.hit.Load() }

// tell writes the internal-error line; on a terminal it starts a fresh
// line, as the screen may hold anything.
func (g *sessionGuard) tell(w io.Writer, tty bool) {
	if tty {
		_, _ = io.WriteString(w, "\r\n"+internalError+"\r\n")
		return
	}
	_, _ = io.WriteString(w, internalError+"\n")
}

// guardedModel runs a session's model with every Update, View and command
// under the guard. A panicking Update or View leaves the model as it was and
// asks the program to quit; the session then ends with the guard's message.
type guardedModel struct {
	programModel
	g     *sessionGuard
	moved func(programModel) // after each Update: the session's place may have changed
}

func (m guardedModel) Init() (cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			m.g.recovered(r, "init")
			cmd = tea.Quit
		}
	}()
	return m.guardCmd(m.programModel.Init())
}

func (m guardedModel) Update(msg tea.Msg) (next tea.Model, cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			m.g.recovered(r, "update")
			next, cmd = m, tea.Quit
		}
	}()
	inner, cmd := m.programModel.Update(msg)
	if pm, ok := inner.(programModel); ok {
		m.programModel = pm
	}
	if m.moved != nil {
		m.moved(m.programModel)
	}
	return m, m.guardCmd(cmd)
}

func (m guardedModel) View() (v tea.View) {
	defer func() {
		if r := recover(); r != nil {
			m.g.recovered(r, "view")
			v = tea.NewView("")
		}
	}()
	return m.programModel.View()
}

// guardCmd runs cmd, and the commands of a batch it returns, under the
// guard. (The runner guards each command of a tea.Sequence itself.)
func (m guardedModel) guardCmd(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				m.g.recovered(r, "command")
				msg = nil
			}
		}()
		msg = cmd()
		if batch, ok := msg.(tea.BatchMsg); ok {
			out := make(tea.BatchMsg, len(batch))
			for i, c := range batch {
				out[i] = m.guardCmd(c)
			}
			return out
		}
		return msg
	}
}

// runGuarded is run with a last line of defence: a panic anywhere in the
// session's own goroutine (a plain command, identification, routing) ends
// this session with exit status 1 and leaves the server running.
func (srv *Server) runGuarded(s *Session) (code int) {
	defer func() {
		if r := recover(); r != nil {
			g := &sessionGuard{log: srv.log, player: s.Identity().Name}
			g.recovered(r, "command")
			_, tty := s.PTY()
			g.tell(s.ErrOut(), tty)
			code = ExitFail
		}
	}()
	return srv.run(s)
}
