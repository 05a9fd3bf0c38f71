package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"runtime/pprof"
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
	// Toxics first: a bandwidth toxic still holding data stays blocked
	// after Stop otherwise (a goroutine of toxiproxy's for the rest of
	// the test binary).
	t.Cleanup(func() { p.Toxics.ResetToxics(context.Background()); p.Stop() })
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
// notice on the opponent's screen within the client timeout and 2 s, the
// seat waits, the same key takes it back, the match plays on to its end and
// counts once, as a match and not a forfeit.
func TestBlackholedRankedPlayerKeepsTheSeat(t *testing.T) {
	rc := longMatch
	rc.Games = game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
		c := pong.DefaultConfig(m)
		c.PointsToWin = 5 // nobody defends: over in about 15 s of play
		return c
	}}}
	h := startWith(t, t.TempDir(), faultConfig(), nil, rc)
	link := newFaultyLink(t, h.Addr)
	annKey, _, ben, room := startRanked1v1(t, h, link.Addr(), h.Addr)

	link.blackhole()
	cut := time.Now()
	limit := faultConfig().ClientTimeout + 2*time.Second
	ben.WaitFor(limit, "ann disconnected —")
	t.Logf("grace notice %v after the link went down (client timeout %v)", time.Since(cut).Round(100*time.Millisecond), faultConfig().ClientTimeout)
	fr, _ := room.Latest()
	if !fr.Paused || fr.Seats[0].Connected {
		t.Fatalf("after the drop: paused %v, seat %+v", fr.Paused, fr.Seats[0])
	}
	if s := fr.State.(*pong.Snapshot); s.Over {
		t.Fatalf("the match ended before the drop was noticed: %+v", s.Scores)
	}

	// Back directly (a new network), same key: same seat, play resumes.
	ann2 := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 80, 24, "")
	ann2.WaitFor(wait, "▸ann")
	waitUntil(t, "the grace notice to clear", wait, func() bool { return !strings.Contains(ben.Screen(), "disconnected") })

	// The match plays to its end: rated once, a finished match for both.
	waitUntil(t, "the match to end", 6*wait, func() bool { fr, _ := room.Latest(); return fr.Phase == game.Finished })
	ben.WaitFor(wait, "game over")
	fr, _ = room.Latest()
	s := fr.State.(*pong.Snapshot)
	if s.Forfeit {
		t.Fatalf("the match ended as a forfeit: %+v", s)
	}
	// Two newcomers' first match under Glicko-2: ±241.
	want := map[string]int{"ann": 1259, "ben": 1741}
	if s.Won(0) {
		want = map[string]int{"ann": 1741, "ben": 1259}
	}
	profile := func(name string) (p profileOut) {
		r := sshtest.Run(t, h.Addr, "someone", sshtest.NewKey(t), "profile "+name+" --json")
		if err := json.Unmarshal([]byte(r.Stdout), &p); err != nil {
			t.Fatalf("profile %s: %v: %+v", name, err, r)
		}
		return p
	}
	// The result is written after the room publishes it.
	waitUntil(t, "the match on both profiles", wait, func() bool {
		return len(profile("ann").Matches) > 0 && len(profile("ben").Matches) > 0
	})
	for name, rating := range want {
		p := profile(name)
		if len(p.Ratings) != 1 || p.Ratings[0].Games != 1 || p.Ratings[0].Rating != rating || len(p.Matches) != 1 {
			t.Fatalf("%s after one ranked match (scores %v): ratings %+v matches %+v", name, s.Scores, p.Ratings, p.Matches)
		}
	}
	t.Logf("final score ann %d, ben %d; ratings %v", s.Scores[0], s.Scores[1], want)
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

// hudFPS is the frame rate tm's HUD shows (frames its view wrote in the
// last second), or -1.
func hudFPS(tm *sshtest.Term) int {
	m := fpsRE.FindStringSubmatch(tm.Screen())
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

var fpsRE = regexp.MustCompile(`(\d+)fps`)

// A watcher whose network died and a player on a 2 KB/s link hold up
// neither the room nor the other player: the room's tick and the healthy
// player's screen never stand still for long, and per tick the room plays
// her screen gets as much as before the trouble started.
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

	// While the trouble lasts: the longest either the room's tick or
	// ann's screen stood still (what a slow client holding up the others
	// would show: seconds), ann's HUD every half second, and the room's
	// ticks against the wall clock. The last two are logged: a loaded
	// machine (CI runs packages side by side) lowers them for everyone.
	var fps []int
	var tickGap, screenGap time.Duration
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		fr, _ := room.Latest()
		lastTick, lastLen := fr.Tick, len(ann.Raw())
		tickAt, lenAt, hudAt := time.Now(), time.Now(), time.Now()
		for {
			select {
			case <-stop:
				return
			case now := <-tk.C:
				fr, _ := room.Latest()
				if fr.Tick != lastTick {
					lastTick, tickAt = fr.Tick, now
				}
				tickGap = max(tickGap, now.Sub(tickAt))
				// While the ball waits for a serve nothing on the screen
				// changes, and nothing is sent.
				if n := len(ann.Raw()); n != lastLen || !fr.State.(*pong.Snapshot).Ball.Live {
					lastLen, lenAt = n, now
				}
				screenGap = max(screenGap, now.Sub(lenAt))
				if now.Sub(hudAt) >= 500*time.Millisecond {
					fps, hudAt = append(fps, hudFPS(ann)), now
				}
			}
		}
	}()
	fr, _ := room.Latest()
	tick0, t0 := fr.Tick, time.Now()
	during := bytesPerTick(t, ann, room, ticks)
	fr, _ = room.Latest()
	rate := float64(fr.Tick-tick0) / time.Since(t0).Seconds()
	close(stop)
	<-sampled
	t.Logf("ann's screen: %.1f bytes per tick before, %.1f with a blackholed watcher and a 2 KB/s opponent; room %.1f ticks/s, longest still %v; ann's screen longest still in play %v, HUD fps %v",
		before, during, rate, tickGap.Round(time.Millisecond), screenGap.Round(time.Millisecond), fps)
	// Bytes per tick move with what the ball does (7.6 to 16 seen on a
	// healthy link): only a gross fall counts; the stand-stills are the
	// sharp check.
	if during < before/3 {
		t.Fatalf("ann's screen slowed down: %.1f bytes per tick, %.1f before", during, before)
	}
	if tickGap > time.Second || screenGap > time.Second {
		t.Fatalf("held up: the room's tick stood still for %v, ann's screen for %v", tickGap, screenGap)
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

// Connections whose network dies end on the server — a finished plain
// command's connection, a connection that never opened a session — and
// every goroutine they had ends with them, while their clients still hold
// the connections open. (A lobby session behind a blackholed proxy is not
// dropped: the proxy's kernel answers the keepalives that find a dead link
// in the menus; TestCutLinkEndsIdleLobbiesE2E cuts a real link under
// lobbies.)
func TestBlackholedSessionsEnd(t *testing.T) {
	cfg := faultConfig()
	// The connection that opens no session is the session-open timeout's
	// (the server asks it nothing, so its silence proves nothing).
	cfg.MaxConnsPerIP, cfg.SessionOpenTimeout = 0, cfg.ClientTimeout
	h := startWith(t, t.TempDir(), cfg, nil, lobby.RoomsConfig{})
	base := h.goroutineBaseline()
	var heap0 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&heap0)
	// The clients live in a subtest: its cleanups (the terminals, the
	// proxy) have run, and let go of everything on the client side, by
	// the time the heap is measured.
	t.Run("blackholed", func(t *testing.T) {
		link := newFaultyLink(t, h.Addr)
		n := blackholedSessions()
		var clients []*gossh.Client
		for i := range n {
			c := sshtest.Dial(t, link.Addr(), sshtest.Config(fmt.Sprintf("p%d", i), sshtest.NewKey(t)))
			clients = append(clients, c)
			if r := sshtest.RunOn(t, c, "whoami"); r.Code != 0 {
				t.Fatalf("whoami: %+v", r)
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
		t.Logf("%d blackholed connections dropped %v after the cut (client and session-open timeouts %v)", len(clients), time.Since(cut).Round(100*time.Millisecond), cfg.ClientTimeout)
		for _, c := range clients {
			c.Close()
		}
	})
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
	if p := os.Getenv("TERMARENA_HEAP_PROFILE"); p != "" { // where the rest of the heap is held: go tool pprof -top
		f, _ := os.Create(p)
		_ = pprof.WriteHeapProfile(f)
		f.Close()
	}
	// Memory back near its baseline too. What stays is small per session
	// (measured: about 17 KB each after 201, most of it the runtime's
	// descriptors of ended goroutines, which it keeps for reuse, and the
	// chat's state per player seen); anything a dropped session kept
	// alive (its screen buffers, its SSH connection's buffers) is more
	// than the budget, and a run of 30 is a few MB over it.
	n := blackholedSessions() + 1
	budget := uint64(4<<20 + n*perSessionHeapBudget)
	if heap1.HeapAlloc > heap0.HeapAlloc && heap1.HeapAlloc-heap0.HeapAlloc > budget {
		t.Fatalf("live heap %d KB after %d blackholed sessions ended, %d KB before: more than %d KB kept (TERMARENA_HEAP_PROFILE=file shows by whom)",
			heap1.HeapAlloc>>10, n, heap0.HeapAlloc>>10, budget>>10)
	}
}

// perSessionHeapBudget is how much live heap TestBlackholedSessionsEnd
// lets each ended session leave behind.
const perSessionHeapBudget = 48 << 10

// A client whose answers stop reaching the server while the game still
// reaches it (upstream blackholed) sees its HUD say so instead of the last
// round trip, then is dropped at the client timeout; a watcher whose
// network dies is dropped too and stops counting as one.
func TestStaleRTTShowsAndBlackholedWatcherIsDropped(t *testing.T) {
	// Long enough for the HUD to call a round trip stale (2 s without an
	// answer) well before the drop.
	cfg := faultConfig()
	cfg.ClientTimeout = 5 * time.Second
	h := startWith(t, t.TempDir(), cfg, nil, longMatch)
	link, dead := newFaultyLink(t, h.Addr), newFaultyLink(t, h.Addr)
	_, ann, ben, room := startRanked1v1(t, h, link.Addr(), h.Addr)
	watcher := sshtest.Open(t, sshtest.Dial(t, dead.Addr(), sshtest.Config("carol", sshtest.NewKey(t))), 80, 24, "spectate "+room.ID())
	watcher.WaitFor(wait, "ann", "ben")
	waitUntil(t, "the watcher counted", wait, func() bool { return room.Watchers() == 1 })
	ann.WaitFor(wait, "rtt ")

	link.add("up-down", "timeout", "upstream", `{"timeout":0}`)
	dead.blackhole()
	cut := time.Now()
	ann.WaitFor(cfg.ClientTimeout, "no reply ")
	t.Logf("ann's HUD said \"no reply\" %v after her answers stopped arriving", time.Since(cut).Round(100*time.Millisecond))
	ben.WaitFor(cfg.ClientTimeout+2*time.Second, "ann disconnected —")
	waitUntil(t, "the blackholed watcher to be dropped", cfg.ClientTimeout+2*time.Second, func() bool { return room.Watchers() == 0 })
	t.Logf("ann's seat in grace and the blackholed watcher dropped %v after the cut (client timeout %v)", time.Since(cut).Round(100*time.Millisecond), cfg.ClientTimeout)
}
