package server_test

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// These tests put Shopify's toxiproxy, in process, between a client and
// the real server, and break the network the way Wi-Fi and phones do.

// faultyLink is one toxiproxy proxy in front of the server; every client
// dialled through it gets the toxics added to it.
type faultyLink struct {
	t testing.TB
	p *toxiproxy.Proxy
}

func newFaultyLink(t testing.TB, upstream string) *faultyLink {
	t.Helper()
	api := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	p := toxiproxy.NewProxy(api, "termarena", "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		t.Fatalf("toxiproxy: %v", err)
	}
	t.Cleanup(p.Stop)
	return &faultyLink{t: t, p: p}
}

func (f *faultyLink) Addr() string { return f.p.Listen }

// add adds a toxic; attrs is its JSON attributes object.
func (f *faultyLink) add(name, typ, stream, attrs string) {
	f.t.Helper()
	body := fmt.Sprintf(`{"name":%q,"type":%q,"stream":%q,"toxicity":1,"attributes":%s}`, name, typ, stream, attrs)
	if _, err := f.p.Toxics.AddToxicJson(strings.NewReader(body)); err != nil {
		f.t.Fatalf("toxic %s: %v", name, err)
	}
}

// blackhole drops everything both ways and closes nothing: a link set down.
func (f *faultyLink) blackhole() {
	f.add("down-up", "timeout", "upstream", `{"timeout":0}`)
	f.add("down-down", "timeout", "downstream", `{"timeout":0}`)
}

// faultConfig is the server's default configuration with a client timeout
// short enough for a test.
func faultConfig() server.Config {
	cfg := server.DefaultConfig()
	cfg.ClientTimeout = 2 * time.Second
	return cfg
}

// startRanked1v1 seats ann (through addrAnn) and ben (through addrBen) in
// a ranked 1v1 and waits for play.
func startRanked1v1(t *testing.T, h *harness, addrAnn, addrBen string) (annKey gossh.Signer, ann, ben *sshtest.Term, room *lobby.Room) {
	t.Helper()
	ak, bk := sshtest.NewKey(t), sshtest.NewKey(t)
	ann = sshtest.Open(t, sshtest.Dial(t, addrAnn, sshtest.Config("ann", ak)), 80, 24, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
	ben = sshtest.Open(t, sshtest.Dial(t, addrBen, sshtest.Config("ben", bk)), 80, 24, "play 1v1")
	ann.WaitFor(wait, "▸ann", "ben", "ranked")
	ben.WaitFor(wait, "ann", "▸ben", "ranked")
	waitUntil(t, "ranked play", 2*wait, func() bool {
		for _, r := range h.Rooms.All() {
			if fr, _ := r.Latest(); r.Ranked != "" && fr.Phase == game.Playing {
				room = r
				return true
			}
		}
		return false
	})
	return ak, ann, ben, room
}

// longMatch: nobody defends, and nobody wins before the test says so.
var longMatch = lobby.RoomsConfig{
	Room: game.RoomConfig{Countdown: time.Second, Grace: 30 * time.Second},
	Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
		c := pong.DefaultConfig(m)
		c.PointsToWin = 99
		return c
	}}},
}

// A player whose network dies silently in a ranked match (no FIN, no RST)
// is dropped after the client timeout: the room pauses with the grace
// notice on the opponent's screen, the seat waits, the same key takes it
// back, and the match counts once.
func TestBlackholedRankedPlayerKeepsTheSeat(t *testing.T) {
	h := startWith(t, t.TempDir(), faultConfig(), nil, longMatch)
	link := newFaultyLink(t, h.Addr)
	annKey, _, ben, room := startRanked1v1(t, h, link.Addr(), h.Addr)

	link.blackhole()
	cut := time.Now()
	// Bounded generously: the figure is logged, not asserted.
	ben.WaitFor(faultConfig().ClientTimeout+2*wait, "ann disconnected —")
	t.Logf("grace notice %v after the link went down (client timeout %v)", time.Since(cut).Round(100*time.Millisecond), faultConfig().ClientTimeout)
	if fr, _ := room.Latest(); !fr.Paused || fr.Seats[0].Connected {
		t.Fatalf("after the drop: paused %v, seat %+v", fr.Paused, fr.Seats[0])
	}

	// Back directly (a new network), same key: same seat, play resumes.
	ann2 := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 80, 24, "")
	ann2.WaitFor(wait, "▸ann")
	waitUntil(t, "the grace notice to clear", wait, func() bool { return !strings.Contains(ben.Screen(), "disconnected") })

	// Ann walks out: the ranked match ends with her loss, counted once.
	ann2.Type("q")
	ann2.Type("y")
	ann2.WaitFor(wait, "You left a ranked match: counted as a loss (-20, now 1480?).")
	ben.WaitFor(wait, "game over")
	for name, want := range map[string]int{"ann": 1480, "ben": 1520} {
		r := sshtest.Run(t, h.Addr, "someone", sshtest.NewKey(t), "profile "+name+" --json")
		var p profileOut
		if err := json.Unmarshal([]byte(r.Stdout), &p); err != nil {
			t.Fatalf("profile %s: %v: %+v", name, err, r)
		}
		if len(p.Ratings) != 1 || p.Ratings[0].Games != 1 || p.Ratings[0].Rating != want || len(p.Matches) != 1 {
			t.Fatalf("%s after one ranked match: ratings %+v matches %+v", name, p.Ratings, p.Matches)
		}
	}
}

// A connection reset mid-match is a clean drop: grace, then the seat back.
func TestResetMidMatchIsADrop(t *testing.T) {
	h := startWith(t, t.TempDir(), faultConfig(), nil, longMatch)
	link := newFaultyLink(t, h.Addr)
	annKey, _, ben, room := startRanked1v1(t, h, link.Addr(), h.Addr)

	link.add("rst-down", "reset_peer", "downstream", `{"timeout":0}`)
	link.add("rst-up", "reset_peer", "upstream", `{"timeout":0}`)
	ben.WaitFor(wait, "ann disconnected —")
	if fr, _ := room.Latest(); !fr.Paused || fr.Seats[0].Connected {
		t.Fatalf("after the reset: paused %v, seat %+v", fr.Paused, fr.Seats[0])
	}
	ann2 := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 80, 24, "")
	ann2.WaitFor(wait, "▸ann")
	waitUntil(t, "the grace notice to clear", wait, func() bool { return !strings.Contains(ben.Screen(), "disconnected") })
	if fr, _ := room.Latest(); fr.Paused || !fr.Seats[0].Connected || fr.Phase == game.Finished {
		t.Fatalf("after coming back: phase %v paused %v seat %+v", fr.Phase, fr.Paused, fr.Seats[0])
	}
}

// bytesPerTick is how much of the room's play reached tm's screen per room
// tick over ticks ticks: the count ratio of what the player sees to what
// the room plays, which no wall clock enters.
func bytesPerTick(t *testing.T, tm *sshtest.Term, room *lobby.Room, ticks uint64) float64 {
	t.Helper()
	fr, _ := room.Latest()
	tick0, bytes0 := fr.Tick, len(tm.Raw())
	waitUntil(t, fmt.Sprintf("%d ticks", ticks), 6*wait, func() bool { fr, _ := room.Latest(); return fr.Tick >= tick0+ticks })
	fr, _ = room.Latest()
	return float64(len(tm.Raw())-bytes0) / float64(fr.Tick-tick0)
}

// A watcher whose network died and a player on a 2 KB/s link hold up
// neither the room nor the other player: per tick the room plays, the
// healthy player's screen gets as much as before the trouble started.
func TestBlackholedWatcherAndStarvedPlayerSlowNobody(t *testing.T) {
	// The default client timeout: the blackholed watcher stays on for the
	// whole measurement.
	h := startWith(t, t.TempDir(), server.DefaultConfig(), nil, longMatch)
	slow, dead := newFaultyLink(t, h.Addr), newFaultyLink(t, h.Addr)
	_, ann, ben, room := startRanked1v1(t, h, h.Addr, slow.Addr())
	watcher := sshtest.Open(t, sshtest.Dial(t, dead.Addr(), sshtest.Config("carol", sshtest.NewKey(t))), 80, 24, "spectate "+room.ID())
	watcher.WaitFor(wait, "ann", "ben")

	const ticks = 300 // 5 s of play at 60 Hz
	before := bytesPerTick(t, ann, room, ticks)
	slow.add("thin", "bandwidth", "downstream", `{"rate":2}`)
	dead.blackhole()
	bytesPerTick(t, ann, room, ticks/5) // buffers fill
	during := bytesPerTick(t, ann, room, ticks)
	t.Logf("ann's screen: %.1f bytes per tick before, %.1f with a blackholed watcher and a 2 KB/s opponent", before, during)
	if during < before/2 {
		t.Fatalf("ann's screen slowed down: %.1f bytes per tick, %.1f before", during, before)
	}
	// The starved player is still seated and playing.
	if fr, _ := room.Latest(); fr.Paused || !fr.Seats[1].Connected {
		t.Fatalf("ben on a thin link: paused %v seat %+v", fr.Paused, fr.Seats[1])
	}
	_ = ben
}

// blackholedSessions is how many sessions TestBlackholedSessionsEnd cuts
// off; TERMARENA_BLACKHOLE_N raises it for a run by hand (200).
func blackholedSessions() int {
	if n, err := strconv.Atoi(os.Getenv("TERMARENA_BLACKHOLE_N")); err == nil && n > 0 {
		return n
	}
	return 30
}

// Sessions whose network dies all end on the server — lobby sessions,
// a finished plain command's connection, a connection that never opened a
// session — and every goroutine they had ends with them, while their
// clients still hold the connections open.
func TestBlackholedSessionsEnd(t *testing.T) {
	cfg := faultConfig()
	cfg.MaxConnsPerIP = 0
	h := startWith(t, t.TempDir(), cfg, nil, lobby.RoomsConfig{})
	base := h.goroutineBaseline()
	var heap0 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&heap0)
	link := newFaultyLink(t, h.Addr)
	n := blackholedSessions()
	var clients []*gossh.Client
	for i := range n {
		c := sshtest.Dial(t, link.Addr(), sshtest.Config(fmt.Sprintf("p%d", i), sshtest.NewKey(t)))
		clients = append(clients, c)
		switch i % 3 {
		case 0, 1:
			sshtest.Open(t, c, 80, 24, "").WaitFor(2*wait, "Welcome, p")
		case 2:
			if r := sshtest.RunOn(t, c, "whoami"); r.Code != 0 {
				t.Fatalf("whoami: %+v", r)
			}
		}
	}
	// One more that logs in and opens nothing.
	clients = append(clients, sshtest.Dial(t, link.Addr(), sshtest.Config("idle", sshtest.NewKey(t))))
	link.blackhole()
	cut := time.Now()
	serving := func() int {
		buf := make([]byte, 8<<20)
		return strings.Count(string(buf[:runtime.Stack(buf, true)]), "charm.land/ssh.(*Server).handleConn(")
	}
	waitUntil(t, "every blackholed connection to be dropped", 6*wait, func() bool { return serving() == 0 })
	t.Logf("%d blackholed connections dropped %v after the cut (client timeout %v)", len(clients), time.Since(cut).Round(100*time.Millisecond), cfg.ClientTimeout)

	for _, c := range clients {
		c.Close()
	}
	link.p.Stop()
	deadline := time.Now().Add(2 * wait)
	for runtime.NumGoroutine() > base+2 {
		if time.Now().After(deadline) {
			buf := make([]byte, 8<<20)
			t.Fatalf("goroutines %d, baseline %d\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
	var heap1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&heap1)
	t.Logf("goroutines %d (baseline %d); live heap %d KB before, %d KB after", runtime.NumGoroutine(), base, heap0.HeapAlloc>>10, heap1.HeapAlloc>>10)
}
