package server_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/app"
	"github.com/termarena/termarena/games"
	"github.com/termarena/termarena/hostkeys"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/store/bolt"
	"github.com/termarena/termarena/telemetry"
)

// harness is a real termarena server on 127.0.0.1:0 with a real data dir.
type harness struct {
	t       testing.TB
	Addr    string
	Dir     string
	App     *app.App
	Srv     *server.Server
	Store   *bolt.Store
	Hub     *lobby.Hub
	Rooms   *lobby.Rooms
	HostKey hostkeys.Key
	Svc     *lobby.Services
	Metrics *telemetry.Metrics
	served  chan error
	stopped bool
}

func start(t testing.TB, dir string, cfg server.Config, admins map[string]bool) *harness {
	return startWith(t, dir, cfg, admins, lobby.RoomsConfig{})
}

// startWith starts a server with rooms configured by roomsCfg (the whole
// catalogue of games unless it names some); hooks run on the server before
// it serves (test-only commands).
func startWith(t testing.TB, dir string, cfg server.Config, admins map[string]bool, roomsCfg lobby.RoomsConfig, hooks ...func(*server.Server)) *harness {
	t.Helper()
	var logOut io.Writer = io.Discard
	if os.Getenv("TERMARENA_TEST_LOG") != "" {
		logOut = os.Stderr
	}
	return startLogged(t, dir, cfg, admins, roomsCfg, logOut, hooks...)
}

// playsAs is a test-only game kind that plays like a game of the catalogue
// (a Pong with a planted bug): its rooms are drawn with that game's view.
type playsAs interface{ PlaysAs() string }

// startLogged is startWith with the server's log written to logOut.
func startLogged(t testing.TB, dir string, cfg server.Config, admins map[string]bool, roomsCfg lobby.RoomsConfig, logOut io.Writer, hooks ...func(*server.Server)) *harness {
	t.Helper()
	return startLobby(t, dir, cfg, admins, lobby.Config{Rooms: roomsCfg}, logOut, hooks...)
}

// startLobby is startLogged with the whole lobby tuned (challenges, chat).
func startLobby(t testing.TB, dir string, cfg server.Config, admins map[string]bool, lc lobby.Config, logOut io.Writer, hooks ...func(*server.Server)) *harness {
	t.Helper()
	roomsCfg := lc.Rooms
	// What main builds, with the test's own tuning: the whole catalogue of
	// games unless roomsCfg names some.
	ac := app.DefaultConfig()
	ac.Data, ac.StoreTimeout, ac.Server, ac.Admins = dir, time.Second, cfg, admins
	ac.Lobby = lc
	ac.Logger = slog.New(slog.NewTextHandler(logOut, nil))
	for _, k := range roomsCfg.Games {
		if p, ok := k.(playsAs); ok {
			if ac.Views == nil {
				ac.Views = games.Views()
			}
			ac.Views[k.Name()] = ac.Views[p.PlaysAs()]
		}
	}
	return serveApp(t, dir, ac, hooks...)
}

// startOnStore starts a server whose durable data is in the PostgreSQL
// database at url (the host key still in dir); h.Store is nil then, and
// h.App.Store the database.
func startOnStore(t testing.TB, dir, url string, admins map[string]bool, roomsCfg lobby.RoomsConfig) *harness {
	t.Helper()
	var logOut io.Writer = io.Discard
	if os.Getenv("TERMARENA_TEST_LOG") != "" {
		logOut = os.Stderr
	}
	ac := app.DefaultConfig()
	ac.Data, ac.StoreURL, ac.Server, ac.Admins = dir, url, server.DefaultConfig(), admins
	ac.Lobby = lobby.Config{Rooms: roomsCfg}
	ac.Logger = slog.New(slog.NewTextHandler(logOut, nil))
	return serveApp(t, dir, ac)
}

// serveApp assembles the server ac describes and serves it on a free
// loopback port until the test ends.
func serveApp(t testing.TB, dir string, ac app.Config, hooks ...func(*server.Server)) *harness {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveAppOn(t, ln, dir, ac, hooks...)
}

// serveAppOn is serveApp on a listener of the test's (another network
// namespace's address).
func serveAppOn(t testing.TB, ln net.Listener, dir string, ac app.Config, hooks ...func(*server.Server)) *harness {
	t.Helper()
	a, err := app.Assemble(ac)
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	srv, st, svc, metrics, key := a.Server, a.Bolt, a.Lobby, a.Metrics, a.HostKey
	hub, rooms := svc.Hub, svc.Rooms
	for _, hook := range hooks {
		hook(srv)
	}
	a.Advertise(ln.Addr().String()) // as main does with what it listens on
	h := &harness{t: t, Addr: ln.Addr().String(), Dir: dir, App: a, Srv: srv, Store: st, Hub: hub, Rooms: rooms, Svc: svc, Metrics: metrics, HostKey: key, served: make(chan error, 1)}
	go func() { h.served <- srv.Serve(ln) }()
	t.Cleanup(h.Stop)
	return h
}

// Stop shuts the server down the way SIGTERM does and closes the store.
func (h *harness) Stop() {
	if h.stopped {
		return
	}
	h.stopped = true
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	if err := h.Srv.Shutdown(ctx); err != nil {
		h.t.Errorf("shutdown: %v", err)
	}
	if err := <-h.served; err != nil {
		h.t.Errorf("serve: %v", err)
	}
	if err := h.App.Close(); err != nil {
		h.t.Errorf("close: %v", err)
	}
}

// goroutineBaseline waits until the server and its services run every
// goroutine they keep for their lifetime, then returns how many goroutines
// there are, for a "back to baseline" check. Counted any earlier, a
// baseline can miss goroutines still being started (the matchmaker starts
// one per queue from a goroutine of its own, the accept loop starts when
// its goroutine is scheduled), and the check then fails now and then on a
// busy machine with a goroutine dump.
func (h *harness) goroutineBaseline() int {
	h.t.Helper()
	queues := len(h.Svc.Matchmaker.Modes())
	buf := make([]byte, 1<<20)
	deadline := time.Now().Add(10 * time.Second)
	for {
		stacks := string(buf[:runtime.Stack(buf, true)])
		if strings.Count(stacks, "lobby.(*Matchmaker).runQueue(") == queues && strings.Contains(stacks, "server.(*limitListener).Accept(") {
			return runtime.NumGoroutine()
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("the server's own goroutines did not all start:\n%s", stacks)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
