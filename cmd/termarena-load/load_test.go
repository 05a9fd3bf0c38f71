package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/game/tron"
	"github.com/termarena/termarena/games"
	"github.com/termarena/termarena/hostkeys"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/store/bolt"
	"github.com/termarena/termarena/telemetry"
)

// TestMain lets the test binary stand in for the tool when the baseline
// run re-executes "itself" as the baseline server.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "--serve-baseline" {
		os.Exit(realMain(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// startServer runs a real termarena server on 127.0.0.1:0 with a fresh
// data dir, the way server/harness_test.go does, through exported APIs
// only. A short countdown gets the bots to live play within the test.
func startServer(t *testing.T) string {
	t.Helper()
	addr, _ := startServerWith(t, 1000)
	return addr
}

// startServerWith is startServer with a per-IP connection cap, also
// returning the server's telemetry.
func startServerWith(t *testing.T, maxConnsPerIP int) (string, *telemetry.Metrics) {
	t.Helper()
	return startServerOpts(t, maxConnsPerIP, 0)
}

// startServerOpts is startServerWith with Pong matches of points to win
// (0: the default), so that a test run can play several.
func startServerOpts(t *testing.T, maxConnsPerIP, points int) (string, *telemetry.Metrics) {
	t.Helper()
	dir := t.TempDir()
	st, err := bolt.Open(filepath.Join(dir, "termarena.db"), bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	key, err := hostkeys.LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	pk := pong.Kind{}
	if points > 0 {
		pk.Configure = func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin = points
			return c
		}
	}
	svc, err := lobby.Start(st, lobby.Config{Rooms: lobby.RoomsConfig{Games: game.Catalog{pk, tron.Kind{}}, Room: game.RoomConfig{Countdown: 500 * time.Millisecond}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.MaxConnsPerIP = maxConnsPerIP
	metrics := telemetry.New(svc)
	srv, err := server.New(cfg, server.Deps{
		Store: st, Hub: svc.Hub, Rooms: svc.Rooms, Matchmaker: svc.Matchmaker, Chat: svc.Chat,
		Views:   games.Views(),
		Metrics: metrics, HostKey: key.Signer, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-served
		svc.Stop()
		if err := st.Close(); err != nil {
			t.Errorf("store close: %v", err)
		}
	})
	return ln.Addr().String(), metrics
}

// syncBuffer collects the tool's output for the test log.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func runTool(t *testing.T, args ...string) *report {
	t.Helper()
	c, err := parseFlags(args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	rep, err := runAll(t.Context(), c, &out, &out)
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// checkGame asserts what a healthy run against termarena shows: every bot
// connected and reached the board, every one of them received frames,
// and the emulated screens were valid game frames every time.
func checkGame(t *testing.T, res *result, players int) {
	t.Helper()
	s := res.Summary
	if s.Started != players || s.ConnectedPeak != players || s.ConnectErrors != 0 {
		t.Errorf("started %d, peak connected %d, connect errors %d (%v); want %d, %d, 0", s.Started, s.ConnectedPeak, s.ConnectErrors, s.Errors, players, players)
	}
	if s.ReachedGame != players || s.GameNoFrames != 0 {
		t.Errorf("%d bots reached the game (%d of them without frames); want all %d with frames", s.ReachedGame, s.GameNoFrames, players)
	}
	if s.TotalFrames == 0 || s.BytesPerFrame <= 0 {
		t.Errorf("frames %d, bytes/frame %.1f", s.TotalFrames, s.BytesPerFrame)
	}
	if s.VerifyOK == 0 || s.VerifyFailed != 0 {
		t.Errorf("verify ok %d failed %d; want some ok and none failed\n%s", s.VerifyOK, s.VerifyFailed, s.VerifyFailure)
	}
}

func TestQueueModeAgainstRealServer(t *testing.T) {
	t.Parallel()
	addr, metrics := startServerWith(t, 1000)
	hs := httptest.NewServer(metrics.Handler())
	t.Cleanup(hs.Close)
	rep := runTool(t, "--addr", addr, "--players", "4", "--ramp", "20", "--duration", "8s", "--mode", "queue", "--verify", "2",
		"--metrics", hs.URL+"/metrics", "--server-pid", strconv.Itoa(os.Getpid()))
	checkGame(t, rep.Termarena, 4)
	checkTelemetry(t, rep.Termarena, 4)
}

// TestQueueModePlaysMatchAfterMatch: a queue bot goes back to the queue
// from the results screen, as a player does, whatever the footer offers
// there ("r rematch · n queue", or "n queue" alone once the other player
// has gone back first), so a run measures play rather than results
// screens; and the report says how many sessions were playing.
func TestQueueModePlaysMatchAfterMatch(t *testing.T) {
	// Not parallel: beside the other runs against real servers, on a
	// loaded machine, their metrics scrapes (750 ms each) time out.
	addr, _ := startServerOpts(t, 1000, 1)
	rep := runTool(t, "--addr", addr, "--players", "4", "--ramp", "20", "--duration", "14s", "--mode", "queue", "--verify", "0")
	s := rep.Termarena.Summary
	// The claim needs time for two matches (about 4 s each here): on a
	// machine so busy that the first match started late there is none.
	first := -1.0
	for _, x := range rep.Termarena.Samples {
		if x.InGame > 0 {
			first = x.T
			break
		}
	}
	if first < 0 || first > 5 {
		t.Skipf("the first match started at %.0f s of 14 (the machine is too busy for two matches; -1: never)", first)
	}
	// A bot that missed the "n queue" results screen sat on it for good,
	// and its partner then waited in the queue alone: of four bots, two
	// at most ever reached a second board.
	if s.Matches == nil || s.Matches.BotsTwoPlus < 3 {
		t.Fatalf("matches %+v: want at least 3 of the 4 bots on a second match's board", s.Matches)
	}
	if s.PlayShare == nil || s.PlayShare.Seconds == 0 || s.PlayShare.GameMax == 0 {
		t.Errorf("play share %+v: want seconds with sessions on the board", s.PlayShare)
	}
}

// TestWatchModeAgainstRealServer: two bots play a casual room and three
// spectate it; the report gives the watchers' frames (checked by the
// emulator with a watcher's screen) and bytes, and the room's tick
// lateness from the server's metrics.
func TestWatchModeAgainstRealServer(t *testing.T) {
	// Not parallel: beside the other runs against real servers, on a
	// loaded machine, their metrics scrapes (750 ms each) time out.
	addr, metrics := startServerWith(t, 1000)
	hs := httptest.NewServer(metrics.Handler())
	t.Cleanup(hs.Close)
	rep := runTool(t, "--addr", addr, "--players", "3", "--watch-rooms", "1", "--ramp", "20", "--duration", "10s", "--mode", "watch",
		"--verify", "5", "--metrics", hs.URL+"/metrics")
	s := rep.Termarena.Summary
	w := s.Watch
	if w == nil {
		t.Fatal("no watch summary")
	}
	if w.Watchers != 3 || w.WatchersPeak != 3 || w.WithFrames != 3 || s.ConnectErrors != 0 {
		t.Errorf("watchers %d, peak %d, with frames %d, connect errors %d (%v); want 3, 3, 3, 0", w.Watchers, w.WatchersPeak, w.WithFrames, s.ConnectErrors, s.Errors)
	}
	// Live: a watcher's board with the ball in play. (Whole live
	// seconds are not required: under -race on a busy machine points
	// come faster than a second apart.)
	live := 0
	for _, x := range rep.Termarena.Samples {
		live = max(live, x.WatchersLive)
	}
	if live == 0 || w.BytesPerSec <= 0 {
		t.Errorf("most watchers live in a second %d, bytes/s per watcher %.0f: want both", live, w.BytesPerSec)
	}
	if s.VerifyOK == 0 || s.VerifyFailed != 0 {
		t.Errorf("verify ok %d failed %d; want some ok and none failed\n%s", s.VerifyOK, s.VerifyFailed, s.VerifyFailure)
	}
	if s.Telemetry == nil || s.Telemetry.TickLatenessN == 0 {
		t.Errorf("telemetry %+v: want the room's ticks", s.Telemetry)
	}
}

// checkTelemetry asserts that a run with --metrics and --server-pid (here
// the test process itself, which hosts the server) scraped every second
// and filled in the memory and per-second server figures.
func checkTelemetry(t *testing.T, res *result, sessions int) {
	t.Helper()
	tel, mem := res.Summary.Telemetry, res.Summary.ServerMemory
	if tel == nil || mem == nil {
		t.Fatalf("telemetry %+v, memory %+v: want both", tel, mem)
	}
	// One scrape before the first bot, one per sample.
	if tel.Scrapes != len(res.Samples)+1 || tel.ScrapeFailures != 0 {
		t.Errorf("scrapes %d (failed %d: %s); want %d, none failed", tel.Scrapes, tel.ScrapeFailures, tel.ScrapeError, len(res.Samples)+1)
	}
	if mem.RSSSource != "proc" || mem.RSSBefore == 0 || mem.RSSEnd == 0 || mem.HeapBefore == 0 || mem.HeapEnd == 0 || mem.GoroutinesEnd == 0 {
		t.Errorf("memory %+v: want RSS from /proc, heap and goroutines before and after", mem)
	}
	if mem.Sessions != sessions || mem.RSSPerSession == nil || mem.HeapPerSession == nil {
		t.Errorf("per-session memory over %d sessions: RSS %v heap %v; want both over %d", mem.Sessions, mem.RSSPerSession, mem.HeapPerSession, sessions)
	}
	if mem.GoroutinesPerSession == nil || *mem.GoroutinesPerSession <= 0 {
		t.Errorf("goroutines per session %v (before %d, end %d): want a positive figure", mem.GoroutinesPerSession, mem.GoroutinesBefore, mem.GoroutinesEnd)
	}
	if mem.ServerSessions == nil || *mem.ServerSessions < sessions {
		t.Errorf("server sessions at the end %v, want at least %d", mem.ServerSessions, sessions)
	}
	var written uint64
	for _, s := range res.Samples {
		if s.Server == nil || s.Server.RSS == 0 || s.Server.ScrapeFailed || s.Server.FramesWritten == nil {
			t.Fatalf("sample at %.1fs: server %+v; want RSS and frames written", s.T, s.Server)
		}
		written += *s.Server.FramesWritten
	}
	last := res.Samples[len(res.Samples)-1]
	t.Logf("server wrote %d frames, bots had received %d by the last sample", written, last.totFrames)
	if written == 0 {
		t.Error("the server's metrics show no frames written")
	}
}

// TestLobbyModeAgainstRealServer: --mode lobby bots log in and sit in the
// lobby typing nothing, and the report gives what an idle session costs:
// server CPU per session-second over the steady part, RSS and goroutines
// per session.
func TestLobbyModeAgainstRealServer(t *testing.T) {
	// Not parallel: beside the other runs against real servers, on a
	// loaded machine, their metrics scrapes time out.
	addr, metrics := startServerWith(t, 1000)
	hs := httptest.NewServer(metrics.Handler())
	t.Cleanup(hs.Close)
	const bots = 6
	rep := runTool(t, "--addr", addr, "--players", strconv.Itoa(bots), "--ramp", "20", "--duration", "11s", "--mode", "lobby",
		"--metrics", hs.URL+"/metrics", "--server-pid", strconv.Itoa(os.Getpid()))
	res := rep.Termarena
	s := res.Summary
	if s.Started != bots || s.ConnectedPeak != bots || s.ConnectErrors != 0 || s.Dropped != 0 {
		t.Errorf("started %d, peak connected %d, connect errors %d (%v), dropped %d; want %d, %d, 0, 0", s.Started, s.ConnectedPeak, s.ConnectErrors, s.Errors, s.Dropped, bots, bots)
	}
	if last := res.Samples[len(res.Samples)-1]; last.Connected != bots {
		t.Errorf("connected at the end %d, want %d", last.Connected, bots)
	}
	// In the lobby, not in a game: they received its screen, no frames.
	if s.ReachedGame != 0 || s.TotalFrames != 0 || s.TotalBytes == 0 {
		t.Errorf("reached a game %d, frames %d, bytes %d: want the lobby's screen and no game", s.ReachedGame, s.TotalFrames, s.TotalBytes)
	}
	if c := s.Server; c == nil || c.SteadySecs == 0 || c.SteadyUsPerSessionSec <= 0 || c.UsPerSessionSec <= 0 {
		t.Errorf("server CPU %+v: want µs per session-second over the run and the steady part", c)
	}
	// The server's threads (here this whole process's) woke, and the
	// figure is per connected session-second of the steady part.
	if w := s.ServerWakeups; w == nil || w.Switches == 0 || w.PerSec <= 0 || w.PerSessionSec <= 0 || w.SessionSeconds < 3*bots-1 {
		t.Errorf("server wakeups %+v: want switches over the steady part, per second and per session-second", w)
	}
	mem := s.ServerMemory
	if mem == nil || mem.RSSSource != "proc" || mem.Sessions != bots || mem.RSSPerSession == nil {
		t.Errorf("server memory %+v: want RSS per session from /proc over %d sessions", mem, bots)
	} else if mem.GoroutinesPerSession == nil || *mem.GoroutinesPerSession <= 0 {
		// The server runs in this process: the bots' goroutines count too.
		t.Errorf("goroutines per session %v (before %d, end %d): want a positive figure", mem.GoroutinesPerSession, mem.GoroutinesBefore, mem.GoroutinesEnd)
	}
	var out bytes.Buffer
	printSummary(&out, rep)
	for _, want := range []string{"server CPU µs/session-second (steady)", "server goroutines per session", "RSS / heap per session", "server wakeups/s / per session-second (steady)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRoomsModeAgainstRealServer(t *testing.T) {
	t.Parallel()
	addr := startServer(t)
	rep := runTool(t, "--addr", addr, "--players", "2", "--ramp", "20", "--duration", "8s", "--mode", "rooms", "--verify", "2")
	checkGame(t, rep.Termarena, 2)
}

func TestBaselineRun(t *testing.T) {
	t.Parallel()
	rep := runTool(t, "--baseline", "--players", "2", "--duration", "2s", "--keys-per-sec", "8")
	if rep.Baseline == nil || rep.Termarena != nil {
		t.Fatalf("report %+v: want a baseline run only", rep)
	}
	s := rep.Baseline.Summary
	if s.Started != 2 || s.ConnectedPeak != 2 || s.ReachedGame != 2 || s.GameNoFrames != 0 {
		t.Errorf("started %d, connected %d, got frames %d–%d; want 2 each", s.Started, s.ConnectedPeak, s.ReachedGame, s.GameNoFrames)
	}
	if s.TotalFrames == 0 || s.BytesPerFrame != 57 {
		t.Errorf("frames %d at %.2f B/frame; want some at exactly 57", s.TotalFrames, s.BytesPerFrame)
	}
	if s.Server == nil {
		t.Error("no CPU figures for the baseline server subprocess")
	}
}

func TestTrackerCountsFramesAcrossSplits(t *testing.T) {
	// Two game frames (one drawing the 1v1 footer and a HUD), a Bubble Tea
	// style write between them, and a stray restore outside a frame.
	stream := "\x1b[?1049h\x1b[2J" +
		"\x1b7\x1b[0m\x1b[H\x1b[2J\x1b[1;2H\x1b[0;1m▸ann 0  bob 0\x1b[24;20Hr1 · 1v1 · casual   w/s ↑/↓ move · q leave\x1b8" +
		"\x1b[3;1Hmenu text ↑↓\x1b[0m" +
		"\x1b7\x1b[5;9H\x1b[0;38;5;231m▀\x1b[3C▄\x1b8" +
		"\x1b8"
	whole := newTracker(80, 24)
	whole.Write([]byte(stream))
	for step := 1; step <= 7; step++ {
		tr := newTracker(80, 24)
		for i := 0; i < len(stream); i += step {
			tr.Write([]byte(stream[i:min(i+step, len(stream))]))
		}
		if tr.frames != 3 || tr.frameBytes != whole.frameBytes || tr.phase != phasePlay || tr.horizontal {
			t.Errorf("chunks of %d: frames %d bytes %d phase %v; want 3, %d, play", step, tr.frames, tr.frameBytes, tr.phase, whole.frameBytes)
		}
		if got := strings.TrimSpace(tr.row(0)); got != "▸ann 0  bob 0" {
			t.Errorf("chunks of %d: HUD row %q", step, got)
		}
		if tr.grid[4*80+8] != '▀' || tr.grid[4*80+12] != '▄' {
			t.Errorf("chunks of %d: cursor-forward misplaced the glyphs: %q", step, tr.row(4))
		}
	}
	if whole.frames != 3 {
		t.Fatalf("frames %d, want 3", whole.frames)
	}
	// ESC 7 … ESC 8 inclusive, both frames, plus the stray ESC 8.
	want := uint64(len(stream) - len("\x1b[?1049h\x1b[2J") - len("\x1b[3;1Hmenu text ↑↓\x1b[0m"))
	if whole.frameBytes != want {
		t.Errorf("frame bytes %d, want %d", whole.frameBytes, want)
	}
}

func TestTrackerReadsWaitingRoomAndOverlay(t *testing.T) {
	tr := newTracker(80, 24)
	tr.Write([]byte("\x1b7\x1b[2J\x1b[10;30Hr12 · 1v1 · casual\x1b[12;30Hleft     ann      not ready (you)\x1b[15;20Hneeds 2 players, all ready · r ready · q leave\x1b8"))
	if tr.phase != phaseWaiting || tr.roomID != "r12" || tr.ready != -1 {
		t.Fatalf("phase %v room %q ready %d; want waiting, r12, -1", tr.phase, tr.roomID, tr.ready)
	}
	// A room of a cluster's node is joined by its whole id.
	node := newTracker(80, 24)
	node.Write([]byte("\x1b7\x1b[2J\x1b[10;30Hr3@eu-1.a · 1v1 · casual\x1b[12;30Hleft     ann      not ready (you)\x1b[15;20Hneeds 2 players, all ready · r ready · q leave\x1b8"))
	if node.roomID != "r3@eu-1.a" {
		t.Fatalf("room %q on a cluster's node; want r3@eu-1.a", node.roomID)
	}
	// A board: walls in rows 2 and 12, paddles in columns 3 and 40, a
	// countdown digit in the middle.
	var b strings.Builder
	b.WriteString("\x1b7\x1b[2J\x1b[1;2H▸ann 0  bob 0\x1b[24;10Ha/d ←/→ move · q leave")
	for _, row := range []int{2, 12} {
		b.WriteString("\x1b[" + itoa(row) + ";3H" + strings.Repeat("█", 38))
	}
	for _, row := range []int{5, 6, 7} {
		b.WriteString("\x1b[" + itoa(row) + ";3H█\x1b[" + itoa(row) + ";40H█")
	}
	b.WriteString("\x1b[7;20H3\x1b8")
	tr.Write([]byte(b.String()))
	if tr.phase != phasePlay || !tr.horizontal || tr.live || !tr.boardOK {
		t.Fatalf("phase %v horizontal %v live %v board %v; want play, true, false (countdown), found", tr.phase, tr.horizontal, tr.live, tr.boardOK)
	}
	// The digit goes, the ball appears below the left paddle.
	tr.Write([]byte("\x1b7\x1b[7;20H \x1b[10;10H▄\x1b8"))
	if !tr.live || !tr.countdown {
		t.Fatalf("live %v countdown %v after the overlay left; want true, true", tr.live, tr.countdown)
	}
	if dir, ok := tr.chase(); !ok || dir != 1 {
		t.Errorf("chase %d %v; want down (+1)", dir, ok)
	}
}

func itoa(n int) string { return string(rune('0'+n/10)) + string(rune('0'+n%10)) }

func TestVerifierKeepsRunesSplitAcrossReads(t *testing.T) {
	v := newVerifier(20, 5, "ann")
	text := "\x1b[1;1H█▀▄ ↑/↓"
	for i := 0; i < len(text); i++ {
		v.Write([]byte{text[i]})
	}
	if got := strings.TrimSpace(strings.Split(v.Screen(), "\n")[0]); got != "█▀▄ ↑/↓" {
		t.Errorf("first row %q, want %q", got, "█▀▄ ↑/↓")
	}
}

func TestFlagsRefuseRemoteTargets(t *testing.T) {
	for _, tc := range []struct {
		args []string
		ok   bool
	}{
		{[]string{}, true},
		{[]string{"--addr", "localhost:2222"}, true},
		{[]string{"--addr", "[::1]:2222"}, true},
		{[]string{"--addr", "127.0.0.5:2222"}, true},
		{[]string{"--addr", "203.0.113.7:22"}, false},
		{[]string{"--addr", "play.example.com:2222"}, false},
		{[]string{"--allow-remote"}, true},
		{[]string{"--addr", "203.0.113.7:22", "--allow-remote"}, true},
		{[]string{"--source-addrs", "127.0.0.1,127.0.0.2"}, true},
		{[]string{"--source-addrs", "192.0.2.1"}, false},
		{[]string{"--size", "80x"}, false},
		{[]string{"--mode", "chaos"}, false},
		{[]string{"--baseline", "--compare"}, false},
		{[]string{"--mode", "storm"}, true},
		{[]string{"--mode", "lobby"}, true},
		{[]string{"--mode", "lobby", "--compare"}, false},
		{[]string{"--mode", "lobby", "--baseline"}, false},
		{[]string{"--mode", "storm", "--storm-fresh", "--storm-keys", "500"}, true},
		{[]string{"--storm-fresh"}, false},
		{[]string{"--mode", "storm", "--storm-keys", "-1"}, false},
		{[]string{"--metrics", "http://127.0.0.1:9100/metrics"}, true},
		{[]string{"--metrics", "http://localhost:9100/metrics"}, true},
		{[]string{"--metrics", "http://[::1]:9100/metrics"}, true},
		{[]string{"--metrics", "http://203.0.113.7:9100/metrics"}, false},
		{[]string{"--metrics", "http://metrics.example.com/metrics"}, false},
		{[]string{"--metrics", "http://203.0.113.7:9100/metrics", "--allow-remote"}, true},
		{[]string{"--metrics", "127.0.0.1:9100"}, false},
		{[]string{"--metrics", "file:///etc/passwd"}, false},
	} {
		_, err := parseFlags(tc.args, io.Discard)
		if (err == nil) != tc.ok {
			t.Errorf("%v: err %v, want ok=%v", tc.args, err, tc.ok)
		}
	}
}

func TestParseSwitches(t *testing.T) {
	status := "Name:\ttermarena\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t1200\nnonvoluntary_ctxt_switches:\t34\n"
	if n, ok := parseSwitches(status); !ok || n != 1234 {
		t.Errorf("parseSwitches = %d %v, want 1234", n, ok)
	}
	if _, ok := parseSwitches("Name:\ttermarena\nvoluntary_ctxt_switches:\t5\n"); ok {
		t.Error("parseSwitches of a status without nonvoluntary_ctxt_switches: ok, want not")
	}
	// This process's own threads have been switched out already.
	if n, ok := switchesOf(os.Getpid()); !ok || n == 0 {
		t.Errorf("switchesOf(self) = %d %v, want some", n, ok)
	}
}

func TestParseStat(t *testing.T) {
	// The command name may hold spaces and parentheses.
	stat := "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 9 0 1000 1000 100"
	d, ok := parseStat(stat)
	if !ok || d != 3250*time.Millisecond {
		t.Errorf("parseStat = %v %v, want 3.25s", d, ok)
	}
	if _, ok := cpuOf(os.Getpid()); !ok && isLinux() {
		t.Error("cannot read this process's CPU")
	}
}

func isLinux() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

func TestBaselineFrameSize(t *testing.T) {
	for _, n := range []int{4, 10, 16, 57, 300} {
		f := baselineFrame(n)
		tr := newTracker(80, 24)
		tr.Write(f)
		if len(f) != n || tr.frames != 1 || tr.frameBytes != uint64(n) {
			t.Errorf("size %d: len %d frames %d frame bytes %d", n, len(f), tr.frames, tr.frameBytes)
		}
	}
}

func TestPercentile(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tc := range []struct{ p, want float64 }{{1, 1}, {50, 5}, {95, 10}, {99, 10}} {
		if got := percentile(v, tc.p); got != tc.want {
			t.Errorf("p%v = %v, want %v", tc.p, got, tc.want)
		}
	}
}

// A ranked countdown shows who plays whom above its number: it is still a
// countdown, so the serve is a whole serve delay after it (a point's
// notice, text without a number row, is not).
func TestTrackerCountdownUnderTheMatchup(t *testing.T) {
	board := func(overlay string) *tracker {
		tr := newTracker(80, 24)
		var b strings.Builder
		b.WriteString("\x1b7\x1b[2J\x1b[1;2H▸ann 1500? 0  bob 1480? 0\x1b[24;10Hw/s ↑/↓ move · q leave")
		for _, row := range []int{2, 12} {
			b.WriteString("\x1b[" + itoa(row) + ";3H" + strings.Repeat("█", 38))
		}
		for _, row := range []int{5, 6, 7} {
			b.WriteString("\x1b[" + itoa(row) + ";3H█\x1b[" + itoa(row) + ";40H█")
		}
		b.WriteString(overlay + "\x1b8")
		tr.Write([]byte(b.String()))
		return tr
	}
	tr := board("\x1b[6;10Hann 1500? vs bob 1480?\x1b[8;20H2")
	if tr.live || !tr.countdown {
		t.Fatalf("matchup and number: live %v countdown %v; want false, true", tr.live, tr.countdown)
	}
	tr = board("\x1b[7;15H point: bob ")
	if tr.live || tr.countdown {
		t.Fatalf("a point's notice: live %v countdown %v; want false, false", tr.live, tr.countdown)
	}
}
