//go:build linux

package server_test

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/termarena/termarena/app"
	"github.com/termarena/termarena/sshtest"
)

// cutLink is two network namespaces joined by a veth pair, the server's
// and the clients', whose link can be set down: nothing is sent then, no
// FIN and no RST, and the server's kernel hears nothing more from the
// clients, not even an acknowledgement, as when Wi-Fi dies. (A TCP proxy
// such as toxiproxy cannot show this: its own kernel answers for the
// client.) It needs root and iproute2's ip, as scripts/netns-drop.sh does.
type cutLink struct {
	t                   *testing.T
	srvNS, cliNS        string
	srvIP, cliIP, cliIf string
}

func newCutLink(t *testing.T) *cutLink {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("needs ip (iproute2) for network namespaces")
	}
	id := fmt.Sprintf("%d%04x", os.Getpid()%100000, rand.IntN(1<<16))
	net2, net3 := 1+rand.IntN(254), 4*rand.IntN(64)
	l := &cutLink{t: t, srvNS: "tas" + id, cliNS: "tac" + id, cliIf: "vc" + id,
		srvIP: fmt.Sprintf("10.%d.%d.1", net2, net3), cliIP: fmt.Sprintf("10.%d.%d.2", net2, net3)}
	if err := exec.Command("ip", "netns", "add", l.srvNS).Run(); err != nil {
		t.Skipf("cannot make a network namespace here: %v", err)
	}
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", l.srvNS).Run() })
	l.ip("netns", "add", l.cliNS)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", l.cliNS).Run() })
	srvIf := "vs" + id
	l.ip("link", "add", srvIf, "netns", l.srvNS, "type", "veth", "peer", "name", l.cliIf, "netns", l.cliNS)
	l.ip("-n", l.srvNS, "addr", "add", l.srvIP+"/30", "dev", srvIf)
	l.ip("-n", l.cliNS, "addr", "add", l.cliIP+"/30", "dev", l.cliIf)
	for _, up := range [][]string{{l.srvNS, srvIf}, {l.srvNS, "lo"}, {l.cliNS, l.cliIf}, {l.cliNS, "lo"}} {
		l.ip("-n", up[0], "link", "set", up[1], "up")
	}
	return l
}

func (l *cutLink) ip(args ...string) {
	l.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		l.t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// in runs f on a thread moved into the namespace ns: sockets made there
// stay in it. A thread that cannot be moved back ends with its goroutine.
func (l *cutLink) in(ns string, f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		own, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		defer own.Close()
		there, err := os.Open("/var/run/netns/" + ns)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		defer there.Close()
		if err := unix.Setns(int(there.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		err = f()
		if unix.Setns(int(own.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		errc <- err
	}()
	return <-errc
}

// listen listens on the server's side of the link.
func (l *cutLink) listen() net.Listener {
	l.t.Helper()
	var ln net.Listener
	if err := l.in(l.srvNS, func() (err error) { ln, err = net.Listen("tcp", l.srvIP+":0"); return err }); err != nil {
		l.t.Fatal(err)
	}
	return ln
}

// dial logs in as user from the clients' side, counting the server's
// keepalive probes.
func (l *cutLink) dial(addr, user string) *probeCounter {
	l.t.Helper()
	var conn net.Conn
	if err := l.in(l.cliNS, func() (err error) { conn, err = net.DialTimeout("tcp", addr, wait); return err }); err != nil {
		l.t.Fatal(err)
	}
	return countProbes(l.t, conn, addr, user)
}

// down sets the clients' end of the link down; up brings it back.
func (l *cutLink) down() { l.ip("-n", l.cliNS, "link", "set", l.cliIf, "down") }
func (l *cutLink) up()   { l.ip("-n", l.cliNS, "link", "set", l.cliIf, "up") }

// Lobby sessions whose link dies (no FIN, no RST) end on the server
// within the client timeout although nothing probes them: the kernel's
// keepalive finds the link dead. Every goroutine they had ends, the
// per-IP slots they held are free again, and until the cut nobody was
// asked anything or dropped.
func TestCutLinkEndsIdleLobbiesE2E(t *testing.T) {
	link := newCutLink(t)
	const n = 4
	cfg := faultConfig() // client timeout 2 s
	cfg.MaxConnsPerIP = n
	ac := app.DefaultConfig()
	ac.Data, ac.StoreTimeout, ac.Server = t.TempDir(), time.Second, cfg
	var logOut io.Writer = io.Discard
	if os.Getenv("TERMARENA_TEST_LOG") != "" {
		logOut = os.Stderr
	}
	ac.Logger = slog.New(slog.NewTextHandler(logOut, nil))
	h := serveAppOn(t, link.listen(), ac.Data, ac)
	base := h.goroutineBaseline()

	var clients []*probeCounter
	var terms []*sshtest.Term
	for i := range n {
		c := link.dial(h.Addr, fmt.Sprintf("p%d", i))
		tm := sshtest.Open(t, c.Client, 80, 24, "")
		tm.WaitFor(wait, "Welcome, p")
		clients, terms = append(clients, c), append(terms, tm)
	}
	// Idle past the client timeout on a live link: nobody asked, nobody
	// dropped.
	time.Sleep(2 * cfg.ClientTimeout)
	for i, c := range clients {
		if p := c.probes.Load(); p != 0 {
			t.Errorf("idle lobby p%d was asked for a reply %d times", i, p)
		}
		select {
		case <-terms[i].Ended():
			t.Fatalf("idle lobby p%d on a live link was dropped:\n%s", i, terms[i].Screen())
		default:
		}
	}
	if got := h.Hub.Sessions(); got != n {
		t.Fatalf("%d sessions online before the cut, want %d", got, n)
	}

	link.down()
	cut := time.Now()
	waitUntil(t, "the lobbies behind the cut link to end on the server", 6*wait, func() bool { return h.Hub.Sessions() == 0 })
	took := time.Since(cut)
	t.Logf("%d idle lobbies ended %v after the link was cut (client timeout %v)", n, took.Round(100*time.Millisecond), cfg.ClientTimeout)
	if took > cfg.ClientTimeout+2*time.Second {
		t.Errorf("the lobbies ended %v after the cut; want within the client timeout (%v) and 2 s", took.Round(100*time.Millisecond), cfg.ClientTimeout)
	}
	for _, c := range clients {
		c.Close()
	}
	deadline := time.Now().Add(2 * wait)
	for runtime.NumGoroutine() > base+2 {
		if time.Now().After(deadline) {
			buf := make([]byte, 8<<20)
			t.Fatalf("goroutines %d, baseline %d\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}

	// The link back: the same address gets its n slots again.
	link.up()
	for i := range n {
		c := link.dial(h.Addr, fmt.Sprintf("q%d", i))
		sshtest.Open(t, c.Client, 80, 24, "").WaitFor(wait, "Welcome, q")
	}
}
