package server_test

import (
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/app"
	"github.com/termarena/termarena/game"
	pongview "github.com/termarena/termarena/game/pong/view"
	"github.com/termarena/termarena/game/tron"
	"github.com/termarena/termarena/games"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/screen"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// watcherPaints counts the Pong views that paint a watcher's board (Seat
// -1): each is one painter of watchers' frames.
type watcherPaints struct {
	mu      sync.Mutex
	painted map[*pongview.Screen]int
}

func (c *watcherPaints) reset() {
	c.mu.Lock()
	c.painted = map[*pongview.Screen]int{}
	c.mu.Unlock()
}

// painters is how many views painted for watchers since reset, and the
// most frames one of them painted.
func (c *watcherPaints) painters() (n, most int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.painted {
		most = max(most, f)
	}
	return len(c.painted), most
}

// countedPong is Pong's own view (every interface it implements, through
// the embedded pointer), counting what it paints for watchers.
type countedPong struct {
	*pongview.Screen
	c *watcherPaints
}

func (v countedPong) Paint(scr *screen.Screen, x, y, w, h int, snap any, vw gameview.Viewer) {
	if vw.Seat < 0 {
		v.c.mu.Lock()
		if v.c.painted != nil {
			v.c.painted[v.Screen]++
		}
		v.c.mu.Unlock()
	}
	v.Screen.Paint(scr, x, y, w, h, snap, vw)
}

// startCountingWatchers is a server (as main assembles it) whose Pong view
// counts the painters of watchers' boards; tune, if given, changes its
// configuration and listener before it serves.
func startCountingWatchers(t *testing.T, rc lobby.RoomsConfig, tune ...func(*app.Config, *net.Listener)) (*harness, *watcherPaints) {
	t.Helper()
	c := &watcherPaints{}
	ac := app.DefaultConfig()
	ac.Data, ac.StoreTimeout, ac.Server = t.TempDir(), time.Second, server.DefaultConfig()
	ac.Lobby = lobby.Config{Rooms: rc}
	ac.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	ac.Views = games.Views()
	ac.Views["pong"] = func(base screen.Style, p colorprofile.Profile) gameview.View {
		return countedPong{pongview.NewScreen(base, p), c}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tune {
		f(&ac, &ln)
	}
	a, err := app.Assemble(ac)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, Addr: ln.Addr().String(), Dir: ac.Data, App: a, Srv: a.Server, Store: a.Bolt, Hub: a.Lobby.Hub,
		Rooms: a.Lobby.Rooms, Svc: a.Lobby, Metrics: a.Metrics, HostKey: a.HostKey, served: make(chan error, 1)}
	go func() { h.served <- a.Server.Serve(ln) }()
	t.Cleanup(h.Stop)
	return h, c
}

// casualMatch seats ann and ben in a casual Pong 1v1 and starts it.
func casualMatch(t *testing.T, h *harness) *lobby.Room {
	t.Helper()
	r, err := h.Rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "join "+r.ID())
	ann.WaitFor(wait, "(you)")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", sshtest.NewKey(t))), 80, 24, "join "+r.ID())
	ben.WaitFor(wait, "(you)")
	ann.Type("r")
	ben.Type("r")
	waitUntil(t, "the match to start", wait, func() bool {
		fr, _ := r.Latest()
		return fr != nil && fr.Phase == game.Playing
	})
	return r
}

// sameScreens waits until a and b show the same picture (they get the
// same frames, at moments a few microseconds apart).
func sameScreens(t *testing.T, what string, a, b *sshtest.Term) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for a.Screen() != b.Screen() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: the screens differ:\n%s\n---\n%s", what, a.Screen(), b.Screen())
		}
		time.Sleep(3 * time.Millisecond)
	}
}

// Watchers of one room who see the same thing share one painter: three
// watchers at 80×24 cost one painted board a frame, not three, and each
// sees the whole court as a watcher of its own did; a fourth at another
// size has a painter of its own. A watcher who resizes to a size nobody
// else has gets its own painter and a correct screen at once; one who
// then joins it at that size shares it.
func TestWatchersWhoSeeTheSameShareOnePainter(t *testing.T) {
	h, paints := startCountingWatchers(t, longMatch)
	r := casualMatch(t, h)
	watch := func(name string, w, hgt int) *sshtest.Term {
		tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config(name, sshtest.NewKey(t))), w, hgt, "spectate "+r.ID())
		tm.WaitFor(wait, "ann", "ben", "q back")
		return tm
	}
	a, b, c := watch("carol", 80, 24), watch("dave", 80, 24), watch("erin", 80, 24)
	big := watch("fay", 120, 40)

	// Painters over a stretch of play: at least 30 frames of the busiest.
	settle := func(want int) {
		t.Helper()
		paints.reset()
		waitUntil(t, "30 watcher frames", wait, func() bool { _, most := paints.painters(); return most >= 30 })
		if n, most := paints.painters(); n != want {
			t.Fatalf("%d views painted watchers' boards (the busiest %d frames), want %d: %v", n, most, want, h.Srv.WatchPainters())
		}
	}
	settle(2)
	sameScreens(t, "two 80×24 watchers", a, b)
	sameScreens(t, "the first and third 80×24 watchers", a, c)

	c.Resize(100, 30)
	c.WaitFor(wait, "ann", "ben", "q back")
	settle(3)
	gus := watch("gus", 100, 30)
	sameScreens(t, "a resized watcher and one who opened at its size", c, gus)
	settle(3)
	sameScreens(t, "the 80×24 watchers left", a, b)
	_ = big
}

// sharedWith is how many watchers share the painter of room at w×h (0:
// no shared painter of that size).
func sharedWith(h *harness, room string, w, hgt int) int {
	for _, p := range h.Srv.WatchPainters() {
		if p.Room == room && p.Width == w && p.Height == hgt {
			return p.Watchers
		}
	}
	return 0
}

// A light-cycle watcher who moves the camera gets a painter of its own
// (the other watcher's overview does not move with it); back at the
// overview (0) it shares the other's painter again and both see the same.
func TestWatcherWithAFreeCameraPaintsAloneUntilTheOverview(t *testing.T) {
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, lightCycles(func(c *tron.Config) { c.RoundsToWin = 9 }))
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", sshtest.NewKey(t))), 80, 24, "")
	ann.WaitFor(wait, "Welcome, ann!")
	ann.Type("c")
	ann.WaitFor(wait, "New room", "g for Light cycles")
	ann.Type("g")
	ann.WaitFor(wait, "game: Light cycles")
	ann.Type("\r")
	ann.WaitFor(wait, "r1 · tron · casual", "(you)")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", sshtest.NewKey(t))), 80, 24, "join r1")
	ben.WaitFor(wait, "seat 2  ben", "(you)")
	ann.Type("r")
	ben.Type("r")
	room, err := h.Rooms.Find("r1")
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the riders to ride", wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Playing })
	watch := func(name string) *sshtest.Term {
		tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config(name, sshtest.NewKey(t))), 80, 24, "spectate r1")
		tm.WaitFor(wait, "tab/1-8 follow", "f/arrows camera")
		return tm
	}
	a, b := watch("cat"), watch("dan")
	waitUntil(t, "both watchers on one painter", wait, func() bool { return sharedWith(h, "r1", 80, 24) == 2 })

	a.Type("f")
	waitUntil(t, "the camera mover on a painter of its own", wait, func() bool { return sharedWith(h, "r1", 80, 24) == 1 })
	moved := a.Screen()
	for range 3 {
		a.Type("\x1b[D") // pan left
		time.Sleep(50 * time.Millisecond)
	}
	waitUntil(t, "the free camera to pan", wait, func() bool { return a.Screen() != moved })
	// The other still sees the whole arena.
	b.WaitFor(wait, "┌", "┘")

	a.Type("0")
	waitUntil(t, "both watchers on one painter again", wait, func() bool { return sharedWith(h, "r1", 80, 24) == 2 })
	sameScreens(t, "two watchers of the overview", a, b)
}
