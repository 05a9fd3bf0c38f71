// Package sshtest is the test kit for driving a real termarena server the
// way a player does: an x/crypto/ssh client with its own key, plain
// commands with their exit codes, and PTY sessions whose output is fed into
// a terminal emulator so tests assert on what a person would see.
package sshtest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hinshun/vt10x"
	gossh "golang.org/x/crypto/ssh"
)

// NewKey returns a fresh ed25519 client key.
func NewKey(t testing.TB) gossh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Config builds a client config: with a key it authenticates with it, with
// nil it logs in as a guest through keyboard-interactive, answering nothing.
func Config(user string, key gossh.Signer) *gossh.ClientConfig {
	cfg := &gossh.ClientConfig{
		User:            user,
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
		Timeout:         10 * time.Second,
	}
	if key != nil {
		cfg.Auth = []gossh.AuthMethod{gossh.PublicKeys(key)}
	} else {
		cfg.Auth = []gossh.AuthMethod{gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) {
			return nil, nil
		})}
	}
	return cfg
}

// Dial connects or fails the test.
func Dial(t testing.TB, addr string, cfg *gossh.ClientConfig) *gossh.Client {
	t.Helper()
	c, err := gossh.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Result is a finished plain command.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs one command without a PTY, like `ssh host cmd`.
func Run(t testing.TB, addr, user string, key gossh.Signer, cmd string) Result {
	t.Helper()
	c := Dial(t, addr, Config(user, key))
	return RunOn(t, c, cmd)
}

// RunOn runs a command on an existing connection.
func RunOn(t testing.TB, c *gossh.Client, cmd string) Result {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatalf("new session: %v", err)
	}
	defer s.Close()
	var out, errOut bytes.Buffer
	s.Stdout, s.Stderr = &out, &errOut
	err = s.Run(cmd)
	code := 0
	var exit *gossh.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitStatus()
	case err != nil:
		t.Fatalf("run %q: %v (stderr %q)", cmd, err, errOut.String())
	}
	return Result{out.String(), errOut.String(), code}
}

// Term is a PTY session whose output drives a terminal emulator.
type Term struct {
	t    testing.TB
	Sess *gossh.Session
	in   io.WriteCloser

	mu   sync.Mutex
	vt   vt10x.Terminal
	raw  bytes.Buffer
	done chan struct{}
	err  error
}

// Open starts a PTY session of the given size running cmd ("" = shell,
// which is the lobby). env entries are sent as SSH env requests, except
// TERM, which is the PTY's terminal type (default xterm-256color).
func Open(t testing.TB, c *gossh.Client, cols, rows int, cmd string, env ...string) *Term {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatalf("new session: %v", err)
	}
	term := "xterm-256color"
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "TERM" {
			term = v
			continue
		}
		_ = s.Setenv(k, v)
	}
	if err := s.RequestPty(term, rows, cols, gossh.TerminalModes{}); err != nil {
		t.Fatalf("pty: %v", err)
	}
	in, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	ec, er := emuSize(cols, rows)
	tm := &Term{t: t, Sess: s, in: in, vt: vt10x.New(vt10x.WithSize(ec, er)), done: make(chan struct{})}
	// A terminal shows what the server sends on stderr as well.
	s.Stderr = termWriter{tm}
	if cmd == "" {
		err = s.Shell()
	} else {
		err = s.Start(cmd)
	}
	if err != nil {
		t.Fatalf("start %q: %v", cmd, err)
	}
	go func() {
		defer close(tm.done)
		buf := make([]byte, 32*1024)
		for {
			n, err := out.Read(buf)
			if n > 0 {
				tm.mu.Lock()
				tm.raw.Write(buf[:n])
				_, _ = tm.vt.Write(buf[:n])
				tm.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { s.Close() })
	return tm
}

// emuSize bounds the emulator: tests send hostile sizes (60000×60000) to the
// server, but the emulated terminal standing in for the player's only
// needs to be as large as what the server will draw (it clamps to 400×200).
func emuSize(cols, rows int) (int, int) {
	if cols <= 0 || rows <= 0 {
		return 80, 24
	}
	return min(cols, 400), min(rows, 200)
}

type termWriter struct{ tm *Term }

func (w termWriter) Write(p []byte) (int, error) {
	w.tm.mu.Lock()
	defer w.tm.mu.Unlock()
	w.tm.raw.Write(p)
	return w.tm.vt.Write(p)
}

// Type sends bytes as if typed.
func (tm *Term) Type(s string) {
	tm.t.Helper()
	if _, err := io.WriteString(tm.in, s); err != nil {
		tm.t.Fatalf("type %q: %v", s, err)
	}
}

// Screen returns what the emulated terminal shows now.
func (tm *Term) Screen() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.vt.String()
}

// Raw returns every byte received so far.
func (tm *Term) Raw() []byte {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return append([]byte(nil), tm.raw.Bytes()...)
}

// Resize sends a window-change and resizes the emulator to match.
func (tm *Term) Resize(cols, rows int) {
	tm.t.Helper()
	tm.mu.Lock()
	tm.vt.Resize(emuSize(cols, rows))
	tm.mu.Unlock()
	if err := tm.Sess.WindowChange(rows, cols); err != nil {
		tm.t.Fatalf("window change: %v", err)
	}
}

// WaitFor polls the screen until it contains every want, or fails after
// timeout with the screen in the message. Timeouts here bound a wait; they
// assert nothing about speed.
func (tm *Term) WaitFor(timeout time.Duration, want ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		scr := tm.Screen()
		ok := true
		for _, w := range want {
			if !strings.Contains(scr, w) {
				ok = false
				break
			}
		}
		if ok {
			return scr
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("screen never showed %q; it shows:\n%s", want, scr)
		}
		select {
		case <-tm.done:
			scr = tm.Screen()
			for _, w := range want {
				if !strings.Contains(scr, w) {
					tm.t.Fatalf("session ended before the screen showed %q; it shows:\n%s", want, scr)
				}
			}
			return scr
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Wait waits for the session to end and returns its exit code.
func (tm *Term) Wait(timeout time.Duration) (int, error) {
	res := make(chan error, 1)
	go func() { res <- tm.Sess.Wait() }()
	deadline := time.After(timeout)
	select {
	case err := <-res:
		// The session's exit does not wait for our reader of its
		// output: let it take in the last bytes (a final notice), which
		// the server sent before the exit status, before anyone looks.
		select {
		case <-tm.done:
		case <-deadline:
			return -1, fmt.Errorf("output still open after the session ended (%v)", timeout)
		}
		var exit *gossh.ExitError
		if errors.As(err, &exit) {
			return exit.ExitStatus(), nil
		}
		return 0, err
	case <-deadline:
		return -1, fmt.Errorf("session still running after %v", timeout)
	}
}

// Ended reports a channel closed when the server stops sending output.
func (tm *Term) Ended() <-chan struct{} { return tm.done }

// Cell returns the emulated terminal's cell at x, y.
func (tm *Term) Cell(x, y int) vt10x.Glyph {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.vt.Cell(x, y)
}

// Size returns the emulated terminal's size.
func (tm *Term) Size() (cols, rows int) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.vt.Size()
}

// Close ends the session from the client side, like closing the terminal.
func (tm *Term) Close() { tm.Sess.Close() }
