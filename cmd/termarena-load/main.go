// Command termarena-load plays termarena with many bot players over real SSH
// and measures what they receive: sessions connected and in game, game
// frames per second (total and per session), bytes per frame, and whether the
// frames are real game screens. It exists to answer "how many players per
// core at 30 fps", which no unit benchmark can: the cost that matters is the
// server's whole path (SSH, Bubble Tea, rooms, the game screen) under load.
//
// Each bot has its own ed25519 key (so its own account; keys are made before
// the clock starts), an x/crypto/ssh connection, and (except in --mode
// storm, below) a PTY of --size with
// TERM=xterm-256color. In --mode queue a bot runs `play pong-1v1` and the
// server's matchmaker pairs it; in --mode rooms bots come in pairs: the first
// creates a casual 1v1 room in the lobby (c, enter) and reads its id "rN"
// from the screen, the second runs `join rN`, and both press r (an odd last
// bot waits alone). In play a bot types w/s (a/d for a top or bottom seat)
// like a person: taps, and held keys with a 250–500 ms auto-repeat delay
// then 30 repeats a second, --keys-per-sec on average; four bursts in five
// go toward the ball, so rallies last as they do between people. After a
// match it goes back to the queue (n) or asks for a rematch (r). In
// --mode queue it presses n on the results screen whatever else the screen
// offers ("r rematch · n queue", or "n queue" alone once the other player
// has gone back first), so a long run keeps playing match after match as
// players do, and the report counts the matches.
//
// --mode watch measures watching: --watch-rooms casual rooms (1 by
// default), each created and played by two bots as in --mode rooms, and
// --players watchers spread evenly over them, each running `spectate rN`
// once its room exists; watchers type nothing. The report gives the
// watchers' frames (per watcher-second, on schedule against
// --target-fps), bytes per second per watcher, and, with --metrics, the
// rooms' tick lateness p99 from the server's telemetry. The server takes
// 200 watchers a room by default: for more, start it with
// --max-watchers-per-room 0 (the tool notes this), or use more rooms. A
// watcher is live while its board shows with no overlay; with --verify its
// screen must show a HUD naming two players with scores, two paddles and
// the watcher's keys.
//
// --mode lobby measures sessions that sit in the lobby: each bot logs in
// with a PTY of --size, gets the lobby's screen, and types nothing until
// the end. A lobby session is sent a screen at login and whenever the
// lobby's "online" line changes, so while bots arrive every one of them is
// repainted; the steady part (5 s after the last bot started) begins after
// the last arrival has settled, and from there on an idle lobby should
// cost nothing between events. The summary gives, instead of the frame
// rows: sessions, bytes received per session, server CPU (cores and µs
// per connected session-second, whole run and steady part, with
// --server-pid), RSS and heap per session, and server goroutines per
// session (with --metrics), and how often the server's threads woke
// (with --server-pid, Linux: context switches summed over
// /proc/PID/task/*/status, per second and per connected session-second
// of the steady part; an idle server still wakes some hundreds of times a
// second, the Go runtime's sysmon among them, so compare with a run of
// fewer sessions). --baseline and --compare do not apply.
//
// Key budget: bots type --keys-per-sec (4) on average and hold keys at
// 30 repeats a second, under the server's per-session budget
// (--max-keys-per-sec, 60 a second with a second's worth at once), so load
// runs need no change to the server's flags; at --keys-per-sec above about
// 30 start the server with a higher --max-keys-per-sec, or keys are dropped.
//
// Typical use, on a 2-core machine, server on one core and the tool on the
// other (per-IP cap off so that every bot can connect from 127.0.0.1):
//
//	GOMAXPROCS=1 taskset -c 0 go run . --listen 127.0.0.1:2222 --data /tmp/load --max-conns-per-ip 0
//	taskset -c 1 go run ./cmd/termarena-load --players 200 --ramp 50 --duration 30s --mode queue --verify 5 \
//	    --server-pid $(pgrep -x termarena)
//
// (`go run` leaves the server's PID to a child of the go command: pgrep
// finds it by name; or `go build` first and run the binary.) With the server's
// default cap of 16 connections per address, spread the bots over loopback
// source addresses instead (Linux routes all of 127/8 to lo), 16 bots each:
// --source-addrs 127.0.0.1,127.0.0.2,…,127.0.0.13 for 200 bots.
//
// Other examples:
//
//	go run ./cmd/termarena-load --players 50 --duration 20s --mode rooms
//	go run ./cmd/termarena-load --players 200 --duration 20s --baseline --baseline-cpus 0
//	go run ./cmd/termarena-load --players 200 --duration 20s --compare --baseline-cpus 0 --server-pid PID --json
//	go run ./cmd/termarena-load --players 200 --duration 30s --server-pid PID --metrics http://127.0.0.1:9100/metrics
//	go run ./cmd/termarena-load --mode storm --players 32 --ramp 200 --duration 15s --server-pid PID \
//	    --source-addrs 127.0.0.1,127.0.0.2,127.0.0.3,127.0.0.4 [--storm-fresh]
//
// --compare and --baseline work in storm mode too: the baseline server
// then requires a public key, as termarena does, and answers whoami with
// the user name and key fingerprint, so the difference per session is
// termarena's own cost over a bare SSH login.
//
// The tool cannot see a server's CPU by itself. Given --server-pid it reads
// utime+stime from /proc/PID/stat at every report and prints the server's
// CPU (cores busy) and CPU µs per frame received (per session in storm
// mode), and VmRSS from /proc/PID/status, once before the first bot
// connects and then every second. Otherwise measure CPU alongside with
// `pidstat -p PID 1`, or read fields 14 and 15 of /proc/PID/stat before and
// after (clock ticks, 100 per second).
//
// # Light cycles
//
// --game tron plays light cycles instead: in --mode queue a bot runs
// `play tron-ffa` (the queue seats four); in --mode rooms bots come in
// groups of --room-size (default 8): the first creates a casual tron room
// in the lobby (c, g until the room is a tron one, enter), the others
// join it, and all press r once the waiting room is full (or after 10 s).
// The tracker then also keeps each cell's colours (SGR), so a bot finds
// its own head (its rider's head colour: its seat from the waiting room,
// the header's ▸ name, or the head a following camera keeps at the centre
// of the board) and its heading (away from its own trail), turns away
// from a trail or wall two cells ahead toward the side with more room,
// and otherwise turns at random now and then (--keys-per-sec ÷ 2 turns a
// second on average). A bot is live while its head is on the board (and
// the header's match line, when it has room, says "riding"), from 1.05 s
// after it appears (a round holds still for a second), and not from half
// a second without a frame (a round's end freezes the board for 2.5 s,
// which the survivor would otherwise count as missed frames; so a stall
// longer than that is left out too: read the server's frames skipped and
// fps p1 next to "on schedule") until the next frame and 1.05 s. The board changes
// once a move, 20 times a second, so --target-fps defaults to 20. The
// verifier then requires a HUD naming two riders with scores and the match
// line "round N · first to M" (which gives way to the names when they fill
// the header), the footer's "arrows/WASD turn" and "q leave", and block
// glyphs only in the riders' colours, with a rider's head or the arena's
// border on the board. For --compare, match the baseline's byte rate with
// --baseline-bytes and --baseline-fps 20.
//
// # Login storm
//
// --mode storm measures logins rather than play: each of --players
// concurrent bots connects, authenticates with its key, opens a session,
// runs the exec command `whoami` without a PTY, reads its output to EOF,
// checks that the exit status is 0 and that the output names the bot (the
// fingerprint line is its key's and the name line its user name, or the
// name-N the server derives when that name is taken), disconnects, and at
// once does it again, until --duration ends (sessions under way then are
// cut and counted neither way). The storm rate is what the server
// sustains with that many logins in flight. After a failure a bot waits
// 100 ms before the next attempt, so a server refusing at once is not spun
// on. The first login of a key creates its player record (a store write);
// later ones are returning players. With --storm-fresh every session uses
// a brand-new key instead, so every login is a new player: the keys are
// made before the clock starts, --storm-keys of them, by default enough
// for every bot to log in 100 times a second (at most 1000 a second in
// all) for the whole duration, capped at 200000. If a storm uses them all
// the bots stop and the summary says so; it never reuses a key.
//
// Spread the bots over --source-addrs so that the server's per-IP cap (16
// concurrent connections per address by default) is not the limit: at
// most 16 bots per address, better fewer, since the server releases a
// connection's slot only once it has seen it close, and a bot reconnects
// at once. Refusals are counted by kind (below), never retried sooner.
//
// # Server telemetry
//
// --metrics URL (termarena --metrics-listen ADDR serves
// http://ADDR/metrics) scrapes the server's Prometheus metrics once before
// the first bot connects and then once a second, after reading the bots,
// with a 750 ms timeout. A failed scrape shows in its line and is counted
// in the summary, never fatal: the next good scrape covers both seconds.
// Latency quantiles are computed from the difference of the server's
// cumulative histograms between two scrapes, interpolating linearly inside
// a bucket as Prometheus' histogram_quantile does, so they are only as fine
// as the server's buckets, and a quantile beyond the highest finite bucket
// shows as that bucket's bound (1 s for input→frame). An interval in which a bucket lost observations
// is left out rather than misread: a restarted server, or, for tick
// lateness, a room that ended (the server's lateness histogram covers only
// the rooms alive at scrape time, so those intervals are counted as
// skipped). Each scrape costs the server a millisecond or two of CPU.
//
// --baseline runs the same bots against a minimal SSH server that the tool
// starts as its own subprocess (so its CPU is measured by PID the same way):
// x/crypto/ssh, one PTY session per bot, writing per session a frame of
// --baseline-bytes bytes at --baseline-fps, wrapped in ESC 7 … ESC 8 like a
// game frame, and reading (dropping) the keys the bots type. That is the
// bare cost of SSH at termarena's byte rate, so the difference per frame is
// termarena's own. --compare runs termarena first and then the baseline with
// the same settings and prints both side by side. A subprocess inherits the
// tool's CPU affinity: --baseline-cpus pins it where the real server runs.
//
// Report fields, one line per second (each covering that second):
//
//	conn       sessions whose SSH session is running (menus, queue or game)
//	game       sessions whose screen is the game board: the footer shows the
//	           move keys (countdown, play and serve pauses; not the waiting
//	           room, not the results)
//	live       of those, sessions whose ball is in play: no overlay (countdown
//	           digit, "point:", results, pause notice) on the board, from the
//	           serve on (1.05 s after a countdown, 0.3 s after a point notice)
//	frames/s   game frames received by all sessions. A game frame is one
//	           ESC 8 (restore cursor) in the stream: the server wraps every
//	           game frame in ESC 7 … ESC 8 (screen.Render); Bubble Tea's menus
//	           never do. Counted by a streaming scan, not the emulator.
//	fps/game   frames/s received by the sessions in "game" ÷ their number
//	fps/live   the same over the sessions that were live for the whole second
//	bytes/s    every byte received (menus included)
//	B/frame    bytes from ESC 7 to ESC 8 inclusive, per frame
//	verify     checks so far of the --verify sampled sessions, ok/failed
//	errors     connections or sessions that failed to start, so far
//	dropped    sessions the server ended before the run did, so far
//	srv cpu    server CPU over the second, % of one core (--server-pid)
//	srv rss    server resident memory at the end of the second (VmRSS
//	           with --server-pid, else the metrics' process RSS)
//	i→f p99    server's input→frame latency p99 over the second: from a
//	           keypress read to the first frame reflecting it written
//	           (termarena_input_to_frame_seconds; --metrics)
//	late p99   p99 of how late room ticks started over the second
//	           (termarena_tick_lateness_seconds; --metrics); "-" when
//	           there were no ticks or the interval was skipped
//
// A line starting "# WARNING client-bound" marks the second from which
// the tool, not the server, limits the figures: its process used more than
// 90 % of the cores it may use (GOMAXPROCS, from its CPU affinity), or its
// goroutines, the bots' readers among them, waited longer than a frame
// interval at --target-fps (p99 over the second, from the Go scheduler's
// /sched/latencies histogram) to run. "# client no longer bound" ends the
// stretch. The summary counts those seconds ("client-bound seconds",
// whole run and steady part) and ends with a WARNING line when there were
// any; in JSON each second has client_bound and tool_sched_p99_ms, the
// summary client_bound.
//
// Besides frames, the summary gives the matches the bots started and
// finished, how many bots reached a second match's board, and the share
// of connected players (watchers aside) on the board and in live play per
// second, min / median / max over the steady part; in watch mode also the
// watchers (with frames, fps p1 / p50 / mean, on schedule, bytes/s each)
// and the rooms' tick lateness p99.
//
// In storm mode the lines are instead:
//
//	active     bots in the middle of a session
//	done/s     sessions completed and checked in the second
//	fail/s     sessions that failed in the second
//	p50 ms     connect→exit latency of the second's sessions, median:
//	p99 ms     from before the TCP connect to the exit status and the end
//	           of the output (closing is not timed); within 1 %
//	ipcap      failures so far: refused by the server's per-IP cap (its
//	           "too many connections" line instead of an SSH banner)
//	hshake     failures so far: key exchange or authentication failed
//	           (including a server that closed without a word)
//	other      failures so far: TCP connect failed, no session or exec,
//	           no exit status or over 30 s, a non-zero exit status, or
//	           output that does not name the bot
//	srv cpu    as above; srv rss as above
//	gorout     server goroutines (--metrics)
//
// Verification: the sampled sessions' whole output also goes through a
// vt10x terminal emulator, and once a second (between frames, while the
// board shows) the emulated screen must be a valid 1v1 game frame: a HUD row
// naming two players with scores, this bot marked ▸; a run of 2 or more
// block glyphs (▀▄█) in colours other than the walls' in each of the
// board's outer columns (the paddles); and the footer's key help with
// "q leave". Frames counted from bytes that do not make such a screen show
// up as failures, so cheap output cannot fake a result.
//
// Summary: "fps p1 … p99" are percentiles over live session-seconds: one
// value per session per one-second window in which it was live throughout.
// "Frames on schedule" is the fraction of those session-seconds in which
// the session received at least 95 % of --target-fps frames. The server only
// sends a frame when the screen changes, and a key press draws one at once,
// so live seconds hold 30–40 frames on a healthy server; seconds with a
// pause are left out because no frames are due then. Server (and tool) CPU
// µs/frame is CPU time divided by all frames received in the same interval;
// the whole run includes key exchanges and matchmaking, "steady" starts 5 s
// after the last bot was started (and is left out when shorter than 3 s).
//
// In storm mode the summary gives sessions completed and failed, sessions/s
// over the whole run and the steady part, connect→exit latency p50, p90 and
// p99 (whole run and steady) with mean and max, failures by kind (per-IP
// cap, handshake, and the other kinds: dial, session, exit status,
// output), and server (and tool) CPU µs per session completed. In the
// steady part of a returning-player storm every login is a returning one;
// the whole run includes each key's first login. A tool near a whole
// core of CPU is flagged: it may be what limits the rate.
//
// Server memory, with --server-pid or --metrics: RSS (from /proc with
// --server-pid, else the metrics), Go heap in use and goroutines (metrics)
// before the first bot connected and at the end, and, in queue, rooms,
// watch and lobby modes, RSS and heap per session = (end − before) ÷ the sessions connected
// at the end; with --metrics also server goroutines per session, the same
// way from go_goroutines (the SSH libraries' per connection included).
// Heap in use includes garbage not yet collected, so it
// follows the collector's sawtooth (the per-second JSON shows it) and a
// per-session figure from one run is rough; RSS also holds what the
// runtime has not returned to the OS, and the store's mmapped pages. Either
// may be negative. With --metrics, over the steady part:
// the server's input→frame p50 and p99, tick lateness p99 (with the number
// of intervals skipped), frame write time p99, frames written and skipped
// as the server counts them, mean frame bytes, and logins per second.
//
// JSON (--json) carries the same: per second, "storm" (storm mode) and
// "server" (rss_bytes, heap_inuse_bytes, goroutines, sessions,
// input_to_frame_p99_ms, tick_lateness_p99_ms, frame_write_p99_ms,
// frames_written, frames_skipped, logins, scrape_failed); in the summary,
// "storm", "server_memory" and "server_telemetry", and server_cpu's
// us_per_session and steady_us_per_session in storm mode. Latencies and
// memory figures that could not be had are left out rather than given as
// zero.
//
// Safety: the tool only connects to loopback addresses unless --addr is given
// explicitly together with --allow-remote; --metrics follows the same rule
// (its URL must name a loopback host unless --allow-remote), and the
// scraper follows no redirects and uses no proxy. Every loop is bounded and
// the tool stops by itself after --duration (ramp included).
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(realMain(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// config is everything the flags decide.
type config struct {
	addr          string
	allowRemote   bool
	players       int
	ramp          float64
	duration      time.Duration
	mode          string
	cols, rows    int
	keysPerSec    float64
	verify        int
	sourceAddrs   []net.IP
	json          bool
	baseline      bool
	compare       bool
	baselineBytes int
	baselineFPS   int
	baselineCPUs  string
	targetFPS     int
	serverPID     int
	namePrefix    string
	cpuProfile    string
	metricsURL    string
	stormFresh    bool
	stormKeys     int
	watchRooms    int    // --mode watch: rooms the watchers spread over
	serveBaseline string // hidden: run as the baseline server subprocess

	// What --game decides.
	game        string
	roomSize    int    // rooms mode: bots per room
	queue       string // queue mode: the ranked mode to play
	roomMode    string // rooms mode: the casual mode's name in the room title ("" = any)
	gamePresses int    // rooms mode: g presses in the create dialog to reach the game
}

const (
	modeQueue = "queue"
	modeRooms = "rooms"
	modeStorm = "storm"
	modeWatch = "watch"
	modeLobby = "lobby"

	gamePong = "pong"
	gameTron = "tron"
)

func parseFlags(args []string, errOut io.Writer) (*config, error) {
	fs := flag.NewFlagSet("termarena-load", flag.ContinueOnError)
	fs.SetOutput(errOut)
	c := &config{}
	var size, sources string
	fs.StringVar(&c.addr, "addr", "127.0.0.1:2222", "termarena server address (loopback only unless --allow-remote)")
	fs.BoolVar(&c.allowRemote, "allow-remote", false, "allow a non-loopback --addr (it must be given explicitly)")
	fs.IntVar(&c.players, "players", 10, "bot sessions")
	fs.Float64Var(&c.ramp, "ramp", 20, "new sessions started per second")
	fs.DurationVar(&c.duration, "duration", 30*time.Second, "run time, ramp included; the tool stops by itself after it")
	fs.StringVar(&c.mode, "mode", modeQueue, "queue (play pong-1v1, matched by the server, again after every match), rooms (pairs: create a casual room, join it), watch (--players watchers spectate --watch-rooms casual rooms that two more bots each play), lobby (log in and sit in the lobby, typing nothing) or storm (log in, run whoami, log out, again)")
	fs.IntVar(&c.watchRooms, "watch-rooms", 1, "watch mode: casual rooms, each played by two bots, that the watchers spread over")
	fs.StringVar(&size, "size", "80x24", "PTY size, COLSxROWS")
	fs.Float64Var(&c.keysPerSec, "keys-per-sec", 4, "average key presses per second per player in play (0 = idle)")
	fs.IntVar(&c.verify, "verify", 2, "sessions whose output also feeds a terminal emulator to check it shows a valid game frame")
	fs.StringVar(&sources, "source-addrs", "", "comma-separated local (loopback) addresses to spread connections over, e.g. 127.0.0.1,127.0.0.2")
	fs.BoolVar(&c.json, "json", false, "print the final report as JSON on stdout (per-second lines go to stderr)")
	fs.BoolVar(&c.baseline, "baseline", false, "run against a minimal SSH server (a subprocess) writing fixed frames, instead of --addr")
	fs.BoolVar(&c.compare, "compare", false, "run against --addr, then the baseline with the same settings, and compare")
	fs.IntVar(&c.baselineBytes, "baseline-bytes", 57, "baseline frame size in bytes, ESC 7 and ESC 8 included")
	fs.IntVar(&c.baselineFPS, "baseline-fps", 30, "baseline frames per second per session")
	fs.StringVar(&c.baselineCPUs, "baseline-cpus", "", "CPU list to pin the baseline server to with taskset (e.g. 0, as the real server is); default: the tool's own")
	fs.IntVar(&c.targetFPS, "target-fps", 0, "the frame rate sessions should receive (0 = the game's: 30 for pong, the server's --fps; 20 for tron, whose board changes once a move, 20 moves a second)")
	fs.StringVar(&c.game, "game", gamePong, "pong (queue: pong-1v1; rooms: casual 1v1 pairs) or tron (light cycles; queue: tron-ffa; rooms: casual tron rooms of --room-size)")
	fs.IntVar(&c.roomSize, "room-size", 0, "rooms mode: bots per room (0 = the game's: 2 for pong, 8 for tron)")
	fs.IntVar(&c.serverPID, "server-pid", 0, "PID of the termarena server, to report its CPU from /proc/PID/stat")
	fs.StringVar(&c.namePrefix, "name-prefix", "", "bot name prefix (default: lt + 4 random characters, new every run)")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write the tool's own CPU profile to this file (is the tool the bottleneck?)")
	fs.StringVar(&c.metricsURL, "metrics", "", "the server's Prometheus metrics URL (termarena --metrics-listen), e.g. http://127.0.0.1:9100/metrics, scraped once a second (loopback only unless --allow-remote)")
	fs.BoolVar(&c.stormFresh, "storm-fresh", false, "storm mode: every session logs in with a brand-new key (a new player) instead of the bot's own")
	fs.IntVar(&c.stormKeys, "storm-keys", 0, "storm-fresh: keys to make before the clock starts (0 = duration × min(100/s per bot, 1000/s), at most 200000)")
	fs.StringVar(&c.serveBaseline, "serve-baseline", "", "")
	fs.Usage = func() {
		fmt.Fprintln(errOut, "termarena-load: bot players for termarena over SSH, and what they receive")
		fmt.Fprintln(errOut)
		fmt.Fprintln(errOut, "usage: termarena-load [flags]   (see the package doc: go doc ./cmd/termarena-load)")
		fmt.Fprintln(errOut)
		fs.VisitAll(func(f *flag.Flag) {
			if f.Name == "serve-baseline" {
				return
			}
			fmt.Fprintf(errOut, "  --%s\t%s (default %q)\n", f.Name, f.Usage, f.DefValue)
		})
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if c.serveBaseline != "" {
		return c, checkLoopback(c.serveBaseline, false, false)
	}
	explicitAddr := false
	fs.Visit(func(f *flag.Flag) { explicitAddr = explicitAddr || f.Name == "addr" })
	var errs []error
	if err := checkLoopback(c.addr, explicitAddr, c.allowRemote); err != nil {
		errs = append(errs, err)
	}
	w, h, ok := strings.Cut(size, "x")
	c.cols, _ = strconv.Atoi(w)
	c.rows, _ = strconv.Atoi(h)
	if !ok || c.cols < 20 || c.rows < 10 || c.cols > 400 || c.rows > 200 {
		errs = append(errs, fmt.Errorf("--size %q: want COLSxROWS between 20x10 and 400x200", size))
	}
	for s := range strings.SplitSeq(sources, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		ip := net.ParseIP(s)
		switch {
		case ip == nil:
			errs = append(errs, fmt.Errorf("--source-addrs: %q is not an IP address", s))
		case !ip.IsLoopback() && !c.allowRemote:
			errs = append(errs, fmt.Errorf("--source-addrs: %s is not a loopback address", s))
		default:
			c.sourceAddrs = append(c.sourceAddrs, ip)
		}
	}
	if c.mode != modeQueue && c.mode != modeRooms && c.mode != modeStorm && c.mode != modeWatch && c.mode != modeLobby {
		errs = append(errs, fmt.Errorf("--mode %q: want queue, rooms, watch, lobby or storm", c.mode))
	}
	if c.mode == modeLobby && (c.baseline || c.compare) {
		// The baseline server streams frames: nothing idle to compare with.
		errs = append(errs, errors.New("--mode lobby: no --baseline or --compare (the baseline streams frames; an idle lobby has none)"))
	}
	if c.mode == modeWatch && c.game != gamePong {
		errs = append(errs, errors.New("--mode watch: watchers of pong rooms only (--game pong)"))
	}
	if c.watchRooms < 1 || c.watchRooms > 1000 {
		errs = append(errs, errors.New("--watch-rooms must be 1–1000"))
	}
	switch c.game {
	case gamePong:
		c.queue, c.gamePresses = "pong-1v1", 0
		c.roomSize = cmp.Or(c.roomSize, 2)
		c.targetFPS = cmp.Or(c.targetFPS, 30)
		if c.roomSize != 2 {
			errs = append(errs, errors.New("--room-size: pong rooms are 1v1 pairs (2)"))
		}
	case gameTron:
		c.queue, c.roomMode, c.gamePresses = "tron-ffa", "tron", 1
		c.roomSize = cmp.Or(c.roomSize, 8)
		c.targetFPS = cmp.Or(c.targetFPS, 20)
		if c.roomSize < 2 || c.roomSize > 8 {
			errs = append(errs, errors.New("--room-size: light-cycle rooms seat 2–8"))
		}
	default:
		errs = append(errs, fmt.Errorf("--game %q: want pong or tron", c.game))
	}
	if c.stormFresh && c.mode != modeStorm {
		errs = append(errs, errors.New("--storm-fresh needs --mode storm"))
	}
	if c.stormKeys < 0 || c.stormKeys > 1000000 {
		errs = append(errs, errors.New("--storm-keys must be 0–1000000"))
	}
	if c.metricsURL != "" {
		if err := checkMetricsURL(c.metricsURL, c.allowRemote); err != nil {
			errs = append(errs, err)
		}
	}
	if c.players < 1 || c.players > 100000 {
		errs = append(errs, errors.New("--players must be 1–100000"))
	}
	if c.ramp <= 0 {
		errs = append(errs, errors.New("--ramp must be positive"))
	}
	if c.duration <= 0 || c.duration > 24*time.Hour {
		errs = append(errs, errors.New("--duration must be positive and at most 24h"))
	}
	if c.keysPerSec < 0 || c.keysPerSec > 60 {
		errs = append(errs, errors.New("--keys-per-sec must be 0–60"))
	}
	if c.verify < 0 {
		errs = append(errs, errors.New("--verify must not be negative"))
	}
	if c.baselineFPS < 1 || c.baselineFPS > 1000 || c.baselineBytes < 4 || c.baselineBytes > 1<<20 {
		errs = append(errs, errors.New("--baseline-fps must be 1–1000 and --baseline-bytes 4–1048576"))
	}
	if c.targetFPS < 1 || c.targetFPS > 1000 {
		errs = append(errs, errors.New("--target-fps must be 1–1000"))
	}
	if c.baseline && c.compare {
		errs = append(errs, errors.New("--baseline and --compare exclude each other"))
	}
	if strings.Trim(c.baselineCPUs, "0123456789,-") != "" {
		errs = append(errs, fmt.Errorf("--baseline-cpus %q: want a CPU list such as 0 or 0-1", c.baselineCPUs))
	}
	if c.namePrefix != "" && !validPrefix(c.namePrefix) {
		errs = append(errs, errors.New("--name-prefix: 1–8 characters of a-z 0-9, starting with a letter"))
	}
	return c, errors.Join(errs...)
}

// checkLoopback refuses targets off this machine unless the user both
// named the address and said they mean it: a load tool pointed at someone
// else's server by a default or a typo is an attack.
func checkLoopback(addr string, explicit, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %v", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	if explicit && allowRemote {
		return nil
	}
	return fmt.Errorf("--addr %s is not a loopback address; to load a remote server pass --addr explicitly with --allow-remote", addr)
}

func validPrefix(s string) bool {
	if len(s) > 8 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

func realMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "termarena-load:", err)
		return 2
	}
	if c.serveBaseline != "" {
		if err := serveBaselineProcess(ctx, c, stdin, stdout); err != nil {
			fmt.Fprintln(stderr, "termarena-load: baseline server:", err)
			return 1
		}
		return 0
	}
	lines := stdout
	if c.json {
		lines = stderr
	}
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			fmt.Fprintln(stderr, "termarena-load:", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(stderr, "termarena-load:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	rep, err := runAll(ctx, c, lines, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "termarena-load:", err)
		return 1
	}
	if c.json {
		if err := writeJSON(stdout, rep); err != nil {
			fmt.Fprintln(stderr, "termarena-load:", err)
			return 1
		}
	}
	return 0
}
