package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"

	"charm.land/ssh"
	"github.com/anmitsu/go-shlex"
	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/sanitize"
)

// Window sizes are clamped before anything else sees them: a window-change
// to 60000×60000 would otherwise make a renderer allocate gigabytes.
const (
	MaxCols     = 400
	MaxRows     = 200
	defaultCols = 80
	defaultRows = 24

	maxEnv        = 32   // env requests accepted per session
	maxEnvBytes   = 256  // per key=value
	maxCommandLen = 4096 // bytes of an exec request
)

// Window is a clamped terminal size.
type Window struct{ Width, Height int }

// ClampWindow makes any client-reported size safe to allocate for. 0×0 (some
// clients send it) means "unknown", so it becomes 80×24.
func ClampWindow(w, h uint32) Window {
	if w == 0 || h == 0 {
		return Window{defaultCols, defaultRows}
	}
	return Window{int(min(w, MaxCols)), int(min(h, MaxRows))}
}

// Session is one SSH session channel: a command (or none) with an optional
// PTY. It is our own type rather than charm.land/ssh's so that every request
// the client sends passes through one place that clamps, bounds and refuses.
type Session struct {
	ch     gossh.Channel
	conn   *gossh.ServerConn
	sctx   ssh.Context // the connection's: auth results live here
	ctx    context.Context
	cancel context.CancelFunc

	user    string
	id      Identity
	command []string
	tooLong int // bytes of an exec command over maxCommandLen, refused with usage
	pty     *PTY
	env     []string
	winch   chan Window // capacity 1, latest wins
	// wake is poked after every window change: the session's driver
	// waits on it for everything rare (sizes, notices, commands' results,
	// timers) so its per-frame select stays small (driver.next).
	wake wake

	mu     sync.Mutex
	exited bool
}

// PTY is what the client asked for in pty-req.
type PTY struct {
	Term   string
	Window Window
}

func (s *Session) Context() context.Context { return s.ctx }
func (s *Session) Identity() Identity       { return s.id }
func (s *Session) Command() []string        { return s.command }
func (s *Session) PTY() (PTY, bool) {
	if s.pty == nil {
		return PTY{}, false
	}
	return *s.pty, true
}
func (s *Session) Environ() []string { return append([]string(nil), s.env...) }

// Windows delivers clamped window changes; only the latest is kept.
func (s *Session) Windows() <-chan Window { return s.winch }
func (s *Session) RemoteAddr() net.Addr   { return s.conn.RemoteAddr() }

// Read reads the client's input stream (keys).
func (s *Session) Read(p []byte) (int, error) { return s.ch.Read(p) }

// Write writes straight to the channel. Output meant for a PTY must already
// use \r\n: we do not rewrite (and copy) every frame the way an emulated PTY
// writer does.
func (s *Session) Write(p []byte) (int, error) { return s.ch.Write(p) }

// Stderr is the channel's extended-data stream.
func (s *Session) Stderr() io.Writer { return s.ch.Stderr() }

// Out and ErrOut are for plain-text commands: on a PTY a bare \n does not
// return the carriage, so they translate; without one they pass bytes as is.
func (s *Session) Out() io.Writer {
	if s.pty != nil {
		return crlfWriter{s.ch}
	}
	return s.ch
}
func (s *Session) ErrOut() io.Writer {
	if s.pty != nil {
		return crlfWriter{s.ch.Stderr()}
	}
	return s.ch.Stderr()
}

// exit sends the exit status and closes the channel, once.
func (s *Session) exit(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited {
		return
	}
	s.exited = true
	status := struct{ Status uint32 }{uint32(code)}
	_, _ = s.ch.SendRequest("exit-status", false, gossh.Marshal(&status))
	_ = s.ch.CloseWrite()
	_ = s.ch.Close()
}

type crlfWriter struct{ w io.Writer }

func (c crlfWriter) Write(p []byte) (int, error) {
	if bytes.IndexByte(p, '\n') < 0 {
		return c.w.Write(p)
	}
	out := make([]byte, 0, len(p)+8)
	for i, b := range p {
		if b == '\n' && (i == 0 || p[i-1] != '\r') {
			out = append(out, '\r')
		}
		out = append(out, b)
	}
	if _, err := c.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// sessionHandler replaces charm.land/ssh's default "session" channel
// handler. It accepts the channel, answers requests itself and starts run
// once the client asks for a shell or exec.
func (srv *Server) sessionHandler(_ *ssh.Server, conn *gossh.ServerConn, newChan gossh.NewChannel, sctx ssh.Context) {
	if !srv.acquireSession(sctx, conn) {
		_ = newChan.Reject(gossh.ResourceShortage, fmt.Sprintf("at most %d sessions per connection", srv.cfg.MaxSessionsPerConn))
		return
	}
	defer srv.releaseSession(sctx)

	ch, reqs, err := newChan.Accept()
	if err != nil {
		return
	}
	ctx, cancel := context.WithCancel(sctx)
	defer cancel()
	s := &Session{
		ch: ch, conn: conn, sctx: sctx, ctx: ctx, cancel: cancel,
		user:  conn.User(),
		winch: make(chan Window, 1),
		wake:  make(wake, 1),
	}
	started := false
	done := make(chan struct{})
	for {
		var req *gossh.Request
		select {
		case req = <-reqs:
		case <-done:
			// The handler finished: close the channel so the request
			// stream ends, then drain it.
			for req := range reqs {
				_ = req.Reply(false, nil)
			}
			return
		}
		if req == nil { // channel closed by the client
			cancel()
			if started {
				<-done
			} else {
				_ = ch.Close()
			}
			return
		}
		ok := false
		switch req.Type {
		case "pty-req":
			if !started && s.pty == nil {
				var p struct {
					Term          string
					Cols, Rows    uint32
					Width, Height uint32
					Modes         string
				}
				if gossh.Unmarshal(req.Payload, &p) == nil {
					s.pty = &PTY{Term: sanitize.Text(p.Term, 64), Window: ClampWindow(p.Cols, p.Rows)}
					ok = true
				}
			}
		case "window-change":
			var w struct{ Cols, Rows, Width, Height uint32 }
			if s.pty != nil && gossh.Unmarshal(req.Payload, &w) == nil {
				win := ClampWindow(w.Cols, w.Rows)
				if !started {
					// Before the handler runs, the PTY record is still
					// ours; after, sizes travel only through winch.
					s.pty.Window = win
				}
				latest(s.winch, win)
				s.wake.poke()
				ok = true
			}
		case "env":
			var kv struct{ Key, Value string }
			if !started && len(s.env) < maxEnv && gossh.Unmarshal(req.Payload, &kv) == nil &&
				len(kv.Key)+len(kv.Value) < maxEnvBytes {
				s.env = append(s.env, sanitize.Text(kv.Key, 64)+"="+sanitize.Text(kv.Value, maxEnvBytes))
				ok = true
			}
		case "shell", "exec":
			if started {
				break
			}
			if req.Type == "exec" {
				var c struct{ Value string }
				if gossh.Unmarshal(req.Payload, &c) != nil {
					break
				}
				// An over-long command is accepted and answered with
				// usage: refused here, OpenSSH says only "exec request
				// failed on channel 0" and exits 255.
				if len(c.Value) > maxCommandLen {
					s.tooLong = len(c.Value)
					c.Value = ""
				}
				args, err := shlex.Split(c.Value, true)
				if err != nil {
					// An unbalanced quote: keep the words so the router
					// can print usage instead of refusing silently.
					args = strings.Fields(c.Value)
				}
				s.command = args
			}
			started = true
			// Reply before the handler runs: a quick command would otherwise
			// send its exit status and close the channel before the client
			// heard that its exec was accepted, and the client reports EOF.
			if req.WantReply {
				_ = req.Reply(true, nil)
			}
			go func() {
				defer close(done)
				if !srv.enter() {
					fmt.Fprintln(s.ErrOut(), "termarena: the server is restarting; please reconnect in a moment")
					s.exit(ExitFail)
					return
				}
				// The session counts as running until its exit status is
				// sent: Shutdown closes every connection once none is, and
				// a client cut off before its status exits 255.
				defer srv.running.Done()
				s.exit(srv.runGuarded(s))
			}()
			continue
		default:
			// auth-agent-req@openssh.com, x11-req, subsystem, signal,
			// break, and anything unknown: refused. We forward nothing.
		}
		if req.WantReply {
			_ = req.Reply(ok, nil)
		}
	}
}

// latest replaces whatever is queued in a capacity-1 channel with v, so the
// SSH request loop never blocks on a slow reader.
func latest[T any](ch chan T, v T) {
	for {
		select {
		case ch <- v:
			return
		default:
			select {
			case <-ch:
			default:
			}
		}
	}
}
