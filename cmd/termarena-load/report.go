package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// sample is one second of a run. Counts marked "cumulative" are totals
// since the start; the others cover the second that ended at T.
type sample struct {
	T             float64 `json:"t"` // seconds since the start
	Connected     int     `json:"connected"`
	InGame        int     `json:"in_game"`
	Live          int     `json:"live"`
	Frames        uint64  `json:"frames"`
	FPS           float64 `json:"frames_per_sec"`
	FPSPerInGame  float64 `json:"fps_per_in_game_session"`
	FullSessions  int     `json:"live_window_sessions"`
	FPSPerGame    float64 `json:"fps_per_live_session"`
	BytesPerSec   float64 `json:"bytes_per_sec"`
	BytesPerFrame float64 `json:"bytes_per_frame"`
	VerifyOK      uint64  `json:"verify_ok"`     // cumulative
	VerifyFailed  uint64  `json:"verify_failed"` // cumulative
	ConnErrors    uint64  `json:"connect_errors"`
	Dropped       int     `json:"dropped"` // cumulative
	ServerCores   float64 `json:"server_cpu_cores,omitempty"`
	ToolCores     float64 `json:"tool_cpu_cores"`
	// ToolSchedP99 is how long the tool's runnable goroutines waited to
	// run (p99 over the second, ms; -1 none); ClientBound marks a second
	// the tool, not the server, limited (census.go).
	ToolSchedP99 float64 `json:"tool_sched_p99_ms"`
	ClientBound  bool    `json:"client_bound,omitempty"`
	// ToolGoroutines: the tool's, at the end of the second.
	ToolGoroutines int `json:"tool_goroutines"`
	// Watch mode: watchers connected, on the board, live, and bytes/s
	// per watcher connected (the other fields count watchers too).
	Watchers         int     `json:"watchers,omitempty"`
	WatchersInGame   int     `json:"watchers_in_game,omitempty"`
	WatchersLive     int     `json:"watchers_live,omitempty"`
	WatchBytesPerSec float64 `json:"bytes_per_sec_per_watcher,omitempty"`
	// Storm is --mode storm's second; Server the server's memory
	// (--server-pid, --metrics) and telemetry (--metrics).
	Storm  *stormSample  `json:"storm,omitempty"`
	Server *serverSample `json:"server,omitempty"`

	// Cumulative figures for steady-state sums; not printed.
	totFrames   uint64
	totSessions uint64
	sessSecs    float64 // connected sessions × seconds, cumulative
	srvWake     uint64  // the server's context switches since the start
	srvWakeOK   bool
	srvCPU      time.Duration
	toolCPU     time.Duration
	at          time.Time
}

// stormSample is one second of a login storm.
type stormSample struct {
	Completed uint64     `json:"completed"`
	PerSec    float64    `json:"sessions_per_sec"`
	Failed    uint64     `json:"failed"`
	P50       *float64   `json:"latency_p50_ms,omitempty"`
	P99       *float64   `json:"latency_p99_ms,omitempty"`
	Failures  failCounts `json:"failures_total"` // cumulative
}

// serverSample is the server as seen at the end of a second: memory from
// /proc (--server-pid) or the metrics, and what the metrics say happened
// during the second (differences of the server's cumulative counters and
// histograms between two scrapes). Absent fields were not available.
type serverSample struct {
	RSS             uint64   `json:"rss_bytes,omitempty"`
	HeapInuse       uint64   `json:"heap_inuse_bytes,omitempty"`
	Goroutines      int      `json:"goroutines,omitempty"`
	Sessions        *int     `json:"sessions,omitempty"`
	InputToFrameP99 *float64 `json:"input_to_frame_p99_ms,omitempty"`
	TickLatenessP99 *float64 `json:"tick_lateness_p99_ms,omitempty"`
	FrameWriteP99   *float64 `json:"frame_write_p99_ms,omitempty"`
	FramesWritten   *uint64  `json:"frames_written,omitempty"`
	FramesSkipped   *uint64  `json:"frames_skipped,omitempty"`
	Logins          *uint64  `json:"logins,omitempty"`
	ScrapeFailed    bool     `json:"scrape_failed,omitempty"`
}

// cpuFigures is a process's CPU over an interval.
type cpuFigures struct {
	Seconds      float64 `json:"cpu_seconds"`
	Cores        float64 `json:"cores"`        // CPU seconds per second
	UsPerFrame   float64 `json:"us_per_frame"` // CPU µs per frame received
	SteadyCores  float64 `json:"steady_cores"` // from 5 s after the last bot started
	SteadyUs     float64 `json:"steady_us_per_frame"`
	SteadyFrames uint64  `json:"steady_frames"`
	SteadySecs   float64 `json:"steady_seconds"`
	// Storm mode: CPU µs per session completed.
	UsPerSession       float64 `json:"us_per_session,omitempty"`
	SteadyUsPerSession float64 `json:"steady_us_per_session,omitempty"`
	SteadySessions     uint64  `json:"steady_sessions,omitempty"`
	// CPU µs per connected session-second: what a session costs by just
	// being there (the figure for --mode lobby, where no frames are due).
	UsPerSessionSec       float64 `json:"us_per_session_second,omitempty"`
	SteadyUsPerSessionSec float64 `json:"steady_us_per_session_second,omitempty"`
}

// stormSummary is a login storm's outcome. Counts stop at the end of the
// duration; "steady" is the same part of the run as the CPU figures'.
type stormSummary struct {
	FreshKeys       bool       `json:"fresh_keys"`
	Completed       uint64     `json:"completed"`
	Failed          uint64     `json:"failed"`
	Failures        failCounts `json:"failures"`
	PerSec          float64    `json:"sessions_per_sec"`
	SteadyPerSec    float64    `json:"steady_sessions_per_sec"`
	SteadySeconds   float64    `json:"steady_seconds"`
	SteadyCompleted uint64     `json:"steady_completed"`
	SteadyFailed    uint64     `json:"steady_failed"`
	Latency         latStats   `json:"latency"`
	SteadyLatency   latStats   `json:"steady_latency"`
	KeysMade        int        `json:"fresh_keys_made,omitempty"`
	KeysUsed        int        `json:"fresh_keys_used,omitempty"`
	KeysRanOutAt    float64    `json:"fresh_keys_ran_out_at,omitempty"` // seconds into the run
}

// memSummary is the server's memory before the first bot connected and
// at the end of the run, and what each session connected at the end
// costs: (end − before) ÷ sessions. RSS comes from /proc with
// --server-pid, else from the metrics; heap and goroutines from the
// metrics only.
type memSummary struct {
	RSSSource        string   `json:"rss_source,omitempty"` // "proc" or "metrics"
	RSSBefore        uint64   `json:"rss_before_bytes,omitempty"`
	RSSEnd           uint64   `json:"rss_end_bytes,omitempty"`
	HeapBefore       uint64   `json:"heap_inuse_before_bytes,omitempty"`
	HeapEnd          uint64   `json:"heap_inuse_end_bytes,omitempty"`
	GoroutinesBefore int      `json:"goroutines_before,omitempty"`
	GoroutinesEnd    int      `json:"goroutines_end,omitempty"`
	Sessions         int      `json:"sessions"`                  // the tool's sessions connected at the end
	ServerSessions   *int     `json:"server_sessions,omitempty"` // termarena_sessions at the end
	RSSPerSession    *float64 `json:"rss_per_session_bytes,omitempty"`
	HeapPerSession   *float64 `json:"heap_per_session_bytes,omitempty"`
	// (end − before) ÷ sessions, from the server's go_goroutines: the
	// SSH libraries' goroutines per connection included.
	GoroutinesPerSession *float64 `json:"goroutines_per_session,omitempty"`
}

// wakeSummary is how often the server's threads woke over the steady
// part (--server-pid, Linux): context switches, voluntary and not, summed
// over its threads (switchesOf). An idle server still wakes a few times a
// second (the Go runtime's sysmon, the store); what idle sessions add
// shows per session-second.
type wakeSummary struct {
	SteadySecs     float64 `json:"steady_seconds"`
	Switches       uint64  `json:"steady_switches"`
	PerSec         float64 `json:"steady_per_sec"`
	PerSessionSec  float64 `json:"steady_per_session_second"`
	SessionSeconds float64 `json:"steady_session_seconds"`
}

// telSummary is the server's telemetry over the steady part of the run
// (--metrics). Latencies are quantiles of the difference of the server's
// cumulative histograms, interpolated inside buckets.
type telSummary struct {
	URL              string   `json:"url"`
	Scrapes          int      `json:"scrapes"`
	ScrapeFailures   int      `json:"scrape_failures"`
	ScrapeError      string   `json:"first_scrape_error,omitempty"`
	SteadySeconds    float64  `json:"steady_seconds"`
	IntervalsSkipped int      `json:"intervals_skipped,omitempty"`
	InputToFrameN    uint64   `json:"input_to_frame_count"`
	InputToFrameP50  *float64 `json:"input_to_frame_p50_ms,omitempty"`
	InputToFrameP99  *float64 `json:"input_to_frame_p99_ms,omitempty"`
	TickLatenessN    uint64   `json:"tick_lateness_count"`
	TickLatenessP99  *float64 `json:"tick_lateness_p99_ms,omitempty"`
	LatenessSkipped  int      `json:"tick_lateness_intervals_skipped,omitempty"`
	FrameWriteP99    *float64 `json:"frame_write_p99_ms,omitempty"`
	FramesWritten    uint64   `json:"frames_written"`
	FramesSkipped    uint64   `json:"frames_skipped"`
	FramesPerSec     float64  `json:"frames_written_per_sec"`
	MeanFrameBytes   float64  `json:"mean_frame_bytes,omitempty"`
	Logins           uint64   `json:"logins"`
	LoginsPerSec     float64  `json:"logins_per_sec"`
}

type fpsStats struct {
	Min  float64 `json:"min"`
	P1   float64 `json:"p1"`
	P5   float64 `json:"p5"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

type summary struct {
	Players        int           `json:"players"`
	Started        int           `json:"started"`
	ConnectedPeak  int           `json:"connected_peak"`
	ReachedGame    int           `json:"reached_game"`
	GameNoFrames   int           `json:"reached_game_without_frames"`
	ConnectErrors  uint64        `json:"connect_errors"`
	Errors         []string      `json:"errors,omitempty"`
	Dropped        int           `json:"dropped"`
	Seconds        float64       `json:"seconds"`
	TotalFrames    uint64        `json:"total_frames"`
	TotalBytes     uint64        `json:"total_bytes"`
	FrameBytes     uint64        `json:"frame_bytes"`
	BytesPerFrame  float64       `json:"bytes_per_frame"`
	SessionSeconds int           `json:"session_seconds"` // full one-second windows on the board
	FPS            fpsStats      `json:"fps"`
	OnSchedule     float64       `json:"frames_on_schedule"`
	TargetFPS      int           `json:"target_fps"`
	VerifyOK       uint64        `json:"verify_ok"`
	VerifyFailed   uint64        `json:"verify_failed"`
	VerifyFailure  string        `json:"verify_first_failure,omitempty"`
	VerifiedBots   int           `json:"verified_sessions"`
	Server         *cpuFigures   `json:"server_cpu,omitempty"`
	Tool           *cpuFigures   `json:"tool_cpu,omitempty"`
	Storm          *stormSummary `json:"storm,omitempty"`
	ServerMemory   *memSummary   `json:"server_memory,omitempty"`
	ServerWakeups  *wakeSummary  `json:"server_wakeups,omitempty"`
	Telemetry      *telSummary   `json:"server_telemetry,omitempty"`
	Matches        *matchSummary `json:"matches,omitempty"`
	PlayShare      *shareSummary `json:"play_share,omitempty"`
	Watch          *watchSummary `json:"watch,omitempty"`
	ClientBound    *clientBound  `json:"client_bound,omitempty"`
}

type result struct {
	Target   string   `json:"target"`
	Mode     string   `json:"mode"`
	Players  int      `json:"players"`
	Ramp     float64  `json:"ramp"`
	Duration string   `json:"duration"`
	Size     string   `json:"size"`
	Keys     float64  `json:"keys_per_sec"`
	PID      int      `json:"server_pid,omitempty"`
	Summary  summary  `json:"summary"`
	Samples  []sample `json:"samples"`
	label    string
	storm    bool
}

type report struct {
	Termarena *result `json:"termarena,omitempty"`
	Baseline  *result `json:"baseline,omitempty"`
}

func writeJSON(w io.Writer, rep *report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// recorder turns the bots' counters into per-second samples. Only the run
// goroutine calls it.
type recorder struct {
	r         *runner
	ctx       context.Context
	spawnedAt atomic.Int64 // UnixNano when the last bot was started
	last      time.Time
	samples   []sample
	rates     []float64 // frames/s of every full session-second
	// watchRates: the same for watchers (--mode watch), kept apart
	watchRates  []float64
	sched       *schedLatency // the tool's own scheduling latency
	wasBound    bool          // the last second was client-bound
	goroutines0 int           // the tool's before the first bot
	peakConn    int
	srv0        time.Duration
	tool0       time.Duration
	srvOK       bool
	toolOK      bool
	wake0       uint64 // the server's context switches before the first bot
	wakeOK      bool

	// The steady part starts at samples[steadyIdx] (-1: not yet), the
	// first sample at least steadyAfter after the last bot started.
	steadyIdx int
	steadyAt  time.Time

	// Storm mode.
	latPrev     latSnap
	failPrev    failCounts
	latSteady0  latSnap
	failSteady0 failCounts

	// Server memory and telemetry.
	rss0        uint64 // /proc, before the first bot
	rss0OK      bool
	scr         *scraper
	telBefore   *metricsScrape // before the first bot
	telPrev     *metricsScrape // the last good scrape
	telSteady   telAcc
	scrapes     int
	scrapeFails int
	scrapeErr   string
}

// steadyAfter is how long after the last bot started the steady part
// begins: handshakes done, matches made.
const steadyAfter = 5 * time.Second

// newRecorder reads the "before" figures: CPU, and the server's memory
// before the first bot connects (one scrape with --metrics).
func newRecorder(ctx context.Context, r *runner) *recorder {
	rec := &recorder{r: r, ctx: ctx, steadyIdx: -1}
	if r.pid > 0 {
		rec.srv0, rec.srvOK = cpuOf(r.pid)
		rec.rss0, rec.rss0OK = rssOf(r.pid)
		rec.wake0, rec.wakeOK = switchesOf(r.pid)
	}
	rec.tool0, rec.toolOK = cpuOf(os.Getpid())
	rec.sched = newSchedLatency()
	rec.goroutines0 = runtime.NumGoroutine()
	if r.cfg.metricsURL != "" && !r.baseline {
		rec.scr = newScraper(r.cfg.metricsURL)
		m, err := rec.scr.scrape(ctx, 2*time.Second)
		rec.noteScrape(err)
		if err == nil {
			rec.telBefore, rec.telPrev = m, m
		}
	}
	return rec
}

func (rec *recorder) noteScrape(err error) {
	rec.scrapes++
	if err != nil {
		rec.scrapeFails++
		if rec.scrapeErr == "" {
			rec.scrapeErr = err.Error()
		}
	}
}

func (rec *recorder) close() {
	if rec.scr != nil {
		rec.scr.close()
	}
}

func (rec *recorder) storm() bool { return rec.r.storm != nil }

// rssShown says whether lines carry the server's RSS.
func (rec *recorder) rssShown() bool { return rec.r.pid > 0 || rec.scr != nil }

func (rec *recorder) header(w io.Writer) {
	r := rec.r
	target, mode := r.label+" "+r.addr, "mode "+r.cfg.mode
	if r.baseline {
		target = fmt.Sprintf("baseline %s (%d B frames at %d fps)", r.addr, r.cfg.baselineBytes, r.cfg.baselineFPS)
		mode = "one session per bot"
		if rec.storm() {
			target, mode = "baseline "+r.addr, "storm (whoami)"
		}
	}
	if rec.storm() {
		keys := "each bot reuses its key (returning players)"
		if r.storm.pool != nil {
			keys = fmt.Sprintf("a new key every session (%d made)", len(r.storm.pool.keys))
		}
		fmt.Fprintf(w, "# %s: %d concurrent bots, ramp %g/s, %s, %s, %s\n",
			target, r.cfg.players, r.cfg.ramp, r.cfg.duration, mode, keys)
		fmt.Fprintf(w, "%6s %6s %7s %6s %7s %7s %6s %6s %6s %8s",
			"time", "active", "done/s", "fail/s", "p50 ms", "p99 ms", "ipcap", "hshake", "other", "srv cpu")
	} else {
		fmt.Fprintf(w, "# %s: %d players, ramp %g/s, %s, %s, %dx%d, %g keys/s, verify %d\n",
			target, r.cfg.players, r.cfg.ramp, r.cfg.duration, mode, r.cfg.cols, r.cfg.rows, r.cfg.keysPerSec, rec.verified())
		fmt.Fprintf(w, "%6s %6s %6s %6s %9s %8s %8s %9s %8s %11s %6s %7s %8s",
			"time", "conn", "game", "live", "frames/s", "fps/game", "fps/live", "bytes/s", "B/frame", "verify", "errors", "dropped", "srv cpu")
	}
	if rec.rssShown() {
		fmt.Fprintf(w, " %8s", "srv rss")
	}
	if rec.scr != nil {
		if rec.storm() {
			fmt.Fprintf(w, " %7s", "gorout")
		} else {
			fmt.Fprintf(w, " %8s %8s", "i→f p99", "late p99")
		}
	}
	fmt.Fprintln(w)
	if rec.scr != nil && rec.telBefore == nil {
		fmt.Fprintf(w, "# metrics: the scrape before the first bot failed (%s): no per-session memory figures\n", rec.scrapeErr)
	}
}

func (rec *recorder) verified() int {
	n := 0
	for _, b := range rec.r.bots {
		if b.verify {
			n++
		}
	}
	return n
}

func (rec *recorder) sample(now time.Time, w io.Writer) {
	win := now.Sub(rec.last)
	if win <= 0 {
		return
	}
	winStart := rec.last.UnixNano()
	rec.last = now
	secs := win.Seconds()
	s := sample{T: now.Sub(rec.r.start).Seconds(), at: now}
	if rec.storm() {
		rec.stormSample(&s, secs)
	} else {
		rec.gameSample(&s, now, winStart, win)
	}
	s.ConnErrors = rec.r.connErrs.Load()
	prev := rec.prevCPU()
	s.sessSecs = prev.sessSecs + float64(s.Connected)*secs
	if rec.srvOK {
		if c, ok := cpuOf(rec.r.pid); ok {
			s.srvCPU = c - rec.srv0
			s.ServerCores = (s.srvCPU - prev.srvCPU).Seconds() / secs
		}
	}
	if rec.wakeOK {
		if n, ok := switchesOf(rec.r.pid); ok && n >= rec.wake0 {
			s.srvWake, s.srvWakeOK = n-rec.wake0, true
		}
	}
	if rec.toolOK {
		if c, ok := cpuOf(os.Getpid()); ok {
			s.toolCPU = c - rec.tool0
			s.ToolCores = (s.toolCPU - prev.toolCPU).Seconds() / secs
		}
	}
	rec.noteBound(&s, w)
	rec.peakConn = max(rec.peakConn, s.Connected)
	if sp := rec.spawnedAt.Load(); rec.steadyIdx < 0 && sp != 0 && !now.Before(time.Unix(0, sp).Add(steadyAfter)) {
		rec.steadyIdx, rec.steadyAt = len(rec.samples), now
		rec.latSteady0, rec.failSteady0 = rec.latPrev, rec.failPrev
	}
	// The server is read last, so that a slow scrape does not skew the
	// bots' figures for the second.
	rec.serverSample(&s)
	rec.samples = append(rec.samples, s)
	if rec.storm() {
		rec.printStorm(w, &s)
	} else {
		rec.printGame(w, &s)
	}
}

// gameSample reads the bots' frame counters (queue and rooms modes, and
// the baseline).
func (rec *recorder) gameSample(s *sample, now time.Time, winStart int64, win time.Duration) {
	var dBytes, dFrameBytes, fullFrames, gameFrames, watchBytes uint64
	for _, b := range rec.r.bots {
		f, fb, by := b.frames.Load(), b.frameBytes.Load(), b.bytes.Load()
		df := f - b.lastFrames
		dFrameBytes += fb - b.lastFrameBytes
		dBytes += by - b.lastBytes
		if b.watcher {
			watchBytes += by - b.lastBytes
		}
		b.lastFrames, b.lastFrameBytes, b.lastBytes = f, fb, by
		s.Frames += df
		s.totFrames += f
		s.VerifyOK += b.verifyOK.Load()
		s.VerifyFailed += b.verifyBad.Load()
		if b.dropped.Load() {
			s.Dropped++
		}
		if !b.connected.Load() {
			continue
		}
		s.Connected++
		if b.watcher {
			s.Watchers++
		}
		if b.playSince.Load() != 0 {
			s.InGame++
			gameFrames += df
			if b.watcher {
				s.WatchersInGame++
			}
		}
		if from := b.liveFrom.Load(); from != 0 && from <= now.UnixNano() {
			s.Live++
			if b.watcher {
				s.WatchersLive++
			}
			if from <= winStart {
				s.FullSessions++
				fullFrames += df
				if b.watcher {
					rec.watchRates = append(rec.watchRates, float64(df)/win.Seconds())
				} else {
					rec.rates = append(rec.rates, float64(df)/win.Seconds())
				}
			}
		}
	}
	if s.Watchers > 0 {
		s.WatchBytesPerSec = float64(watchBytes) / float64(s.Watchers) / win.Seconds()
	}
	secs := win.Seconds()
	s.FPS = float64(s.Frames) / secs
	s.BytesPerSec = float64(dBytes) / secs
	if s.Frames > 0 {
		s.BytesPerFrame = float64(dFrameBytes) / float64(s.Frames)
	}
	if s.FullSessions > 0 {
		s.FPSPerGame = float64(fullFrames) / float64(s.FullSessions) / secs
	}
	if s.InGame > 0 {
		s.FPSPerInGame = float64(gameFrames) / float64(s.InGame) / secs
	}
}

// stormSample reads the storm's latency histogram and failure counters.
// Connected counts bots in the middle of a session.
func (rec *recorder) stormSample(s *sample, secs float64) {
	st := rec.r.storm
	snap := st.lat.snapshot()
	fails := st.failures()
	d := snap.minus(rec.latPrev)
	ss := &stormSample{Completed: d.count(), Failed: fails.total() - rec.failPrev.total(), Failures: fails}
	ss.PerSec = float64(ss.Completed) / secs
	if v, ok := d.quantile(0.5); ok {
		ss.P50 = ms(v.Seconds(), true)
	}
	if v, ok := d.quantile(0.99); ok {
		ss.P99 = ms(v.Seconds(), true)
	}
	rec.latPrev, rec.failPrev = snap, fails
	s.totSessions = snap.count()
	for _, b := range rec.r.bots {
		if b.connected.Load() {
			s.Connected++
		}
	}
	s.Storm = ss
}

// serverSample reads the server's RSS from /proc and scrapes its metrics.
// A failed scrape is noted, never fatal; the next good one covers both
// seconds.
func (rec *recorder) serverSample(s *sample) {
	if !rec.rssShown() {
		return
	}
	ss := &serverSample{}
	s.Server = ss
	if rec.r.pid > 0 {
		ss.RSS, _ = rssOf(rec.r.pid)
	}
	if rec.scr == nil {
		return
	}
	m, err := rec.scr.scrape(rec.ctx, scrapeTimeout)
	rec.noteScrape(err)
	if err != nil {
		ss.ScrapeFailed = true
		return
	}
	if v, ok := m.value(mRSS); ok && ss.RSS == 0 {
		ss.RSS = uint64(v)
	}
	if v, ok := m.value(mHeapInuse); ok {
		ss.HeapInuse = uint64(v)
	}
	if v, ok := m.value(mGoroutines); ok {
		ss.Goroutines = int(v)
	}
	if v, ok := m.value(mSessions); ok {
		n := int(v)
		ss.Sessions = &n
	}
	if prev := rec.telPrev; prev != nil {
		d := diffScrapes(prev, m)
		if d.latencyOK {
			ss.InputToFrameP99 = ms(d.inputToFrame.quantile(0.99))
			ss.FrameWriteP99 = ms(d.frameWrite.quantile(0.99))
		}
		if d.latenessOK {
			ss.TickLatenessP99 = ms(d.lateness.quantile(0.99))
		}
		if d.countersOK {
			w, sk, l := uint64(d.written), uint64(d.skipped), uint64(d.logins)
			ss.FramesWritten, ss.FramesSkipped, ss.Logins = &w, &sk, &l
		}
		// Only intervals that start inside the steady part count for it.
		if rec.steadyIdx >= 0 && !prev.at.Before(rec.steadyAt) {
			rec.telSteady.add(d)
		}
	}
	rec.telPrev = m
}

func (rec *recorder) serverCols(w io.Writer, s *sample) {
	if !rec.rssShown() {
		return
	}
	ss := s.Server
	rss := "-"
	if ss.RSS > 0 {
		rss = human1024(float64(ss.RSS))
	}
	fmt.Fprintf(w, " %8s", rss)
	if rec.scr == nil {
		return
	}
	if ss.ScrapeFailed {
		if rec.storm() {
			fmt.Fprintf(w, " %7s", "scrape!")
		} else {
			fmt.Fprintf(w, " %8s %8s", "scrape", "failed")
		}
		return
	}
	if rec.storm() {
		fmt.Fprintf(w, " %7d", ss.Goroutines)
		return
	}
	fmt.Fprintf(w, " %8s %8s", msCell(ss.InputToFrameP99, 1), msCell(ss.TickLatenessP99, 2))
}

func msCell(v *float64, prec int) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', prec, 64) + "ms"
}

func (rec *recorder) printGame(w io.Writer, s *sample) {
	perGame, perLive, bpf, cpu := "-", "-", "-", "-"
	if s.InGame > 0 {
		perGame = fmt.Sprintf("%.1f", s.FPSPerInGame)
	}
	if s.FullSessions > 0 {
		perLive = fmt.Sprintf("%.1f", s.FPSPerGame)
	}
	if s.Frames > 0 {
		bpf = fmt.Sprintf("%.1f", s.BytesPerFrame)
	}
	if rec.srvOK {
		cpu = fmt.Sprintf("%.0f%%", 100*s.ServerCores)
	}
	fmt.Fprintf(w, "%5.0fs %6d %6d %6d %9.0f %8s %8s %9s %8s %11s %6d %7d %8s",
		s.T, s.Connected, s.InGame, s.Live, s.FPS, perGame, perLive, human(s.BytesPerSec), bpf,
		fmt.Sprintf("%d/%d", s.VerifyOK, s.VerifyFailed), s.ConnErrors, s.Dropped, cpu)
	rec.serverCols(w, s)
	fmt.Fprintln(w)
}

func (rec *recorder) printStorm(w io.Writer, s *sample) {
	st, cpu := s.Storm, "-"
	if rec.srvOK {
		cpu = fmt.Sprintf("%.0f%%", 100*s.ServerCores)
	}
	lat := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return strconv.FormatFloat(*v, 'f', 1, 64)
	}
	fmt.Fprintf(w, "%5.0fs %6d %7.0f %6d %7s %7s %6d %6d %6d %8s",
		s.T, s.Connected, st.PerSec, st.Failed, lat(st.P50), lat(st.P99),
		st.Failures.PerIPCap, st.Failures.Handshake, st.Failures.other(), cpu)
	rec.serverCols(w, s)
	fmt.Fprintln(w)
}

func (rec *recorder) prevCPU() sample {
	if n := len(rec.samples); n > 0 {
		return rec.samples[n-1]
	}
	return sample{}
}

// steady returns the first and last samples of the steady part, or false
// when it is shorter than 3 s.
func (rec *recorder) steady() (first, last sample, ok bool) {
	n := len(rec.samples)
	if n == 0 || rec.steadyIdx < 0 || rec.steadyIdx >= n {
		return sample{}, sample{}, false
	}
	first, last = rec.samples[rec.steadyIdx], rec.samples[n-1]
	return first, last, last.at.Sub(first.at) >= 3*time.Second
}

func (rec *recorder) result() *result {
	r, c := rec.r, rec.r.cfg
	res := &result{
		Target: r.addr, Mode: c.mode, Players: c.players, Ramp: c.ramp, Duration: c.duration.String(),
		Size: fmt.Sprintf("%dx%d", c.cols, c.rows), Keys: c.keysPerSec, PID: r.pid, Samples: rec.samples, label: r.label,
		storm: rec.storm(),
	}
	if r.baseline {
		res.Target = fmt.Sprintf("baseline %s (%d B at %d fps)", r.addr, c.baselineBytes, c.baselineFPS)
		res.Mode = "baseline"
		if rec.storm() {
			res.Target, res.Mode = "baseline "+r.addr, "baseline storm"
		}
	}
	s := &res.Summary
	s.Players, s.Started, s.ConnectedPeak = c.players, int(r.started.Load()), rec.peakConn
	s.ConnectErrors, s.Errors = r.connErrs.Load(), r.errs.list()
	s.TargetFPS = c.targetFPS
	if r.baseline {
		s.TargetFPS = c.baselineFPS
	}
	for _, b := range r.bots {
		s.TotalFrames += b.frames.Load()
		s.TotalBytes += b.bytes.Load()
		s.FrameBytes += b.frameBytes.Load()
		s.VerifyOK += b.verifyOK.Load()
		s.VerifyFailed += b.verifyBad.Load()
		if b.reached.Load() {
			s.ReachedGame++
			if b.frames.Load() == 0 {
				s.GameNoFrames++
			}
		}
		if b.dropped.Load() {
			s.Dropped++
		}
		if b.verify {
			s.VerifiedBots++
		}
		if f := b.failScreen.Load(); f != nil && s.VerifyFailure == "" {
			s.VerifyFailure = *f
		}
	}
	if n := len(rec.samples); n > 0 {
		s.Seconds = rec.samples[n-1].T
	}
	if s.TotalFrames > 0 {
		s.BytesPerFrame = float64(s.FrameBytes) / float64(s.TotalFrames)
	}
	rates := slices.Clone(rec.rates)
	slices.Sort(rates)
	s.SessionSeconds = len(rates)
	if len(rates) > 0 {
		sum, on := 0.0, 0
		need := 0.95 * float64(s.TargetFPS)
		for _, v := range rates {
			sum += v
			if v >= need {
				on++
			}
		}
		s.FPS = fpsStats{Min: rates[0], P1: percentile(rates, 1), P5: percentile(rates, 5), P50: percentile(rates, 50),
			P95: percentile(rates, 95), P99: percentile(rates, 99), Max: rates[len(rates)-1], Mean: sum / float64(len(rates))}
		s.OnSchedule = float64(on) / float64(len(rates))
	}
	if rec.srvOK {
		s.Server = rec.cpu(func(x sample) time.Duration { return x.srvCPU })
	}
	if rec.toolOK {
		s.Tool = rec.cpu(func(x sample) time.Duration { return x.toolCPU })
	}
	if rec.storm() {
		s.Storm = rec.stormSummary()
	}
	s.ServerMemory = rec.memSummary()
	s.ServerWakeups = rec.wakeSummary()
	s.Telemetry = rec.telSummary()
	if !rec.storm() {
		rec.census(s)
	}
	return res
}

// cpu sums a process's CPU over the whole run and over the steady part:
// from 5 s after the last bot started (handshakes done, matches made) to
// the end. Steady figures are left at zero when that part is shorter than
// 3 s.
func (rec *recorder) cpu(get func(sample) time.Duration) *cpuFigures {
	n := len(rec.samples)
	if n == 0 {
		return nil
	}
	last := rec.samples[n-1]
	f := &cpuFigures{Seconds: get(last).Seconds()}
	f.Cores = f.Seconds / last.T
	if last.totFrames > 0 {
		f.UsPerFrame = f.Seconds * 1e6 / float64(last.totFrames)
	}
	if last.totSessions > 0 {
		f.UsPerSession = f.Seconds * 1e6 / float64(last.totSessions)
	}
	if last.sessSecs > 0 {
		f.UsPerSessionSec = f.Seconds * 1e6 / last.sessSecs
	}
	first, last, ok := rec.steady()
	if !ok {
		return f
	}
	secs := last.at.Sub(first.at).Seconds()
	cpu := (get(last) - get(first)).Seconds()
	f.SteadySecs = secs
	f.SteadyCores = cpu / secs
	f.SteadyFrames = last.totFrames - first.totFrames
	if f.SteadyFrames > 0 {
		f.SteadyUs = cpu * 1e6 / float64(f.SteadyFrames)
	}
	f.SteadySessions = last.totSessions - first.totSessions
	if f.SteadySessions > 0 {
		f.SteadyUsPerSession = cpu * 1e6 / float64(f.SteadySessions)
	}
	if ss := last.sessSecs - first.sessSecs; ss > 0 {
		f.SteadyUsPerSessionSec = cpu * 1e6 / ss
	}
	return f
}

func (rec *recorder) wakeSummary() *wakeSummary {
	first, last, ok := rec.steady()
	if !ok || !rec.wakeOK || !first.srvWakeOK || !last.srvWakeOK || last.srvWake < first.srvWake {
		return nil
	}
	w := &wakeSummary{SteadySecs: last.at.Sub(first.at).Seconds(), Switches: last.srvWake - first.srvWake}
	w.PerSec = float64(w.Switches) / w.SteadySecs
	w.SessionSeconds = last.sessSecs - first.sessSecs
	if w.SessionSeconds > 0 {
		w.PerSessionSec = float64(w.Switches) / w.SessionSeconds
	}
	return w
}

func (rec *recorder) stormSummary() *stormSummary {
	st := rec.r.storm
	out := &stormSummary{FreshKeys: st.pool != nil}
	if st.pool != nil {
		out.KeysMade, out.KeysUsed = len(st.pool.keys), st.pool.used()
		if at := st.ranOut.Load(); at != 0 {
			out.KeysRanOutAt = time.Unix(0, at).Sub(rec.r.start).Seconds()
		}
	}
	n := len(rec.samples)
	if n == 0 {
		return out
	}
	last := rec.samples[n-1]
	// Counts as of the last sample, so that they match the lines.
	out.Failures = rec.failPrev
	out.Failed = rec.failPrev.total()
	out.Completed = last.totSessions
	out.Latency = rec.latPrev.stats(true)
	if last.T > 0 {
		out.PerSec = float64(out.Completed) / last.T
	}
	if first, last, ok := rec.steady(); ok {
		out.SteadySeconds = last.at.Sub(first.at).Seconds()
		out.SteadyCompleted = last.totSessions - first.totSessions
		out.SteadyFailed = rec.failPrev.total() - rec.failSteady0.total()
		out.SteadyPerSec = float64(out.SteadyCompleted) / out.SteadySeconds
		out.SteadyLatency = rec.latPrev.minus(rec.latSteady0).stats(false)
	}
	return out
}

// memSummary is nil when neither /proc nor the metrics said anything.
func (rec *recorder) memSummary() *memSummary {
	n := len(rec.samples)
	if n == 0 || !rec.rssShown() {
		return nil
	}
	last := rec.samples[n-1]
	m := &memSummary{}
	if !rec.storm() {
		m.Sessions = last.Connected
	}
	if rec.r.pid > 0 && rec.rss0OK {
		m.RSSSource, m.RSSBefore = "proc", rec.rss0
		if last.Server != nil {
			m.RSSEnd = last.Server.RSS
		}
	}
	before, end := rec.telBefore, rec.telPrev
	if end != nil && end != before {
		if m.RSSSource == "" {
			if v, ok := before.value(mRSS); ok {
				m.RSSSource, m.RSSBefore = "metrics", uint64(v)
			}
			if v, ok := end.value(mRSS); ok {
				m.RSSEnd = uint64(v)
			}
		}
		hb, _ := before.value(mHeapInuse)
		he, _ := end.value(mHeapInuse)
		gb, _ := before.value(mGoroutines)
		ge, _ := end.value(mGoroutines)
		m.HeapBefore, m.HeapEnd = uint64(hb), uint64(he)
		m.GoroutinesBefore, m.GoroutinesEnd = int(gb), int(ge)
		if v, ok := end.value(mSessions); ok {
			k := int(v)
			m.ServerSessions = &k
		}
	}
	if m.RSSSource == "" && m.HeapEnd == 0 {
		return nil
	}
	if v, ok := perSession(m.RSSBefore, m.RSSEnd, m.Sessions); ok {
		m.RSSPerSession = &v
	}
	if v, ok := perSession(m.HeapBefore, m.HeapEnd, m.Sessions); ok {
		m.HeapPerSession = &v
	}
	if m.GoroutinesEnd > 0 && m.Sessions > 0 {
		v := float64(m.GoroutinesEnd-m.GoroutinesBefore) / float64(m.Sessions)
		m.GoroutinesPerSession = &v
	}
	return m
}

func (rec *recorder) telSummary() *telSummary {
	if rec.scr == nil {
		return nil
	}
	t := &telSummary{URL: rec.scr.url, Scrapes: rec.scrapes, ScrapeFailures: rec.scrapeFails, ScrapeError: rec.scrapeErr}
	if _, _, ok := rec.steady(); !ok {
		return t
	}
	a := rec.telSteady
	t.SteadySeconds, t.IntervalsSkipped, t.LatenessSkipped = a.secs, a.intervalsSkipped, a.latenessSkipped
	t.InputToFrameN, t.TickLatenessN = uint64(a.inputToFrame.count()), uint64(a.lateness.count())
	t.InputToFrameP50 = ms(a.inputToFrame.quantile(0.5))
	t.InputToFrameP99 = ms(a.inputToFrame.quantile(0.99))
	t.TickLatenessP99 = ms(a.lateness.quantile(0.99))
	t.FrameWriteP99 = ms(a.frameWrite.quantile(0.99))
	t.FramesWritten, t.FramesSkipped, t.Logins = uint64(a.written), uint64(a.skipped), uint64(a.logins)
	if a.secs > 0 {
		t.FramesPerSec = a.written / a.secs
		t.LoginsPerSec = a.logins / a.secs
	}
	if a.frameObs > 0 {
		t.MeanFrameBytes = a.frameBytes / a.frameObs
	}
	return t
}

func human(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1fK", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// human1024 is a byte count in KiB, MiB or GiB (K, M, G), sign kept.
func human1024(v float64) string {
	a := v
	if a < 0 {
		a = -a
	}
	switch {
	case a >= 1<<30:
		return fmt.Sprintf("%.2fG", v/(1<<30))
	case a >= 1<<20:
		return fmt.Sprintf("%.1fM", v/(1<<20))
	case a >= 1<<10:
		return fmt.Sprintf("%.1fK", v/(1<<10))
	}
	return fmt.Sprintf("%.0f", v)
}

// printSummary prints each run's summary, side by side when there are two.
func printSummary(w io.Writer, rep *report) {
	var runs []*result
	for _, r := range []*result{rep.Termarena, rep.Baseline} {
		if r != nil {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return
	}
	storm := runs[0].storm
	lobby := runs[0].Mode == modeLobby
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(name string, f func(*result) string) {
		cells := []string{name}
		for _, r := range runs {
			cells = append(cells, f(r))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	// optRow prints a row only if some run has something for it.
	optRow := func(name string, f func(*result) string) {
		for _, r := range runs {
			if f(r) != "-" {
				row(name, f)
				return
			}
		}
	}
	row("summary", func(r *result) string { return r.label })
	row("target", func(r *result) string { return r.Target })
	if storm {
		stormRows(row, optRow)
	} else if lobby {
		// No frames are due in the lobby: the frame and match rows would
		// only be zeros.
		lobbyRows(row)
	} else {
		gameRows(row)
		censusRows(row, optRow)
	}
	cpuRows := func(name string, get func(*result) *cpuFigures) {
		row(name+" CPU cores (whole run)", func(r *result) string {
			if c := get(r); c != nil {
				return fmt.Sprintf("%.3f", c.Cores)
			}
			return "-"
		})
		unit, whole, steady := "frame", func(c *cpuFigures) float64 { return c.UsPerFrame }, func(c *cpuFigures) float64 { return c.SteadyUs }
		switch {
		case storm:
			unit, whole, steady = "session", func(c *cpuFigures) float64 { return c.UsPerSession }, func(c *cpuFigures) float64 { return c.SteadyUsPerSession }
		case lobby:
			unit, whole, steady = "session-second", func(c *cpuFigures) float64 { return c.UsPerSessionSec }, func(c *cpuFigures) float64 { return c.SteadyUsPerSessionSec }
		}
		row(name+" CPU µs/"+unit+" (whole run)", func(r *result) string {
			if c := get(r); c != nil {
				return fmt.Sprintf("%.1f", whole(c))
			}
			return "-"
		})
		row(name+" CPU cores (steady)", func(r *result) string {
			if c := get(r); c != nil && c.SteadySecs > 0 {
				return fmt.Sprintf("%.3f", c.SteadyCores)
			}
			return "-"
		})
		row(name+" CPU µs/"+unit+" (steady)", func(r *result) string {
			if c := get(r); c != nil && c.SteadySecs > 0 {
				return fmt.Sprintf("%.1f", steady(c))
			}
			return "-"
		})
	}
	cpuRows("server", func(r *result) *cpuFigures { return r.Summary.Server })
	cpuRows("tool", func(r *result) *cpuFigures { return r.Summary.Tool })
	memRows(optRow)
	optRow("server wakeups/s / per session-second (steady)", func(r *result) string {
		if w := r.Summary.ServerWakeups; w != nil {
			return fmt.Sprintf("%.0f / %.3f", w.PerSec, w.PerSessionSec)
		}
		return "-"
	})
	telRows(optRow, storm)
	_ = tw.Flush()
	for _, r := range runs {
		for _, e := range r.Summary.Errors {
			fmt.Fprintf(w, "%s error: %s\n", r.label, e)
		}
		if r.Summary.VerifyFailure != "" {
			fmt.Fprintf(w, "%s first verify failure: %s\n", r.label, r.Summary.VerifyFailure)
		}
		if t := r.Summary.Telemetry; t != nil && t.ScrapeError != "" {
			fmt.Fprintf(w, "%s metrics: %d of %d scrapes failed, first: %s\n", r.label, t.ScrapeFailures, t.Scrapes, t.ScrapeError)
		}
		if st := r.Summary.Storm; st != nil && st.KeysRanOutAt > 0 {
			fmt.Fprintf(w, "%s: the %d fresh keys ran out at %.1f s and the bots stopped; pass a larger --storm-keys\n", r.label, st.KeysMade, st.KeysRanOutAt)
		}
		if t := r.Summary.Tool; t != nil && t.SteadyCores > 0.9 {
			fmt.Fprintf(w, "%s: the tool used %.2f cores in the steady part: it may be what limits the figures\n", r.label, t.SteadyCores)
		}
		boundWarning(w, r)
	}
	if rep.Termarena != nil && rep.Termarena.Summary.Server == nil {
		fmt.Fprintln(w, "server CPU: pass --server-pid PID, or measure alongside: pidstat -p PID 1, or /proc/PID/stat fields 14+15 (utime+stime, 1/100 s) before and after")
	}
}

type rowFunc func(name string, f func(*result) string)

func lobbyRows(row rowFunc) {
	row("sessions started / peak connected", func(r *result) string {
		return fmt.Sprintf("%d / %d", r.Summary.Started, r.Summary.ConnectedPeak)
	})
	row("connect errors / dropped", func(r *result) string {
		return fmt.Sprintf("%d / %d", r.Summary.ConnectErrors, r.Summary.Dropped)
	})
	row("bytes received per session", func(r *result) string {
		if r.Summary.Started == 0 {
			return "-"
		}
		return human(float64(r.Summary.TotalBytes) / float64(r.Summary.Started))
	})
}

func gameRows(row rowFunc) {
	row("sessions started / peak connected", func(r *result) string {
		return fmt.Sprintf("%d / %d", r.Summary.Started, r.Summary.ConnectedPeak)
	})
	row("reached a game", func(r *result) string { return fmt.Sprint(r.Summary.ReachedGame) })
	row("connect errors / dropped", func(r *result) string {
		return fmt.Sprintf("%d / %d", r.Summary.ConnectErrors, r.Summary.Dropped)
	})
	row("total frames", func(r *result) string { return fmt.Sprint(r.Summary.TotalFrames) })
	row("mean bytes/frame", func(r *result) string { return fmt.Sprintf("%.1f", r.Summary.BytesPerFrame) })
	row("live session-seconds", func(r *result) string { return fmt.Sprint(r.Summary.SessionSeconds) })
	row("fps p1 / p5 / p50", func(r *result) string {
		f := r.Summary.FPS
		return fmt.Sprintf("%.1f / %.1f / %.1f", f.P1, f.P5, f.P50)
	})
	row("fps p95 / p99 / mean", func(r *result) string {
		f := r.Summary.FPS
		return fmt.Sprintf("%.1f / %.1f / %.1f", f.P95, f.P99, f.Mean)
	})
	row("frames on schedule (≥95% of target)", func(r *result) string {
		return fmt.Sprintf("%.1f%% of %d fps", 100*r.Summary.OnSchedule, r.Summary.TargetFPS)
	})
	row("verify ok / failed", func(r *result) string {
		if r.Summary.VerifiedBots == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%d / %d", r.Summary.VerifyOK, r.Summary.VerifyFailed)
	})
}

func stormRows(row, optRow rowFunc) {
	st := func(r *result) *stormSummary {
		if r.Summary.Storm != nil {
			return r.Summary.Storm
		}
		return &stormSummary{}
	}
	row("keys", func(r *result) string {
		s := st(r)
		if !s.FreshKeys {
			return "returning (one per bot)"
		}
		return fmt.Sprintf("fresh: %d of %d used", s.KeysUsed, s.KeysMade)
	})
	row("sessions completed / failed", func(r *result) string {
		return fmt.Sprintf("%d / %d", st(r).Completed, st(r).Failed)
	})
	row("sessions/s (whole run)", func(r *result) string { return fmt.Sprintf("%.1f", st(r).PerSec) })
	row("sessions/s (steady)", func(r *result) string {
		if st(r).SteadySeconds == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f over %.0f s", st(r).SteadyPerSec, st(r).SteadySeconds)
	})
	lat := func(l latStats) string {
		if l.Count == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f / %.1f / %.1f ms", l.P50, l.P90, l.P99)
	}
	row("connect→exit p50 / p90 / p99 (whole)", func(r *result) string { return lat(st(r).Latency) })
	row("connect→exit p50 / p90 / p99 (steady)", func(r *result) string { return lat(st(r).SteadyLatency) })
	row("connect→exit mean / max (whole)", func(r *result) string {
		l := st(r).Latency
		if l.Count == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f / %.1f ms", l.Mean, l.Max)
	})
	row("failed: per-IP cap / handshake / other", func(r *result) string {
		f := st(r).Failures
		return fmt.Sprintf("%d / %d / %d", f.PerIPCap, f.Handshake, f.other())
	})
	optRow("other: dial / session / exit / output", func(r *result) string {
		f := st(r).Failures
		if f.other() == 0 {
			return "-"
		}
		return fmt.Sprintf("%d / %d / %d / %d", f.Dial, f.Session, f.ExitStatus, f.Output)
	})
}

func memRows(optRow rowFunc) {
	mem := func(r *result) *memSummary { return r.Summary.ServerMemory }
	optRow("server RSS before / end", func(r *result) string {
		if m := mem(r); m != nil && m.RSSEnd > 0 {
			return fmt.Sprintf("%s / %s (%s)", human1024(float64(m.RSSBefore)), human1024(float64(m.RSSEnd)), m.RSSSource)
		}
		return "-"
	})
	optRow("server heap in use before / end", func(r *result) string {
		if m := mem(r); m != nil && m.HeapEnd > 0 {
			return fmt.Sprintf("%s / %s", human1024(float64(m.HeapBefore)), human1024(float64(m.HeapEnd)))
		}
		return "-"
	})
	optRow("server goroutines before / end", func(r *result) string {
		if m := mem(r); m != nil && m.GoroutinesEnd > 0 {
			return fmt.Sprintf("%d / %d", m.GoroutinesBefore, m.GoroutinesEnd)
		}
		return "-"
	})
	optRow("RSS / heap per session", func(r *result) string {
		m := mem(r)
		if m == nil || m.RSSPerSession == nil && m.HeapPerSession == nil {
			return "-"
		}
		cell := func(v *float64) string {
			if v == nil {
				return "-"
			}
			return human1024(*v)
		}
		return fmt.Sprintf("%s / %s (%d sessions)", cell(m.RSSPerSession), cell(m.HeapPerSession), m.Sessions)
	})
	optRow("server goroutines per session", func(r *result) string {
		if m := mem(r); m != nil && m.GoroutinesPerSession != nil {
			return fmt.Sprintf("%.1f (%d sessions)", *m.GoroutinesPerSession, m.Sessions)
		}
		return "-"
	})
}

func telRows(optRow rowFunc, storm bool) {
	tel := func(r *result) *telSummary {
		if t := r.Summary.Telemetry; t != nil && t.SteadySeconds > 0 {
			return t
		}
		return nil
	}
	msv := func(v *float64, prec int) string {
		if v == nil {
			return "-"
		}
		return strconv.FormatFloat(*v, 'f', prec, 64)
	}
	if storm {
		optRow("server logins/s (steady, metrics)", func(r *result) string {
			if t := tel(r); t != nil {
				return fmt.Sprintf("%.1f", t.LoginsPerSec)
			}
			return "-"
		})
		return
	}
	optRow("server input→frame p50 / p99 (steady)", func(r *result) string {
		if t := tel(r); t != nil && t.InputToFrameN > 0 {
			return fmt.Sprintf("%s / %s ms (%d)", msv(t.InputToFrameP50, 2), msv(t.InputToFrameP99, 2), t.InputToFrameN)
		}
		return "-"
	})
	optRow("server tick lateness p99 (steady)", func(r *result) string {
		if t := tel(r); t != nil && t.TickLatenessN > 0 {
			skipped := ""
			if t.LatenessSkipped > 0 {
				skipped = fmt.Sprintf(", %d intervals skipped", t.LatenessSkipped)
			}
			return fmt.Sprintf("%s ms (%d ticks%s)", msv(t.TickLatenessP99, 3), t.TickLatenessN, skipped)
		}
		return "-"
	})
	optRow("server frame write p99 (steady)", func(r *result) string {
		if t := tel(r); t != nil && t.FrameWriteP99 != nil {
			return msv(t.FrameWriteP99, 3) + " ms"
		}
		return "-"
	})
	optRow("server frames written / skipped (steady)", func(r *result) string {
		if t := tel(r); t != nil {
			return fmt.Sprintf("%d / %d (%.0f/s)", t.FramesWritten, t.FramesSkipped, t.FramesPerSec)
		}
		return "-"
	})
}
