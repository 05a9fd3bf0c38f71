package main

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// The baseline server is the least an SSH game server can do: accept a
// session with a PTY and write a fixed frame at a fixed rate. Running the
// same bots against it gives the bare cost of SSH (key exchange, channel,
// encryption) at the byte rate termarena produces, so termarena's own cost
// per frame is the difference.

// baselineFrame is a frame of exactly n bytes that the same counter sees as
// one game frame: ESC 7, a cursor move and filler, ESC 8.
func baselineFrame(n int) []byte {
	const head, tail = "\x1b7\x1b[0m\x1b[12;40H", "\x1b8"
	f := []byte("\x1b7")
	if n >= len(head)+len(tail) {
		f = []byte(head)
	}
	for len(f) < n-len(tail) {
		f = append(f, '#')
	}
	return append(f, tail...)
}

// serveBaseline serves until ctx ends, then closes every connection.
//
// With keyAuth (storm mode) clients must prove a public key, as termarena
// asks, and `whoami` answers with the user name and key fingerprint, as
// termarena's does; otherwise any client gets in without a signature.
func serveBaseline(ctx context.Context, ln net.Listener, frameBytes, fps int, keyAuth bool) error {
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		return err
	}
	hostKey, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		return err
	}
	cfg := &gossh.ServerConfig{
		PublicKeyCallback: func(_ gossh.ConnMetadata, k gossh.PublicKey) (*gossh.Permissions, error) {
			return &gossh.Permissions{Extensions: map[string]string{"fp": gossh.FingerprintSHA256(k)}}, nil
		},
		NoClientAuth: !keyAuth,
	}
	cfg.AddHostKey(hostKey)
	frame := baselineFrame(frameBytes)

	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	stop := context.AfterFunc(ctx, func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for c := range conns {
			c.Close()
		}
	})
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		mu.Lock()
		conns[conn] = true
		mu.Unlock()
		wg.Go(func() {
			defer func() {
				conn.Close()
				mu.Lock()
				delete(conns, conn)
				mu.Unlock()
			}()
			baselineConn(conn, cfg, frame, fps)
		})
	}
}

func baselineConn(conn net.Conn, cfg *gossh.ServerConfig, frame []byte, fps int) {
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	sc, chans, reqs, err := gossh.NewServerConn(conn, cfg)
	if err != nil {
		return
	}
	defer sc.Close()
	_ = conn.SetDeadline(time.Time{})
	go gossh.DiscardRequests(reqs)
	who := "name         " + sc.User() + "\n"
	if sc.Permissions != nil {
		who += "fingerprint  " + sc.Permissions.Extensions["fp"] + "\n"
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(gossh.UnknownChannelType, "sessions only")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			continue
		}
		wg.Go(func() { baselineSession(ch, creqs, frame, fps, who) })
	}
}

// baselineSession accepts a PTY and a shell or command, then writes frames
// until the client goes away. Input is read and dropped, as a game server
// would read keys. The command `whoami` instead writes who (the user and
// key) and exits 0 at once.
func baselineSession(ch gossh.Channel, reqs <-chan *gossh.Request, frame []byte, fps int, who string) {
	defer ch.Close()
	started := make(chan struct{})
	reqsDone := make(chan struct{})
	whoami := false // written before started is closed
	go func() {
		defer close(reqsDone)
		once := sync.Once{}
		for req := range reqs {
			ok := true
			switch req.Type {
			case "pty-req", "env", "window-change":
			case "shell", "exec":
				// Reply first: a quick command must not close the channel
				// before the client heard its exec was accepted.
				if req.WantReply {
					_ = req.Reply(true, nil)
				}
				once.Do(func() {
					var c struct{ Value string }
					whoami = req.Type == "exec" && gossh.Unmarshal(req.Payload, &c) == nil && c.Value == "whoami"
					close(started)
				})
				continue
			default:
				ok = false
			}
			if req.WantReply {
				_ = req.Reply(ok, nil)
			}
		}
	}()
	go func() { _, _ = io.Copy(io.Discard, ch) }()
	select {
	case <-started:
	case <-reqsDone:
		return
	}
	if whoami {
		_, _ = io.WriteString(ch, who)
		_, _ = ch.SendRequest("exit-status", false, gossh.Marshal(struct{ Status uint32 }{0}))
		return
	}
	tick := time.NewTicker(time.Second / time.Duration(fps))
	defer tick.Stop()
	for {
		select {
		case <-reqsDone:
			return
		case <-tick.C:
			if _, err := ch.Write(frame); err != nil {
				return
			}
		}
	}
}

// serveBaselineProcess is the --serve-baseline subprocess: it prints its
// address on stdout and serves until its stdin closes (the parent ended or
// is done) or it gets a signal.
func serveBaselineProcess(ctx context.Context, c *config, stdin io.Reader, stdout io.Writer) error {
	ln, err := net.Listen("tcp", c.serveBaseline)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		cancel()
	}()
	fmt.Fprintf(stdout, "listening %s\n", ln.Addr())
	return serveBaseline(ctx, ln, c.baselineBytes, c.baselineFPS, c.mode == modeStorm)
}

// baselineServer is the running subprocess.
type baselineServer struct {
	addr    string
	pid     int
	cmd     *exec.Cmd
	stdin   io.Closer
	drained chan struct{}
}

// startBaseline re-executes this binary as the baseline server, so that its
// CPU can be read from /proc by PID exactly like the real server's.
func startBaseline(ctx context.Context, c *config, errOut io.Writer) (*baselineServer, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{exe, "--serve-baseline", "127.0.0.1:0",
		"--baseline-bytes", strconv.Itoa(c.baselineBytes), "--baseline-fps", strconv.Itoa(c.baselineFPS), "--mode", c.mode}
	if c.baselineCPUs != "" {
		// taskset execs the server in place: the PID stays the server's.
		args = append([]string{"taskset", "-c", c.baselineCPUs}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = errOut
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	bs := &baselineServer{pid: cmd.Process.Pid, cmd: cmd, stdin: stdin, drained: make(chan struct{})}
	first := make(chan string, 1)
	go func() {
		defer close(bs.drained)
		br := bufio.NewReader(stdout)
		line, _ := br.ReadString('\n')
		first <- line
		_, _ = io.Copy(io.Discard, br)
	}()
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	select {
	case line := <-first:
		addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
		if !ok {
			bs.stop()
			return nil, fmt.Errorf("baseline server said %q", line)
		}
		bs.addr = addr
		return bs, nil
	case <-timeout.C:
		bs.stop()
		return nil, errors.New("baseline server did not start within 10 s")
	case <-ctx.Done():
		bs.stop()
		return nil, ctx.Err()
	}
}

// stop closes the subprocess's stdin, which ends it, and kills it (by its
// own PID) if it has not exited within 5 s.
func (bs *baselineServer) stop() {
	bs.stdin.Close()
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case <-bs.drained:
	case <-t.C:
		_ = bs.cmd.Process.Kill()
		<-bs.drained
	}
	_ = bs.cmd.Wait()
}
