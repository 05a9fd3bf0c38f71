package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
)

// What a run says beyond frames: how many sessions were playing each
// second (a long queue run must measure play, not results screens), the
// matches the bots played, what watchers received (--mode watch), and
// whether the tool itself was what limited the figures.

// matchSummary counts the boards the bots reached and left: a queue bot
// goes back to the queue after every match, so a long run plays many.
type matchSummary struct {
	Started     uint64 `json:"started"`         // a bot's screen became a match's board
	Finished    uint64 `json:"finished"`        // a bot's screen became the results
	BotsTwoPlus int    `json:"bots_two_plus"`   // bots that reached the board twice or more
	MostByOne   uint32 `json:"most_by_one_bot"` // boards reached by the busiest bot
}

// shareSummary is the share of connected sessions on the board ("game")
// and in live play ("live") per second, over the steady part (from 5 s
// after the last bot started; the whole run when that is too short).
type shareSummary struct {
	Seconds    int     `json:"seconds"`
	GameMin    float64 `json:"game_min"`
	GameMedian float64 `json:"game_median"`
	GameMax    float64 `json:"game_max"`
	LiveMin    float64 `json:"live_min"`
	LiveMedian float64 `json:"live_median"`
	LiveMax    float64 `json:"live_max"`
}

// watchSummary is --mode watch's: the watchers' frames and bytes.
type watchSummary struct {
	Watchers         int      `json:"watchers"`
	Rooms            int      `json:"rooms"`
	WatchersPeak     int      `json:"watchers_connected_peak"`
	WithFrames       int      `json:"watchers_with_frames"`
	SessionSeconds   int      `json:"live_watcher_seconds"`
	FPS              fpsStats `json:"fps"`
	OnSchedule       float64  `json:"frames_on_schedule"`
	BytesPerSec      float64  `json:"bytes_per_sec_per_watcher"` // steady mean
	Frames           uint64   `json:"frames"`
	TickLatenessP99  *float64 `json:"tick_lateness_p99_ms,omitempty"`
	TickLatenessNote string   `json:"tick_lateness_note,omitempty"`
}

// clientBound says in how many seconds the tool, not the server, was the
// limit: its process used nearly all of the cores it may run on, or its
// goroutines (the bots' readers) waited long to run.
type clientBound struct {
	Seconds       int     `json:"seconds"`
	SteadySeconds int     `json:"steady_seconds"`
	Cores         int     `json:"tool_cores"` // GOMAXPROCS: the CPUs the tool may use
	MaxCPU        float64 `json:"max_cpu_share"`
	MaxSchedP99   float64 `json:"max_sched_p99_ms"`
	// The tool's goroutines per connected session at the end (those of
	// the tool itself, before the first bot, taken off).
	GoroutinesPerSession float64 `json:"tool_goroutines_per_session,omitempty"`
}

// boundCPUShare: a second is client-bound when the tool's process used
// more than this share of the cores it may use (GOMAXPROCS, which Go
// takes from the CPU affinity: one core under taskset -c 1).
const boundCPUShare = 0.9

// boundSched is the other sign, in ms: the tool's runnable goroutines
// (the bots' readers among them) waited longer than a frame interval at
// the target rate (p99 over the second) to run, so the readers fall
// behind the frames they count, whatever the reason (the tool's own CPU,
// or a machine too busy to run it).
func (rec *recorder) boundSched() float64 {
	return 1000 / float64(max(rec.r.cfg.targetFPS, 1))
}

// schedLatency follows the Go scheduler's latency histogram (time
// goroutines spend runnable before they run) from one second to the
// next.
type schedLatency struct {
	s    []metrics.Sample
	prev []uint64
}

func newSchedLatency() *schedLatency {
	l := &schedLatency{s: []metrics.Sample{{Name: "/sched/latencies:seconds"}}}
	l.p99() // the first reading is the baseline
	return l
}

// p99 of the scheduling latency since the last call, in ms; -1 when
// nothing ran or the metric is missing.
func (l *schedLatency) p99() float64 {
	metrics.Read(l.s)
	if l.s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return -1
	}
	h := l.s[0].Value.Float64Histogram()
	d := make([]uint64, len(h.Counts))
	var total uint64
	for i, c := range h.Counts {
		if i < len(l.prev) {
			c -= l.prev[i]
		}
		d[i] = c
		total += c
	}
	l.prev = slices.Clone(h.Counts)
	if total == 0 {
		return -1
	}
	need := uint64(math.Ceil(0.99 * float64(total)))
	var seen uint64
	for i, c := range d {
		seen += c
		if seen >= need {
			// The bucket's upper bound: a conservative p99.
			hi := h.Buckets[i+1]
			if math.IsInf(hi, 1) {
				hi = h.Buckets[i]
			}
			return hi * 1000
		}
	}
	return -1
}

// noteBound marks the second client-bound when it is, and prints a line
// when a stretch of such seconds starts.
func (rec *recorder) noteBound(s *sample, w io.Writer) {
	if rec.sched == nil {
		return
	}
	s.ToolSchedP99 = rec.sched.p99()
	s.ToolGoroutines = runtime.NumGoroutine()
	cores := runtime.GOMAXPROCS(0)
	share := s.ToolCores / float64(cores)
	var why []string
	if rec.toolOK && share > boundCPUShare {
		why = append(why, fmt.Sprintf("the tool used %.0f%% of its %d core(s)", 100*share, cores))
	}
	if s.ToolSchedP99 > rec.boundSched() {
		why = append(why, fmt.Sprintf("its goroutines (the bots' readers) waited %.0f ms (p99) to run: its core, or the machine, is saturated", s.ToolSchedP99))
	}
	s.ClientBound = len(why) > 0
	if s.ClientBound && !rec.wasBound {
		fmt.Fprintf(w, "# WARNING client-bound from %.0fs: %s; from here on the figures are limited by the load tool, not only the server (run fewer sessions, or give the tool a core of its own)\n",
			s.T, strings.Join(why, " and "))
	}
	if !s.ClientBound && rec.wasBound {
		fmt.Fprintf(w, "# client no longer bound at %.0fs\n", s.T)
	}
	rec.wasBound = s.ClientBound
}

// steadySamples are the samples of the steady part, or all of them when
// there is none.
func (rec *recorder) steadySamples() []sample {
	if rec.steadyIdx >= 0 && rec.steadyIdx < len(rec.samples) {
		return rec.samples[rec.steadyIdx:]
	}
	return rec.samples
}

func (rec *recorder) census(s *summary) {
	steady := rec.steadySamples()
	// Matches.
	m := &matchSummary{}
	for _, b := range rec.r.bots {
		if b.watcher {
			continue
		}
		n := b.matches.Load()
		m.Started += uint64(n)
		m.Finished += uint64(b.finished.Load())
		if n >= 2 {
			m.BotsTwoPlus++
		}
		m.MostByOne = max(m.MostByOne, n)
	}
	if !rec.r.baseline {
		s.Matches = m
	}
	// Share in play.
	var game, live []float64
	for _, x := range steady {
		if x.Connected == 0 {
			continue
		}
		players := float64(x.Connected - x.Watchers)
		if players <= 0 {
			continue
		}
		game = append(game, float64(x.InGame-x.WatchersInGame)/players)
		live = append(live, float64(x.Live-x.WatchersLive)/players)
	}
	if len(game) > 0 {
		slices.Sort(game)
		slices.Sort(live)
		s.PlayShare = &shareSummary{Seconds: len(game),
			GameMin: game[0], GameMedian: percentile(game, 50), GameMax: game[len(game)-1],
			LiveMin: live[0], LiveMedian: percentile(live, 50), LiveMax: live[len(live)-1]}
	}
	// Client-bound seconds.
	if rec.sched != nil {
		cb := &clientBound{Cores: runtime.GOMAXPROCS(0)}
		for i, x := range rec.samples {
			cb.MaxCPU = max(cb.MaxCPU, x.ToolCores/float64(cb.Cores))
			cb.MaxSchedP99 = max(cb.MaxSchedP99, x.ToolSchedP99)
			if x.ClientBound {
				cb.Seconds++
				if rec.steadyIdx >= 0 && i >= rec.steadyIdx {
					cb.SteadySeconds++
				}
			}
		}
		if n := len(rec.samples); n > 0 && rec.samples[n-1].Connected > 0 {
			last := rec.samples[n-1]
			cb.GoroutinesPerSession = float64(last.ToolGoroutines-rec.goroutines0) / float64(last.Connected)
		}
		s.ClientBound = cb
	}
	// Watchers.
	if rec.r.cfg.mode == modeWatch && !rec.r.baseline {
		w := &watchSummary{Rooms: rec.r.cfg.watchRooms}
		for _, b := range rec.r.bots {
			if b.watcher {
				w.Watchers++
				w.Frames += b.frames.Load()
				if b.frames.Load() > 0 {
					w.WithFrames++
				}
			}
		}
		for _, x := range rec.samples {
			w.WatchersPeak = max(w.WatchersPeak, x.Watchers)
		}
		var bps float64
		n := 0
		for _, x := range steady {
			if x.Watchers > 0 {
				bps += x.WatchBytesPerSec
				n++
			}
		}
		if n > 0 {
			w.BytesPerSec = bps / float64(n)
		}
		w.SessionSeconds, w.FPS, w.OnSchedule = rateStats(rec.watchRates, s.TargetFPS)
		if t := s.Telemetry; t != nil {
			w.TickLatenessP99 = t.TickLatenessP99
			if t.LatenessSkipped > 0 {
				w.TickLatenessNote = fmt.Sprintf("%d intervals skipped", t.LatenessSkipped)
			}
		} else {
			w.TickLatenessNote = "pass --metrics"
		}
		s.Watch = w
	}
}

// rateStats summarises frames/s of full session-seconds: how many, their
// percentiles, and the share at ≥95 % of target.
func rateStats(r []float64, target int) (int, fpsStats, float64) {
	rates := slices.Clone(r)
	slices.Sort(rates)
	if len(rates) == 0 {
		return 0, fpsStats{}, 0
	}
	sum, on := 0.0, 0
	need := 0.95 * float64(target)
	for _, v := range rates {
		sum += v
		if v >= need {
			on++
		}
	}
	f := fpsStats{Min: rates[0], P1: percentile(rates, 1), P5: percentile(rates, 5), P50: percentile(rates, 50),
		P95: percentile(rates, 95), P99: percentile(rates, 99), Max: rates[len(rates)-1], Mean: sum / float64(len(rates))}
	return len(rates), f, float64(on) / float64(len(rates))
}

// censusRows are the summary's rows for the above.
func censusRows(row, optRow rowFunc) {
	optRow("matches started / finished", func(r *result) string {
		if m := r.Summary.Matches; m != nil {
			return fmt.Sprintf("%d / %d", m.Started, m.Finished)
		}
		return "-"
	})
	optRow("bots with 2+ matches / most by one", func(r *result) string {
		if m := r.Summary.Matches; m != nil {
			return fmt.Sprintf("%d / %d", m.BotsTwoPlus, m.MostByOne)
		}
		return "-"
	})
	pct := func(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) }
	optRow("on the board min / median / max", func(r *result) string {
		if p := r.Summary.PlayShare; p != nil {
			return pct(p.GameMin) + " / " + pct(p.GameMedian) + " / " + pct(p.GameMax)
		}
		return "-"
	})
	optRow("in live play min / median / max", func(r *result) string {
		if p := r.Summary.PlayShare; p != nil {
			return pct(p.LiveMin) + " / " + pct(p.LiveMedian) + " / " + pct(p.LiveMax)
		}
		return "-"
	})
	w := func(r *result) *watchSummary { return r.Summary.Watch }
	optRow("watchers / rooms / peak connected", func(r *result) string {
		if x := w(r); x != nil {
			return fmt.Sprintf("%d / %d / %d", x.Watchers, x.Rooms, x.WatchersPeak)
		}
		return "-"
	})
	optRow("watchers with frames", func(r *result) string {
		if x := w(r); x != nil {
			return fmt.Sprintf("%d, %d frames", x.WithFrames, x.Frames)
		}
		return "-"
	})
	optRow("watcher fps p1 / p50 / mean", func(r *result) string {
		if x := w(r); x != nil {
			return fmt.Sprintf("%.1f / %.1f / %.1f", x.FPS.P1, x.FPS.P50, x.FPS.Mean)
		}
		return "-"
	})
	optRow("watcher frames on schedule", func(r *result) string {
		if x := w(r); x != nil {
			return fmt.Sprintf("%.1f%% of %d watcher-seconds", 100*x.OnSchedule, x.SessionSeconds)
		}
		return "-"
	})
	optRow("bytes/s per watcher (steady)", func(r *result) string {
		if x := w(r); x != nil {
			return human(x.BytesPerSec)
		}
		return "-"
	})
	optRow("room tick lateness p99 (steady)", func(r *result) string {
		x := w(r)
		switch {
		case x == nil:
			return "-"
		case x.TickLatenessP99 == nil:
			return "- (" + x.TickLatenessNote + ")"
		case x.TickLatenessNote != "":
			return fmt.Sprintf("%.2fms (%s)", *x.TickLatenessP99, x.TickLatenessNote)
		}
		return fmt.Sprintf("%.2fms", *x.TickLatenessP99)
	})
	optRow("tool goroutines per session", func(r *result) string {
		if c := r.Summary.ClientBound; c != nil && c.GoroutinesPerSession > 0 {
			return fmt.Sprintf("%.1f", c.GoroutinesPerSession)
		}
		return "-"
	})
	optRow("client-bound seconds (steady)", func(r *result) string {
		if c := r.Summary.ClientBound; c != nil {
			return fmt.Sprintf("%d (%d)", c.Seconds, c.SteadySeconds)
		}
		return "-"
	})
}

// boundWarning is the summary's line for a client-bound run, and for
// watchers that saw no frame.
func boundWarning(w io.Writer, r *result) {
	if x := r.Summary.Watch; x != nil && x.WithFrames < x.Watchers {
		fmt.Fprintf(w, "%s: %d of %d watchers received no game frame: refused by the room's watcher limit (termarena --max-watchers-per-room, 200 by default; a refusal after the command started leaves the watcher in the lobby's chooser), or the room never started\n",
			r.label, x.Watchers-x.WithFrames, x.Watchers)
	}
	c := r.Summary.ClientBound
	if c == nil || c.Seconds == 0 {
		return
	}
	fmt.Fprintf(w, "%s: WARNING client-bound in %d s (%d of them steady): the tool peaked at %.0f%% of its %d core(s), its goroutines waited up to %.0f ms (p99 of a second) to run; the figures are the client's limit, not the server's\n",
		r.label, c.Seconds, c.SteadySeconds, 100*c.MaxCPU, c.Cores, c.MaxSchedP99)
}
