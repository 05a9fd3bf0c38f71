package main

import (
	"fmt"
	"math"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"
)

// The tool is the limit when it used more than boundShare of the cores it
// may use, or its goroutines (the viewers' readers) waited longer than a
// frame of the web's 15 a second to run: then viewers count fewer frames
// than the server sent them, whatever the server could do.
const (
	boundShare = 0.9
	boundSched = 1000.0 / 15 // ms
)

// clientBound says why the run was limited by the tool ("" when it was
// not).
func clientBound(cpuShare, schedP99 float64) string {
	var why []string
	if cpuShare > boundShare {
		why = append(why, fmt.Sprintf("the tool used %.0f%% of its cores", 100*cpuShare))
	}
	if schedP99 > boundSched {
		why = append(why, fmt.Sprintf("its readers waited %.0f ms (p99) to run", schedP99))
	}
	return strings.Join(why, " and ")
}

// processCPU is the CPU time the tool's process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// schedLatency follows the Go scheduler's latency histogram (time
// goroutines spend runnable before they run) from a baseline.
type schedLatency struct {
	s    []metrics.Sample
	prev []uint64
}

func newSchedLatency() *schedLatency {
	l := &schedLatency{s: []metrics.Sample{{Name: "/sched/latencies:seconds"}}}
	l.p99() // the baseline
	return l
}

// p99 of the scheduling latency since the last call, in ms (the bucket's
// upper bound); -1 when nothing ran or the metric is missing.
func (l *schedLatency) p99() float64 {
	metrics.Read(l.s)
	if l.s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return -1
	}
	h := l.s[0].Value.Float64Histogram()
	var total uint64
	d := make([]uint64, len(h.Counts))
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
		if seen += c; seen >= need {
			hi := h.Buckets[i+1]
			if math.IsInf(hi, 1) {
				hi = h.Buckets[i]
			}
			return hi * 1000
		}
	}
	return -1
}

// startProfile writes the tool's CPU profile to path until the returned
// func is called (path "": nothing).
func startProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
