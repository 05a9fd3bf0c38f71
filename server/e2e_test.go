package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

const wait = 10 * time.Second

func TestPlainCommandsAndExitCodes(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	key := sshtest.NewKey(t)

	r := sshtest.Run(t, h.Addr, "alice", key, "whoami")
	if r.Code != 0 {
		t.Fatalf("whoami exit %d, stderr %q", r.Code, r.Stderr)
	}
	fp := gossh.FingerprintSHA256(key.PublicKey())
	for _, want := range []string{"alice", fp, "ssh-ed25519", "first seen   " + time.Now().UTC().Format("2006-01-02")} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("whoami output lacks %q:\n%s", want, r.Stdout)
		}
	}

	r = sshtest.Run(t, h.Addr, "alice", key, "whoami --json")
	var who struct {
		Name        string
		Fingerprint string
		FirstSeen   string `json:"first_seen"`
		Guest       bool
	}
	if err := json.Unmarshal([]byte(r.Stdout), &who); err != nil || r.Code != 0 {
		t.Fatalf("whoami --json: %v code %d %q", err, r.Code, r.Stdout)
	}
	if who.Name != "alice" || who.Fingerprint != fp || who.Guest || who.FirstSeen == "" {
		t.Fatalf("whoami --json = %+v", who)
	}

	r = sshtest.Run(t, h.Addr, "alice", key, "help")
	if r.Code != 0 || !strings.Contains(r.Stdout, "whoami") || !strings.Contains(r.Stdout, "help") {
		t.Fatalf("help: code %d\n%s", r.Code, r.Stdout)
	}

	r = sshtest.Run(t, h.Addr, "alice", key, "dance --now")
	if r.Code != 2 || !strings.Contains(r.Stderr, `unknown command "dance"`) || !strings.Contains(r.Stderr, "usage:") || r.Stdout != "" {
		t.Fatalf("unknown command: code %d stdout %q stderr %q", r.Code, r.Stdout, r.Stderr)
	}

	r = sshtest.Run(t, h.Addr, "alice", key, "whoami extra")
	if r.Code != 2 || !strings.Contains(r.Stderr, "usage: whoami") {
		t.Fatalf("whoami extra: code %d stderr %q", r.Code, r.Stderr)
	}

	// A TUI without a PTY: the lobby (no command) and the named form.
	c := sshtest.Dial(t, h.Addr, sshtest.Config("alice", key))
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	var errOut strings.Builder
	s.Stderr = &errOut
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	err = s.Wait()
	var exit *gossh.ExitError
	if !errorsAs(err, &exit) || exit.ExitStatus() != 2 || !strings.Contains(errOut.String(), "use ssh -t") {
		t.Fatalf("lobby without pty: %v stderr %q", err, errOut.String())
	}
	r = sshtest.Run(t, h.Addr, "alice", key, "lobby")
	if r.Code != 2 || !strings.Contains(r.Stderr, "ssh -t HOST lobby") {
		t.Fatalf("lobby cmd without pty: %d %q", r.Code, r.Stderr)
	}
}

func TestEscapesInArgumentsAreNotEchoed(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	r := sshtest.Run(t, h.Addr, "mallory", sshtest.NewKey(t), "'\x1b[2J\x1b]0;pwned\x07evil'")
	if r.Code != 2 {
		t.Fatalf("code %d", r.Code)
	}
	if strings.ContainsAny(r.Stderr, "\x1b\x07") {
		t.Fatalf("stderr echoes control characters: %q", r.Stderr)
	}
}

func TestGuestLoginWithoutPrompt(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	r := sshtest.Run(t, h.Addr, "whoever", nil, "whoami --json")
	var who struct {
		Name        string
		Guest       bool
		Fingerprint string
	}
	if err := json.Unmarshal([]byte(r.Stdout), &who); err != nil {
		t.Fatalf("%v: %q", err, r.Stdout)
	}
	if !who.Guest || !strings.HasPrefix(who.Name, "guest-") || who.Fingerprint != "" {
		t.Fatalf("guest whoami = %+v", who)
	}
	if n, _ := h.Store.CountPlayers(context.Background()); n != 0 {
		t.Fatalf("a guest was stored: %d players", n)
	}
}

// TestIdentityIsTheKeyThatAuthenticated is CVE-2024-45337's scenario: the
// client offers key A (the server says it would accept it) but never proves
// it holds A, then logs in by keyboard-interactive. It must be a guest, not A.
func TestIdentityIsTheKeyThatAuthenticated(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	victim := sshtest.NewKey(t)
	sshtest.Run(t, h.Addr, "victim", victim, "whoami") // victim exists
	cfg := sshtest.Config("attacker", nil)
	cfg.Auth = append([]gossh.AuthMethod{gossh.PublicKeysCallback(func() ([]gossh.Signer, error) {
		return []gossh.Signer{cannotSign{victim.PublicKey()}}, nil
	})}, cfg.Auth...)
	c := sshtest.Dial(t, h.Addr, cfg)
	r := sshtest.RunOn(t, c, "whoami")
	if strings.Contains(r.Stdout, "victim") || !strings.Contains(r.Stdout, "guest-") {
		t.Fatalf("identity taken from an unproven key:\n%s", r.Stdout)
	}
}

type cannotSign struct{ pub gossh.PublicKey }

func (c cannotSign) PublicKey() gossh.PublicKey { return c.pub }
func (c cannotSign) Sign(_ io.Reader, _ []byte) (*gossh.Signature, error) {
	return nil, fmt.Errorf("no private key here")
}

func TestSameKeySameNameAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	key := sshtest.NewKey(t)
	var hostKeys []string
	cfgFor := func() *gossh.ClientConfig {
		cfg := sshtest.Config("carol", key)
		cfg.HostKeyCallback = func(_ string, _ net.Addr, k gossh.PublicKey) error {
			hostKeys = append(hostKeys, gossh.FingerprintSHA256(k))
			return nil
		}
		return cfg
	}
	h := start(t, dir, server.DefaultConfig(), nil)
	first := sshtest.RunOn(t, sshtest.Dial(t, h.Addr, cfgFor()), "whoami")
	// A second player asking for the same name gets another one.
	other := sshtest.Run(t, h.Addr, "carol", sshtest.NewKey(t), "whoami")
	if !strings.Contains(other.Stdout, "carol-2") {
		t.Fatalf("second carol: %s", other.Stdout)
	}
	h.Stop()

	h2 := start(t, dir, server.DefaultConfig(), nil)
	second := sshtest.RunOn(t, sshtest.Dial(t, h2.Addr, cfgFor()), "whoami")
	if first.Stdout != second.Stdout || !strings.Contains(first.Stdout, "name         carol\n") {
		t.Fatalf("whoami changed across restart:\n%s\nvs\n%s", first.Stdout, second.Stdout)
	}
	if len(hostKeys) != 2 || hostKeys[0] != hostKeys[1] {
		t.Fatalf("host key changed across restart: %v", hostKeys)
	}
}

func TestLobbyScreenGreetsAndCountsLive(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 24, "")
	alice.WaitFor(wait, "Welcome, alice!", "1 player online", "? help")

	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 200, 50, "")
	bob.WaitFor(wait, "Welcome, bob!", "2 players online")
	alice.WaitFor(wait, "2 players online")

	// Help toggles and lists the commands.
	alice.Type("?")
	scr := alice.WaitFor(wait, "whoami", "quit")
	for _, cmd := range []string{"leaderboard", "spectate", "replays"} {
		if !strings.Contains(scr, cmd) {
			t.Errorf("help does not list %q:\n%s", cmd, scr)
		}
	}

	alice.Type("\x1b") // close help
	alice.WaitFor(wait, "2 players online")
	bob.Type("q")
	if code, err := bob.Wait(wait); err != nil || code != 0 {
		t.Fatalf("bob quit: code %d err %v", code, err)
	}
	alice.WaitFor(wait, "1 player online")

	guest := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("x", nil)), 80, 24, "")
	guest.WaitFor(wait, "Welcome, guest-", "You are a guest")
	guest.Type("\x03") // ctrl+c
	if code, err := guest.Wait(wait); err != nil || code != 0 {
		t.Fatalf("guest ctrl+c: code %d err %v", code, err)
	}
}

func TestTooSmallTerminalRecovers(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("dan", sshtest.NewKey(t))), 30, 8, "")
	tm.WaitFor(wait, "Terminal too small", "need 40×12")
	tm.Resize(80, 24)
	tm.WaitFor(wait, "Welcome, dan!")
}

func TestNoColorAndSixteenColours(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	for _, tc := range []struct {
		name string
		env  []string
		ok   func(raw string) bool
	}{
		{"NO_COLOR", []string{"NO_COLOR=1"}, func(raw string) bool { return len(colourSGRs(raw)) == 0 }},
		{"truecolor", []string{"COLORTERM=truecolor"}, func(raw string) bool { return strings.Contains(strings.Join(colourSGRs(raw), " "), "38;2;") }},
		{"256", nil, func(raw string) bool {
			all := strings.Join(colourSGRs(raw), " ")
			return strings.Contains(all, "38;5;") && !strings.Contains(all, "38;2;")
		}},
		{"16", []string{"TERM=xterm"}, func(raw string) bool {
			all := colourSGRs(raw)
			return len(all) > 0 && !strings.Contains(strings.Join(all, " "), "38;")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("eve", sshtest.NewKey(t))), 80, 24, "", tc.env...)
			tm.WaitFor(wait, "Welcome, eve")
			if raw := string(tm.Raw()); !tc.ok(raw) {
				t.Fatalf("colour output wrong for %s: %q", tc.name, raw)
			}
		})
	}
}

// colourSGRs returns the parameters of every SGR sequence that sets a
// colour (30–38, 40–48, 90–97, 100–107).
func colourSGRs(raw string) []string {
	var out []string
	for _, m := range sgrRE.FindAllStringSubmatch(raw, -1) {
		for _, p := range strings.Split(m[1], ";") {
			n := 0
			fmt.Sscan(p, &n)
			if (n >= 30 && n <= 38) || (n >= 40 && n <= 48) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107) {
				out = append(out, m[1])
				break
			}
		}
	}
	return out
}

var sgrRE = regexp.MustCompile("\x1b\\[([0-9;:]*)m")

func TestHostileWindowSizes(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	c := sshtest.Dial(t, h.Addr, sshtest.Config("huge", sshtest.NewKey(t)))
	tm := sshtest.Open(t, c, 60000, 60000, "")
	tm.Resize(60000, 60000)
	tm.Resize(0, 0)
	tm.Resize(80, 24)
	tm.WaitFor(wait, "Welcome, huge!")
	tm.Resize(65535, 1)

	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	// Without clamping a 60000×60000 cell buffer is tens of GB; with it the
	// whole test stays far below this.
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 256<<20 {
		t.Fatalf("heap grew by %d MB after hostile sizes", grown>>20)
	}
	// The server still serves others.
	if r := sshtest.Run(t, h.Addr, "other", sshtest.NewKey(t), "whoami"); r.Code != 0 {
		t.Fatalf("server stopped serving: %+v", r)
	}
}

func TestMalformedEscapesDoNotKillTheServer(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	watcher := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("watcher", sshtest.NewKey(t))), 80, 24, "")
	watcher.WaitFor(wait, "Welcome, watcher!")

	evil := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("evil", sshtest.NewKey(t))), 80, 24, "")
	evil.WaitFor(wait, "Welcome, evil!")
	params := make([]string, 100)
	for i := range params {
		params[i] = fmt.Sprint(i + 1)
	}
	payloads := []string{
		"\x1b[" + strings.Join(params, ";") + "_", // win32-input-mode shape: the known crash
		"\x1b[" + strings.Join(params, ";") + "~",
		"\x1b[" + strings.Repeat("9", 5000) + "u",
		"\x1b]" + strings.Repeat("A", 100000) + "\x07",
		"\x1bP" + strings.Repeat("q", 10000) + "\x1b\\",
		"\x1b_" + strings.Repeat("G", 10000), // never terminated
		"\x9b" + strings.Join(params, ";") + "_",
		"\x1b[<0;99999999999;99999999999M",
		"\x1b[?" + strings.Repeat("1;", 40) + "u",
		strings.Repeat("\x1b", 1000),
	}
	for _, p := range payloads {
		evil.Type(p)
	}
	// The attacker's own session survives and still answers keys, once
	// its key budget, which the flood spent, has refilled.
	time.Sleep(time.Second + 100*time.Millisecond)
	evil.Type("\x1b\\?")
	evil.WaitFor(wait, "whoami")
	// Everyone else is unaffected, and new players get in.
	watcher.Type("?")
	watcher.WaitFor(wait, "whoami")
	if r := sshtest.Run(t, h.Addr, "late", sshtest.NewKey(t), "whoami"); r.Code != 0 {
		t.Fatalf("server stopped serving: %+v", r)
	}
}

func TestPerIPConnectionCap(t *testing.T) {
	cfg := server.DefaultConfig()
	cfg.MaxConnsPerIP = 2
	h := start(t, t.TempDir(), cfg, nil)
	key := sshtest.NewKey(t)
	sshtest.Dial(t, h.Addr, sshtest.Config("a", key))
	sshtest.Dial(t, h.Addr, sshtest.Config("a", key))
	raw, err := net.Dial("tcp", h.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	_ = raw.SetReadDeadline(time.Now().Add(wait))
	buf := make([]byte, 256)
	n, _ := raw.Read(buf)
	if !strings.Contains(string(buf[:n]), "too many connections") {
		t.Fatalf("third connection got %q", buf[:n])
	}
	if _, err := gossh.Dial("tcp", h.Addr, sshtest.Config("a", key)); err == nil {
		t.Fatal("an SSH client over the cap got in")
	}
}

// TestReconnectingUnderTheCapIsNotRefused: clients that never hold more
// connections than the cap, but open the next one the moment they close
// the last, get in every time (the server may not have processed the
// close yet when the new connection arrives).
func TestReconnectingUnderTheCapIsNotRefused(t *testing.T) {
	cfg := server.DefaultConfig()
	cfg.MaxConnsPerIP = 2
	h := start(t, t.TempDir(), cfg, nil)
	var wg sync.WaitGroup
	fails := make(chan string, 100)
	for w := range 2 {
		key := sshtest.NewKey(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				c, err := gossh.Dial("tcp", h.Addr, sshtest.Config(fmt.Sprintf("w%d", w), key))
				if err != nil {
					fails <- fmt.Sprintf("worker %d, login %d: %v", w, i, err)
					return
				}
				r := sshtest.RunOn(t, c, "whoami")
				c.Close()
				if r.Code != 0 {
					fails <- fmt.Sprintf("worker %d, login %d: %+v", w, i, r)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(fails)
	for f := range fails {
		t.Error(f)
	}
}

func TestOnlySessionChannelsAndRequests(t *testing.T) {
	cfg := server.DefaultConfig()
	cfg.MaxSessionsPerConn = 2
	h := start(t, t.TempDir(), cfg, nil)
	c := sshtest.Dial(t, h.Addr, sshtest.Config("f", sshtest.NewKey(t)))

	if _, err := c.Dial("tcp", h.Addr); err == nil {
		t.Error("direct-tcpip (local port forwarding) was accepted")
	}
	if _, err := c.Listen("tcp", "127.0.0.1:0"); err == nil {
		t.Error("tcpip-forward (remote port forwarding) was accepted")
	}
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []string{"auth-agent-req@openssh.com", "x11-req"} {
		if ok, err := s.SendRequest(req, true, nil); ok || err != nil {
			t.Errorf("%s: ok=%v err=%v, want refused", req, ok, err)
		}
	}
	if err := s.RequestSubsystem("sftp"); err == nil {
		t.Error("subsystem sftp was accepted")
	}
	s2, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.NewSession(); err == nil {
		t.Error("a third session on one connection was accepted with a cap of 2")
	}
	s.Close()
	s2.Close()
}

func TestShutdownTellsSessions(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("gina", sshtest.NewKey(t))), 80, 24, "")
	tm.WaitFor(wait, "Welcome, gina!")
	h.Stop()
	select {
	case <-tm.Ended():
	case <-time.After(wait):
		t.Fatal("session still open after shutdown")
	}
	if !strings.Contains(string(tm.Raw()), "restarting") {
		t.Fatalf("the player was not told the server is restarting: %q", tm.Raw())
	}
}

func TestGoroutinesReturnToBaselineAfter200Sessions(t *testing.T) {
	cfg := server.DefaultConfig()
	// Closed connections count until the server sees them end; fast
	// re-dials from one address need headroom over the 12 in flight.
	cfg.MaxConnsPerIP = 64
	h := start(t, t.TempDir(), cfg, nil)
	key := sshtest.NewKey(t)
	c := sshtest.Dial(t, h.Addr, sshtest.Config("load", key))
	sshtest.RunOn(t, c, "whoami") // warm up: the connection's own goroutines
	base := h.goroutineBaseline()

	var wg sync.WaitGroup
	sem := make(chan struct{}, 12) // under the per-IP cap of 16 with the warm-up connection
	for i := range 200 {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			cfg := sshtest.Config(fmt.Sprint("p", i), sshtest.NewKey(t))
			cl, err := gossh.Dial("tcp", h.Addr, cfg)
			if err != nil {
				t.Error(err)
				return
			}
			defer cl.Close()
			s, err := cl.NewSession()
			if err != nil {
				t.Error(err)
				return
			}
			_ = s.RequestPty("xterm", 24, 80, nil)
			out, _ := s.StdoutPipe()
			in, _ := s.StdinPipe()
			if err := s.Shell(); err != nil {
				t.Error(err)
				return
			}
			buf := make([]byte, 4096)
			var seen strings.Builder
			for !strings.Contains(seen.String(), "online") {
				n, err := out.Read(buf)
				if err != nil {
					t.Error("read:", err)
					return
				}
				seen.Write(buf[:n])
			}
			if i%2 == 0 {
				in.Write([]byte("q")) // half quit, half just drop
				s.Wait()
			}
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(wait)
	for {
		n := runtime.NumGoroutine()
		if n <= base+2 && h.Hub.Sessions() == 0 {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutines %d vs baseline %d, sessions %d\n%s", n, base, h.Hub.Sessions(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}
