package main

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// exposition builds a small Prometheus text exposition: the input→frame
// histogram with cumulative buckets 1 ms, 2 ms, 5 ms and +Inf, the tick
// lateness histogram, a counter, and a few lines of the format's harder
// corners (comments, escaped label values, a timestamp, NaN, a series
// split over two label sets).
func exposition(itf [4]int, late [3]int, written int) string {
	return fmt.Sprintf(`# HELP termarena_input_to_frame_seconds From a keypress to its frame.
# TYPE termarena_input_to_frame_seconds histogram
termarena_input_to_frame_seconds_bucket{le="0.001"} %d
termarena_input_to_frame_seconds_bucket{le="0.002"} %d
termarena_input_to_frame_seconds_bucket{le="0.005"} %d
termarena_input_to_frame_seconds_bucket{le="+Inf"} %d
termarena_input_to_frame_seconds_sum 0.25
termarena_input_to_frame_seconds_count %d
termarena_tick_lateness_seconds_bucket{le="0.00025"} %d
termarena_tick_lateness_seconds_bucket{le="0.0005"} %d
termarena_tick_lateness_seconds_bucket{le="+Inf"} %d
termarena_tick_lateness_seconds_sum NaN
termarena_frames_written_total %d 1700000000000
go_info{version="go1.26 \"x\" \\ {y}"} 1
http_requests{code="200",path="/a, b"} 2
http_requests{code="500",path="/metrics"} 3
process_resident_memory_bytes 2.5e+07
`, itf[0], itf[1], itf[2], itf[3], itf[3], late[0], late[1], late[2], written)
}

func mustParse(t *testing.T, text string, at time.Time) *metricsScrape {
	t.Helper()
	m, err := parseExposition(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	m.at = at
	return m
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestParseExposition(t *testing.T) {
	m := mustParse(t, exposition([4]int{10, 20, 30, 30}, [3]int{5, 6, 6}, 7), time.Now())
	h := m.hists[mInputToFrame]
	if want := []float64{0.001, 0.002, 0.005, math.Inf(1)}; fmt.Sprint(h.bounds) != fmt.Sprint(want) || fmt.Sprint(h.cum) != "[10 20 30 30]" {
		t.Errorf("histogram %v %v", h.bounds, h.cum)
	}
	for name, want := range map[string]float64{
		mFramesWritten:                         7,
		mRSS:                                   25e6,
		"go_info":                              1,
		"http_requests":                        5, // summed over label sets
		mInputToFrame + "_count":               30,
		"termarena_input_to_frame_seconds_sum": 0.25,
	} {
		if got, ok := m.value(name); !ok || got != want {
			t.Errorf("%s = %v %v, want %v", name, got, ok, want)
		}
	}
	if v, ok := m.value(mTickLateness + "_sum"); !ok || !math.IsNaN(v) {
		t.Errorf("lateness sum %v %v, want NaN", v, ok)
	}
	if _, err := parseExposition(strings.NewReader("<html>not metrics</html>\n")); err == nil {
		t.Error("a page without termarena_ series parsed")
	}
}

// TestScrapeDifferenceQuantile: quantiles of what happened between two
// scrapes, from the difference of the cumulative buckets, interpolated as
// Prometheus' histogram_quantile does.
func TestScrapeDifferenceQuantile(t *testing.T) {
	t0 := time.Now()
	a := mustParse(t, exposition([4]int{10, 20, 30, 30}, [3]int{5, 6, 6}, 7), t0)
	b := mustParse(t, exposition([4]int{10, 60, 130, 132}, [3]int{105, 116, 116}, 107), t0.Add(time.Second))
	d := diffScrapes(a, b)
	if !d.latencyOK || !d.countersOK || !d.latenessOK || d.written != 100 || d.secs != 1 {
		t.Fatalf("delta %+v", d)
	}
	// Between the scrapes: 0 in ≤1 ms, 40 in (1,2] ms, 60 in (2,5] ms, 2 above.
	for _, tc := range []struct{ q, want float64 }{
		{0.1, 0.001 + 0.001*10.2/40},   // rank 10.2, inside (1,2] ms
		{0.5, 0.002 + 0.003*11/60},     // rank 51, 11 into (2,5] ms
		{0.99, 0.005},                  // rank 100.98 falls in +Inf: the highest finite bound
		{0.2, 0.001 + 0.001*20.4/40},   //
		{0.0, 0.001},                   // rank 0: the first bucket holding it is (1,2] ms, at its start
		{0.39, 0.001 + 0.001*39.78/40}, //
	} {
		got, ok := d.inputToFrame.quantile(tc.q)
		if !ok || !near(got, tc.want) {
			t.Errorf("q%v = %v (%v), want %v", tc.q, got, ok, tc.want)
		}
	}
	// The lateness difference: 100 ticks ≤0.25 ms, 10 in (0.25,0.5] ms.
	if got, ok := d.lateness.quantile(0.99); !ok || !near(got, 0.00025+0.00025*(108.9-100)/10) {
		t.Errorf("lateness p99 = %v %v", got, ok)
	}
	// The first bucket interpolates from zero.
	one := histogram{bounds: []float64{0.004, math.Inf(1)}, cum: []float64{8, 8}}
	if got, _ := one.quantile(0.5); !near(got, 0.002) {
		t.Errorf("first-bucket p50 = %v, want 0.002", got)
	}
	// Nothing observed: no quantile.
	if _, ok := diffScrapes(a, a).inputToFrame.quantile(0.5); ok {
		t.Error("quantile of an empty difference")
	}

	// Summed over intervals, the steady accumulator agrees with the
	// difference over the whole span.
	c := mustParse(t, exposition([4]int{12, 70, 150, 160}, [3]int{205, 226, 226}, 207), t0.Add(2*time.Second))
	var acc telAcc
	acc.add(diffScrapes(a, b))
	acc.add(diffScrapes(b, c))
	whole := diffScrapes(a, c)
	for _, q := range []float64{0.5, 0.9, 0.99} {
		x, _ := acc.inputToFrame.quantile(q)
		y, _ := whole.inputToFrame.quantile(q)
		if !near(x, y) {
			t.Errorf("q%v: accumulated %v, whole span %v", q, x, y)
		}
	}
	if acc.written != 200 || acc.secs != 2 || acc.intervals != 2 || acc.latenessSkipped != 0 {
		t.Errorf("accumulator %+v", acc)
	}
}

// TestScrapeDifferenceResets: a bucket that lost observations (a server
// restart, or a room that ended taking its ticks out of the lateness
// histogram) makes that interval unusable rather than wrong.
func TestScrapeDifferenceResets(t *testing.T) {
	t0 := time.Now()
	a := mustParse(t, exposition([4]int{10, 20, 30, 30}, [3]int{500, 510, 520}, 7), t0)
	// A room ended: lateness per-bucket counts fell though others grew.
	b := mustParse(t, exposition([4]int{10, 25, 35, 35}, [3]int{300, 320, 340}, 9), t0.Add(time.Second))
	d := diffScrapes(a, b)
	if d.latenessOK || !d.latencyOK || !d.countersOK {
		t.Errorf("lateness ok %v latency ok %v counters ok %v; want only lateness refused", d.latenessOK, d.latencyOK, d.countersOK)
	}
	// Cumulative buckets all grew, but bucket 2 alone fell (20→15 in
	// (1,2] ms): still a reset.
	c := mustParse(t, exposition([4]int{30, 35, 50, 50}, [3]int{500, 510, 520}, 9), t0.Add(time.Second))
	if d := diffScrapes(a, c); d.latencyOK {
		t.Error("a falling bucket passed as a difference")
	}
	// A restarted server: counters fell too; the interval is left out.
	r := mustParse(t, exposition([4]int{1, 1, 1, 1}, [3]int{1, 1, 1}, 1), t0.Add(time.Second))
	var acc telAcc
	acc.add(diffScrapes(a, r))
	acc.add(diffScrapes(a, b))
	if acc.intervals != 1 || acc.intervalsSkipped != 1 || acc.latenessSkipped != 1 || acc.written != 2 {
		t.Errorf("accumulator %+v; want one interval kept (lateness skipped), one left out", acc)
	}
	// Before any room: the lateness histogram has only +Inf; a later one
	// with buckets differs from it as from zero.
	empty := histogram{bounds: []float64{math.Inf(1)}, cum: []float64{0}}
	full := b.hists[mTickLateness]
	if got, ok := full.sub(empty); !ok || fmt.Sprint(got.cum) != fmt.Sprint(full.cum) {
		t.Errorf("difference from an empty histogram: %v %v", got.cum, ok)
	}
}

func TestPerSessionMemory(t *testing.T) {
	for _, tc := range []struct {
		before, end uint64
		sessions    int
		want        float64
		ok          bool
	}{
		{10 << 20, 30 << 20, 100, 20 << 20 / 100.0, true},
		{30 << 20, 29 << 20, 4, -(1 << 20) / 4.0, true}, // memory went back to the OS
		{10 << 20, 30 << 20, 0, 0, false},
		{0, 30 << 20, 10, 0, false}, // no "before" reading
		{10 << 20, 0, 10, 0, false},
	} {
		got, ok := perSession(tc.before, tc.end, tc.sessions)
		if ok != tc.ok || ok && !near(got, tc.want) {
			t.Errorf("perSession(%d, %d, %d) = %v %v, want %v %v", tc.before, tc.end, tc.sessions, got, ok, tc.want, tc.ok)
		}
	}
	// Through the recorder: RSS and heap from the metrics (no PID), over
	// the sessions connected at the last sample.
	before := mustParse(t, "termarena_sessions 0\nprocess_resident_memory_bytes 1e7\ngo_memstats_heap_inuse_bytes 2e6\ngo_goroutines 10\n", time.Now())
	end := mustParse(t, "termarena_sessions 4\nprocess_resident_memory_bytes 1.8e7\ngo_memstats_heap_inuse_bytes 6e6\ngo_goroutines 50\n", time.Now())
	rec := &recorder{r: &runner{cfg: &config{}}, scr: newScraper("http://127.0.0.1:1/metrics"), telBefore: before, telPrev: end,
		steadyIdx: -1, samples: []sample{{Connected: 4, Server: &serverSample{RSS: 18e6}}}}
	m := rec.memSummary()
	if m == nil || m.RSSSource != "metrics" || m.Sessions != 4 || m.RSSPerSession == nil || *m.RSSPerSession != 2e6 ||
		m.HeapPerSession == nil || *m.HeapPerSession != 1e6 || m.GoroutinesEnd != 50 || m.ServerSessions == nil || *m.ServerSessions != 4 {
		t.Errorf("memory summary %+v", m)
	}
}

func TestParseVmRSS(t *testing.T) {
	status := "Name:\ttermarena\nVmPeak:\t  999 kB\nVmRSS:\t   14084 kB\nThreads:\t5\n"
	if v, ok := parseVmRSS(status); !ok || v != 14084*1024 {
		t.Errorf("parseVmRSS = %d %v", v, ok)
	}
	if _, ok := parseVmRSS("Name:\tkthread\n"); ok {
		t.Error("VmRSS found where there is none")
	}
	if v, ok := rssOf(1 << 30); ok {
		t.Errorf("RSS %d of a process that cannot exist", v)
	}
}

// TestScraperFailures: a scrape that fails is an error to report, with a
// bounded wait, never a crash or a hang.
func TestScraperFailures(t *testing.T) {
	slow := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, exposition([4]int{1, 2, 3, 3}, [3]int{1, 1, 1}, 1))
	})
	mux.HandleFunc("/slow", func(http.ResponseWriter, *http.Request) { <-slow })
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://203.0.113.7/metrics", http.StatusFound)
	})
	hs := httptest.NewServer(mux)
	defer hs.Close()
	defer close(slow)
	if m, err := newScraper(hs.URL+"/ok").scrape(t.Context(), time.Second); err != nil || m.values[mFramesWritten] != 1 {
		t.Errorf("good scrape: %v", err)
	}
	for _, path := range []string{"/slow", "/elsewhere", "/missing"} {
		if _, err := newScraper(hs.URL+path).scrape(t.Context(), 200*time.Millisecond); err == nil {
			t.Errorf("%s: no error", path)
		}
	}
}
