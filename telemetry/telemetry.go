// Package telemetry owns the server's own measurements: sessions, rooms,
// tick timing, frames written and skipped, bytes per frame, input-to-frame
// latency, write stalls and logins. They are exported for Prometheus on
// the metrics address and as a JSON snapshot for `admin stats --json`.
//
// Everything here is cheap enough for the hot paths that feed it (one
// atomic add or histogram observation per frame), and nothing is global:
// each server has its own registry.
package telemetry

import (
	"math"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/termarena/termarena/game"
)

// PanicsRoom is the worker name Sources.Panics counts rooms under.
const PanicsRoom = "room"

// Sources is the live state telemetry reads at scrape time.
type Sources interface {
	Sessions() int
	PlayersOnline() int
	PlayersInMatches() int
	RoomCount() int
	// RoomsByGame counts live rooms by game (game.Kind.Name), every game
	// of the catalogue included, those with no rooms at 0.
	RoomsByGame() map[string]int
	TickStats() []game.TickStats
	// Panics counts, by worker ("room", "results"…), the panics recovered
	// on goroutines shared between players: each ended one room or
	// skipped one job instead of stopping the server.
	Panics() map[string]uint64
}

// Buckets, chosen around the budgets in DESIGN.md.
var (
	frameBytesBuckets = []float64{16, 32, 64, 96, 128, 192, 256, 512, 1024, 4096, 16384}
	latencyBuckets    = []float64{0.0005, 0.001, 0.002, 0.005, 0.010, 0.020, 0.033, 0.050, 0.100, 0.250, 1}
	stallBuckets      = []float64{0.0001, 0.0005, 0.001, 0.005, 0.010, 0.050, 0.100, 0.500, 1, 5}
)

// Metrics is one server's telemetry.
type Metrics struct {
	reg *prometheus.Registry
	src Sources

	framesWritten prometheus.Counter
	framesSkipped prometheus.Counter
	frameBytes    prometheus.Histogram
	inputToFrame  prometheus.Histogram
	writeStall    prometheus.Histogram
	logins        prometheus.Counter

	// The same frame series labelled by game, for room screens that
	// report through ForGame.
	gameWritten *prometheus.CounterVec
	gameSkipped *prometheus.CounterVec
	gameBytes   *prometheus.HistogramVec
	gameInput   *prometheus.HistogramVec
	gameStall   *prometheus.HistogramVec
	gamesMu     sync.RWMutex
	games       map[string]*GameFrames

	// Plain counters mirror the Prometheus ones for the JSON snapshot and
	// per-second rates.
	nWritten, nSkipped, nLogins, nBytes atomic.Uint64
	rateAt                              atomic.Pointer[rateMark]
}

type rateMark struct {
	at                       time.Time
	written, skipped, logins uint64
	games                    map[string][2]uint64 // written, skipped
}

// New registers every metric in a fresh registry.
func New(src Sources) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), src: src}
	m.framesWritten = prometheus.NewCounter(prometheus.CounterOpts{Name: "termarena_frames_written_total", Help: "Game frames written to sessions."})
	m.framesSkipped = prometheus.NewCounter(prometheus.CounterOpts{Name: "termarena_frames_skipped_total", Help: "Paced game frames a session could not take on time (its writes were backed up)."})
	m.frameBytes = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "termarena_frame_bytes", Help: "Bytes per game frame written.", Buckets: frameBytesBuckets})
	m.inputToFrame = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "termarena_input_to_frame_seconds", Help: "From a keypress read from the session to the first frame reflecting it written.", Buckets: latencyBuckets})
	m.writeStall = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "termarena_frame_write_seconds", Help: "Time a frame write took (long ones are a stalled client).", Buckets: stallBuckets})
	m.logins = prometheus.NewCounter(prometheus.CounterOpts{Name: "termarena_logins_total", Help: "Sessions started."})
	byGame := []string{"game"}
	m.gameWritten = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "termarena_game_frames_written_total", Help: "Game frames written to sessions, by game (included in termarena_frames_written_total)."}, byGame)
	m.gameSkipped = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "termarena_game_frames_skipped_total", Help: "Paced game frames a session could not take on time, by game."}, byGame)
	m.gameBytes = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "termarena_game_frame_bytes", Help: "Bytes per game frame written, by game.", Buckets: frameBytesBuckets}, byGame)
	m.gameInput = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "termarena_game_input_to_frame_seconds", Help: "From a keypress read from the session to the first frame reflecting it written, by game.", Buckets: latencyBuckets}, byGame)
	m.gameStall = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "termarena_game_frame_write_seconds", Help: "Time a frame write took, by game.", Buckets: stallBuckets}, byGame)
	m.games = map[string]*GameFrames{}
	m.reg.MustRegister(m.framesWritten, m.framesSkipped, m.frameBytes, m.inputToFrame, m.writeStall, m.logins,
		m.gameWritten, m.gameSkipped, m.gameBytes, m.gameInput, m.gameStall,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		&liveCollector{m: m})
	m.rateAt.Store(&rateMark{at: time.Now()})
	return m
}

// Handler serves the Prometheus exposition.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Registry is for tests that read values back.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// FrameWritten records one game frame: its size and how long the write
// took.
func (m *Metrics) FrameWritten(bytes int, took time.Duration) {
	if m == nil {
		return
	}
	m.framesWritten.Inc()
	m.nWritten.Add(1)
	m.nBytes.Add(uint64(bytes))
	m.frameBytes.Observe(float64(bytes))
	m.writeStall.Observe(took.Seconds())
}

// FramesSkipped records paced frames that a session missed.
func (m *Metrics) FramesSkipped(n int) {
	if m == nil || n <= 0 {
		return
	}
	m.framesSkipped.Add(float64(n))
	m.nSkipped.Add(uint64(n))
}

// InputToFrame records the latency from a keypress to its frame.
func (m *Metrics) InputToFrame(d time.Duration) {
	if m == nil {
		return
	}
	m.inputToFrame.Observe(d.Seconds())
}

// FrameSink is what a room screen reports its frames to: the methods of
// tui.FrameMetrics. It is an alias of an unnamed interface type, so that
// ForGame's signature is identical to tui.GameMetrics' once tui's
// FrameMetrics is one too (an interface method's result type must be
// identical, not merely implement the same methods); meanwhile the server
// adapts it (telemetry does not import tui).
type FrameSink = interface {
	FrameWritten(bytes int, took time.Duration)
	FramesSkipped(n int)
	InputToFrame(d time.Duration)
}

// ForGame is the frame telemetry of one game (game.Kind.Name): what it
// records counts in the unlabelled totals and in the series labelled
// game=name. The labelled children are resolved once per game and cached,
// so a room screen calls this once and then records frames without
// allocating. A nil *Metrics gives a sink that records nothing.
func (m *Metrics) ForGame(name string) FrameSink {
	return m.gameFrames(name)
}

func (m *Metrics) gameFrames(name string) *GameFrames {
	if m == nil {
		return nil
	}
	m.gamesMu.RLock()
	g := m.games[name]
	m.gamesMu.RUnlock()
	if g != nil {
		return g
	}
	m.gamesMu.Lock()
	defer m.gamesMu.Unlock()
	if g = m.games[name]; g == nil {
		g = &GameFrames{m: m,
			written: m.gameWritten.WithLabelValues(name), skipped: m.gameSkipped.WithLabelValues(name),
			bytes: m.gameBytes.WithLabelValues(name), input: m.gameInput.WithLabelValues(name), stall: m.gameStall.WithLabelValues(name)}
		m.games[name] = g
	}
	return g
}

// GameFrames is one game's frame telemetry (see ForGame).
type GameFrames struct {
	m                   *Metrics
	written, skipped    prometheus.Counter
	bytes, input, stall prometheus.Observer
	nWritten, nSkipped  atomic.Uint64
	nBytes              atomic.Uint64
}

// FrameWritten records one frame of this game, in the totals too.
func (g *GameFrames) FrameWritten(bytes int, took time.Duration) {
	if g == nil {
		return
	}
	g.m.FrameWritten(bytes, took)
	g.written.Inc()
	g.nWritten.Add(1)
	g.nBytes.Add(uint64(bytes))
	g.bytes.Observe(float64(bytes))
	g.stall.Observe(took.Seconds())
}

// FramesSkipped records paced frames of this game a session missed.
func (g *GameFrames) FramesSkipped(n int) {
	if g == nil || n <= 0 {
		return
	}
	g.m.FramesSkipped(n)
	g.skipped.Add(float64(n))
	g.nSkipped.Add(uint64(n))
}

// InputToFrame records a keypress-to-frame latency in this game.
func (g *GameFrames) InputToFrame(d time.Duration) {
	if g == nil {
		return
	}
	g.m.InputToFrame(d)
	g.input.Observe(d.Seconds())
}

// Login records a session start.
func (m *Metrics) Login() {
	if m == nil {
		return
	}
	m.logins.Inc()
	m.nLogins.Add(1)
}

// liveCollector reads the Sources at scrape time: counts that are state,
// not events, and the rooms' tick statistics.
type liveCollector struct{ m *Metrics }

var (
	descSessions  = prometheus.NewDesc("termarena_sessions", "Live sessions with a screen.", nil, nil)
	descOnline    = prometheus.NewDesc("termarena_players_online", "Distinct players online.", nil, nil)
	descInMatch   = prometheus.NewDesc("termarena_players_in_matches", "Players seated in a room that is counting down or playing.", nil, nil)
	descRooms     = prometheus.NewDesc("termarena_rooms", "Live rooms.", nil, nil)
	descGameRooms = prometheus.NewDesc("termarena_game_rooms", "Live rooms by game.", []string{"game"}, nil)
	descTickRate  = prometheus.NewDesc("termarena_tick_rate", "Mean measured ticks per second over playing rooms.", nil, nil)
	descLateness  = prometheus.NewDesc("termarena_tick_lateness_seconds", "How late room ticks started against their schedule.", nil, nil)
	descDropTicks = prometheus.NewDesc("termarena_ticks_dropped_total", "Overdue ticks rooms dropped after a stall (rooms alive now).", nil, nil)
	descPanics    = prometheus.NewDesc("termarena_panics_total", "Panics recovered on goroutines shared by players, by worker: a room (its match aborted, its players back in the lobby), a spectator feed, the results writer, the matchmaker, replay pruning.", []string{"worker"}, nil)
)

func (c *liveCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descSessions, descOnline, descInMatch, descRooms, descGameRooms, descTickRate, descLateness, descDropTicks, descPanics} {
		ch <- d
	}
}

func (c *liveCollector) Collect(ch chan<- prometheus.Metric) {
	src := c.m.src
	ch <- prometheus.MustNewConstMetric(descSessions, prometheus.GaugeValue, float64(src.Sessions()))
	ch <- prometheus.MustNewConstMetric(descOnline, prometheus.GaugeValue, float64(src.PlayersOnline()))
	ch <- prometheus.MustNewConstMetric(descInMatch, prometheus.GaugeValue, float64(src.PlayersInMatches()))
	ch <- prometheus.MustNewConstMetric(descRooms, prometheus.GaugeValue, float64(src.RoomCount()))
	for name, n := range src.RoomsByGame() {
		ch <- prometheus.MustNewConstMetric(descGameRooms, prometheus.GaugeValue, float64(n), name)
	}
	for worker, n := range src.Panics() {
		ch <- prometheus.MustNewConstMetric(descPanics, prometheus.CounterValue, float64(n), worker)
	}
	t := aggregate(src.TickStats())
	ch <- prometheus.MustNewConstMetric(descTickRate, prometheus.GaugeValue, t.rate)
	ch <- prometheus.MustNewConstMetric(descDropTicks, prometheus.CounterValue, float64(t.dropped))
	buckets := map[float64]uint64{}
	var cum uint64
	for i, b := range t.bounds {
		cum += t.lateness[i]
		buckets[b.Seconds()] = cum
	}
	cum += t.lateness[len(t.lateness)-1]
	ch <- prometheus.MustNewConstHistogram(descLateness, cum, math.NaN(), buckets)
}

type tickAgg struct {
	rate     float64
	dropped  uint64
	lateness [game.LatenessBuckets]uint64
	bounds   []time.Duration
	ticks    uint64
}

func aggregate(stats []game.TickStats) tickAgg {
	var a tickAgg
	n := 0
	for _, s := range stats {
		if len(a.bounds) == 0 {
			a.bounds = s.LatenessBounds
		}
		a.dropped += s.Dropped
		a.ticks += s.Ticks
		for i := range a.lateness {
			a.lateness[i] += s.Lateness[i]
		}
		if s.Rate > 0 {
			a.rate += s.Rate
			n++
		}
	}
	if n > 0 {
		a.rate /= float64(n)
	}
	return a
}

// Stats is the JSON snapshot `admin stats --json` prints; fields are only
// ever added.
type Stats struct {
	Sessions         int     `json:"sessions"`
	PlayersOnline    int     `json:"players_online"`
	PlayersInMatches int     `json:"players_in_matches"`
	Rooms            int     `json:"rooms"`
	TickRate         float64 `json:"tick_rate"`
	TickLatenessP99  float64 `json:"tick_lateness_p99_ms"`
	// TickLatenessOver: the p99 is beyond the largest bucket, so
	// TickLatenessP99 is that bucket's bound and the truth is more (JSON
	// has no infinity).
	TickLatenessOver bool    `json:"tick_lateness_p99_over,omitempty"`
	TicksDropped     uint64  `json:"ticks_dropped"`
	FramesWritten    uint64  `json:"frames_written"`
	FramesSkipped    uint64  `json:"frames_skipped"`
	FramesPerSecond  float64 `json:"frames_per_second"`
	SkippedPerSecond float64 `json:"frames_skipped_per_second"`
	MeanFrameBytes   float64 `json:"mean_frame_bytes"`
	Logins           uint64  `json:"logins"`
	LoginsPerSecond  float64 `json:"logins_per_second"`
	HeapBytes        uint64  `json:"heap_bytes"`
	RSSBytes         uint64  `json:"rss_bytes"`
	Goroutines       int     `json:"goroutines"`
	// RoomPanics counts rooms that ended on a panic (their matches
	// aborted); Panics counts every recovered panic by worker.
	RoomPanics uint64            `json:"room_panics"`
	Panics     map[string]uint64 `json:"panics,omitempty"`
	// Games breaks rooms and frames down by game: every game of the
	// catalogue, and any game whose room screens reported frames.
	Games map[string]GameStats `json:"games,omitempty"`
}

// GameStats is one game's share of Stats. Frames count only room screens
// that report by game (ForGame).
type GameStats struct {
	Rooms            int     `json:"rooms"`
	FramesWritten    uint64  `json:"frames_written"`
	FramesSkipped    uint64  `json:"frames_skipped"`
	FramesPerSecond  float64 `json:"frames_per_second"`
	SkippedPerSecond float64 `json:"frames_skipped_per_second"`
	MeanFrameBytes   float64 `json:"mean_frame_bytes"`
}

// Snapshot reads every figure now. Rates are over the time since the
// previous Snapshot (so a script polling `admin stats --json` every second
// gets per-second rates).
func (m *Metrics) Snapshot() Stats {
	now := time.Now()
	w, sk, lg := m.nWritten.Load(), m.nSkipped.Load(), m.nLogins.Load()
	games := map[string]GameStats{}
	for name, n := range m.src.RoomsByGame() {
		games[name] = GameStats{Rooms: n}
	}
	marks := map[string][2]uint64{}
	m.gamesMu.RLock()
	for name, g := range m.games {
		gs := games[name]
		gs.FramesWritten, gs.FramesSkipped = g.nWritten.Load(), g.nSkipped.Load()
		if gs.FramesWritten > 0 {
			gs.MeanFrameBytes = float64(g.nBytes.Load()) / float64(gs.FramesWritten)
		}
		games[name] = gs
		marks[name] = [2]uint64{gs.FramesWritten, gs.FramesSkipped}
	}
	m.gamesMu.RUnlock()
	prev := m.rateAt.Swap(&rateMark{at: now, written: w, skipped: sk, logins: lg, games: marks})
	dt := now.Sub(prev.at).Seconds()
	t := aggregate(m.src.TickStats())
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := Stats{
		Sessions: m.src.Sessions(), PlayersOnline: m.src.PlayersOnline(), PlayersInMatches: m.src.PlayersInMatches(), Rooms: m.src.RoomCount(),
		TickRate: t.rate, TicksDropped: t.dropped,
		FramesWritten: w, FramesSkipped: sk, Logins: lg,
		HeapBytes: ms.HeapInuse, RSSBytes: rss(), Goroutines: runtime.NumGoroutine(),
		Panics: m.src.Panics(),
	}
	s.RoomPanics = s.Panics[PanicsRoom]
	p99, over := latenessQuantile(t, 0.99)
	s.TickLatenessP99, s.TickLatenessOver = p99*1000, over
	if w > 0 {
		s.MeanFrameBytes = float64(m.nBytes.Load()) / float64(w)
	}
	if dt > 0 {
		s.FramesPerSecond = float64(w-prev.written) / dt
		s.SkippedPerSecond = float64(sk-prev.skipped) / dt
		s.LoginsPerSecond = float64(lg-prev.logins) / dt
		for name, gs := range games {
			p := prev.games[name]
			gs.FramesPerSecond = float64(gs.FramesWritten-p[0]) / dt
			gs.SkippedPerSecond = float64(gs.FramesSkipped-p[1]) / dt
			games[name] = gs
		}
	}
	if len(games) > 0 {
		s.Games = games
	}
	return s
}

// latenessQuantile is the upper bound (seconds) of the bucket holding
// quantile q; over: it is the overflow bucket's, so the quantile is more
// than the largest bound, which is returned.
func latenessQuantile(a tickAgg, q float64) (bound float64, over bool) {
	var total uint64
	for _, n := range a.lateness {
		total += n
	}
	if total == 0 || len(a.bounds) == 0 {
		return 0, false
	}
	want := uint64(math.Ceil(q * float64(total)))
	var cum uint64
	for i, n := range a.lateness {
		cum += n
		if cum >= want && i < len(a.bounds) {
			return a.bounds[i].Seconds(), false
		}
	}
	return a.bounds[len(a.bounds)-1].Seconds(), true
}
