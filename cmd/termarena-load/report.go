package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
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

	// Cumulative figures for steady-state sums; not printed.
	totFrames uint64
	srvCPU    time.Duration
	toolCPU   time.Duration
	at        time.Time
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
	Players        int         `json:"players"`
	Started        int         `json:"started"`
	ConnectedPeak  int         `json:"connected_peak"`
	ReachedGame    int         `json:"reached_game"`
	GameNoFrames   int         `json:"reached_game_without_frames"`
	ConnectErrors  uint64      `json:"connect_errors"`
	Errors         []string    `json:"errors,omitempty"`
	Dropped        int         `json:"dropped"`
	Seconds        float64     `json:"seconds"`
	TotalFrames    uint64      `json:"total_frames"`
	TotalBytes     uint64      `json:"total_bytes"`
	FrameBytes     uint64      `json:"frame_bytes"`
	BytesPerFrame  float64     `json:"bytes_per_frame"`
	SessionSeconds int         `json:"session_seconds"` // full one-second windows on the board
	FPS            fpsStats    `json:"fps"`
	OnSchedule     float64     `json:"frames_on_schedule"`
	TargetFPS      int         `json:"target_fps"`
	VerifyOK       uint64      `json:"verify_ok"`
	VerifyFailed   uint64      `json:"verify_failed"`
	VerifyFailure  string      `json:"verify_first_failure,omitempty"`
	VerifiedBots   int         `json:"verified_sessions"`
	Server         *cpuFigures `json:"server_cpu,omitempty"`
	Tool           *cpuFigures `json:"tool_cpu,omitempty"`
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
	spawnedAt atomic.Int64 // UnixNano when the last bot was started
	last      time.Time
	samples   []sample
	rates     []float64 // frames/s of every full session-second
	peakConn  int
	srv0      time.Duration
	tool0     time.Duration
	srvOK     bool
	toolOK    bool
}

func newRecorder(r *runner) *recorder {
	rec := &recorder{r: r, last: r.start}
	if r.pid > 0 {
		rec.srv0, rec.srvOK = cpuOf(r.pid)
	}
	rec.tool0, rec.toolOK = cpuOf(os.Getpid())
	return rec
}

func (rec *recorder) header(w io.Writer) {
	r := rec.r
	target, mode := r.label+" "+r.addr, "mode "+r.cfg.mode
	if r.baseline {
		target = fmt.Sprintf("baseline %s (%d B frames at %d fps)", r.addr, r.cfg.baselineBytes, r.cfg.baselineFPS)
		mode = "one session per bot"
	}
	fmt.Fprintf(w, "# %s: %d players, ramp %g/s, %s, %s, %dx%d, %g keys/s, verify %d\n",
		target, r.cfg.players, r.cfg.ramp, r.cfg.duration, mode, r.cfg.cols, r.cfg.rows, r.cfg.keysPerSec, rec.verified())
	fmt.Fprintf(w, "%6s %6s %6s %6s %9s %8s %8s %9s %8s %11s %6s %7s %8s\n",
		"time", "conn", "game", "live", "frames/s", "fps/game", "fps/live", "bytes/s", "B/frame", "verify", "errors", "dropped", "srv cpu")
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
	s := sample{T: now.Sub(rec.r.start).Seconds(), at: now}
	var dBytes, dFrameBytes, fullFrames, gameFrames uint64
	for _, b := range rec.r.bots {
		f, fb, by := b.frames.Load(), b.frameBytes.Load(), b.bytes.Load()
		df := f - b.lastFrames
		dFrameBytes += fb - b.lastFrameBytes
		dBytes += by - b.lastBytes
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
		if b.playSince.Load() != 0 {
			s.InGame++
			gameFrames += df
		}
		if from := b.liveFrom.Load(); from != 0 && from <= now.UnixNano() {
			s.Live++
			if from <= winStart {
				s.FullSessions++
				fullFrames += df
				rec.rates = append(rec.rates, float64(df)/win.Seconds())
			}
		}
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
	s.ConnErrors = rec.r.connErrs.Load()
	prev := rec.prevCPU()
	if rec.srvOK {
		if c, ok := cpuOf(rec.r.pid); ok {
			s.srvCPU = c - rec.srv0
			s.ServerCores = (s.srvCPU - prev.srvCPU).Seconds() / secs
		}
	}
	if rec.toolOK {
		if c, ok := cpuOf(os.Getpid()); ok {
			s.toolCPU = c - rec.tool0
			s.ToolCores = (s.toolCPU - prev.toolCPU).Seconds() / secs
		}
	}
	rec.peakConn = max(rec.peakConn, s.Connected)
	rec.samples = append(rec.samples, s)

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
	fmt.Fprintf(w, "%5.0fs %6d %6d %6d %9.0f %8s %8s %9s %8s %11s %6d %7d %8s\n",
		s.T, s.Connected, s.InGame, s.Live, s.FPS, perGame, perLive, human(s.BytesPerSec), bpf,
		fmt.Sprintf("%d/%d", s.VerifyOK, s.VerifyFailed), s.ConnErrors, s.Dropped, cpu)
}

func (rec *recorder) prevCPU() sample {
	if n := len(rec.samples); n > 0 {
		return rec.samples[n-1]
	}
	return sample{}
}

func (rec *recorder) result() *result {
	r, c := rec.r, rec.r.cfg
	res := &result{
		Target: r.addr, Mode: c.mode, Players: c.players, Ramp: c.ramp, Duration: c.duration.String(),
		Size: fmt.Sprintf("%dx%d", c.cols, c.rows), Keys: c.keysPerSec, PID: r.pid, Samples: rec.samples, label: r.label,
	}
	if r.baseline {
		res.Target = fmt.Sprintf("baseline %s (%d B at %d fps)", r.addr, c.baselineBytes, c.baselineFPS)
		res.Mode = "baseline"
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
	spawned := rec.spawnedAt.Load()
	if spawned == 0 {
		return f
	}
	from := time.Unix(0, spawned).Add(5 * time.Second)
	for _, s := range rec.samples {
		if s.at.Before(from) {
			continue
		}
		secs := last.at.Sub(s.at).Seconds()
		if secs < 3 {
			break
		}
		cpu := (get(last) - get(s)).Seconds()
		f.SteadySecs = secs
		f.SteadyCores = cpu / secs
		f.SteadyFrames = last.totFrames - s.totFrames
		if f.SteadyFrames > 0 {
			f.SteadyUs = cpu * 1e6 / float64(f.SteadyFrames)
		}
		break
	}
	return f
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
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(name string, f func(*result) string) {
		cells := []string{name}
		for _, r := range runs {
			cells = append(cells, f(r))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	row("summary", func(r *result) string { return r.label })
	row("target", func(r *result) string { return r.Target })
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
	cpuRows := func(name string, get func(*result) *cpuFigures) {
		row(name+" CPU cores (whole run)", func(r *result) string {
			if c := get(r); c != nil {
				return fmt.Sprintf("%.3f", c.Cores)
			}
			return "-"
		})
		row(name+" CPU µs/frame (whole run)", func(r *result) string {
			if c := get(r); c != nil {
				return fmt.Sprintf("%.1f", c.UsPerFrame)
			}
			return "-"
		})
		row(name+" CPU cores (steady)", func(r *result) string {
			if c := get(r); c != nil && c.SteadySecs > 0 {
				return fmt.Sprintf("%.3f", c.SteadyCores)
			}
			return "-"
		})
		row(name+" CPU µs/frame (steady)", func(r *result) string {
			if c := get(r); c != nil && c.SteadySecs > 0 {
				return fmt.Sprintf("%.1f", c.SteadyUs)
			}
			return "-"
		})
	}
	cpuRows("server", func(r *result) *cpuFigures { return r.Summary.Server })
	cpuRows("tool", func(r *result) *cpuFigures { return r.Summary.Tool })
	_ = tw.Flush()
	for _, r := range runs {
		for _, e := range r.Summary.Errors {
			fmt.Fprintf(w, "%s error: %s\n", r.label, e)
		}
		if r.Summary.VerifyFailure != "" {
			fmt.Fprintf(w, "%s first verify failure: %s\n", r.label, r.Summary.VerifyFailure)
		}
	}
	if rep.Termarena != nil && rep.Termarena.Summary.Server == nil {
		fmt.Fprintln(w, "server CPU: pass --server-pid PID, or measure alongside: pidstat -p PID 1, or /proc/PID/stat fields 14+15 (utime+stime, 1/100 s) before and after")
	}
}
