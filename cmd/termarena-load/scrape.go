package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The server's own telemetry (--metrics): a small reader of the Prometheus
// text exposition format (version 0.0.4), enough for counters, gauges and
// histograms without labels other than le, which is what termarena and
// the Go collectors export. A hand parser keeps the tool free of the
// Prometheus modules' API churn.

// Metric names read from the server (telemetry/telemetry.go, and the
// standard Go and process collectors).
const (
	mInputToFrame  = "termarena_input_to_frame_seconds"
	mTickLateness  = "termarena_tick_lateness_seconds"
	mFrameWrite    = "termarena_frame_write_seconds"
	mFrameBytes    = "termarena_frame_bytes"
	mFramesWritten = "termarena_frames_written_total"
	mFramesSkipped = "termarena_frames_skipped_total"
	mLogins        = "termarena_logins_total"
	mSessions      = "termarena_sessions"
	mInMatches     = "termarena_players_in_matches"
	mRooms         = "termarena_rooms"
	mRSS           = "process_resident_memory_bytes"
	mHeapInuse     = "go_memstats_heap_inuse_bytes"
	mGoroutines    = "go_goroutines"
)

// histogram is one Prometheus histogram: ascending upper bounds, the last
// +Inf, and the cumulative count of observations at or below each.
type histogram struct {
	bounds []float64
	cum    []float64
}

func (h histogram) count() float64 {
	if len(h.cum) == 0 {
		return 0
	}
	return h.cum[len(h.cum)-1]
}

func (h histogram) sameBounds(o histogram) bool { return slices.Equal(h.bounds, o.bounds) }

// sub is h − old: the observations made between two scrapes. ok is false
// when the two cannot be compared: different buckets, or a bucket that
// lost observations (a restarted server, or a histogram such as the tick
// lateness one that only covers rooms alive at scrape time, when a room
// ended). An old histogram without observations is taken as all zeros
// whatever its buckets (the lateness histogram has no finite buckets
// until a room exists); two missing histograms differ by nothing.
func (h histogram) sub(old histogram) (histogram, bool) {
	if old.count() == 0 {
		return h, true
	}
	if !h.sameBounds(old) {
		return histogram{}, false
	}
	d := histogram{bounds: h.bounds, cum: make([]float64, len(h.cum))}
	prevNew, prevOld := 0.0, 0.0
	for i := range h.cum {
		// Per-bucket (non-cumulative) counts must not go down.
		if h.cum[i]-prevNew < old.cum[i]-prevOld {
			return histogram{}, false
		}
		prevNew, prevOld = h.cum[i], old.cum[i]
		d.cum[i] = h.cum[i] - old.cum[i]
	}
	return d, true
}

// add sums two histograms with the same buckets; an empty one takes the
// other's. ok is false if the buckets differ.
func (h histogram) add(o histogram) (histogram, bool) {
	if len(o.cum) == 0 || o.count() == 0 {
		return h, true
	}
	if len(h.cum) == 0 || h.count() == 0 {
		return histogram{bounds: o.bounds, cum: slices.Clone(o.cum)}, true
	}
	if !h.sameBounds(o) {
		return h, false
	}
	s := histogram{bounds: h.bounds, cum: make([]float64, len(h.cum))}
	for i := range h.cum {
		s.cum[i] = h.cum[i] + o.cum[i]
	}
	return s, true
}

// quantile estimates the q-quantile the way Prometheus' histogram_quantile
// does: find the bucket holding rank q·count and interpolate linearly
// inside it (from 0 for the first bucket); a rank in the +Inf bucket gives
// the highest finite bound. ok is false without observations.
func (h histogram) quantile(q float64) (float64, bool) {
	n := len(h.cum)
	if n < 2 || !math.IsInf(h.bounds[n-1], 1) || h.count() <= 0 || q < 0 || q > 1 {
		return 0, false
	}
	rank := q * h.count()
	b := 0
	for b < n-1 && h.cum[b] < rank {
		b++
	}
	if b == n-1 {
		return h.bounds[n-2], true
	}
	if b == 0 && h.bounds[0] <= 0 {
		return h.bounds[0], true
	}
	start, end, count := 0.0, h.bounds[b], h.cum[b]
	if b > 0 {
		start = h.bounds[b-1]
		count -= h.cum[b-1]
		rank -= h.cum[b-1]
	}
	if count <= 0 {
		return end, true
	}
	return start + (end-start)*(rank/count), true
}

// metricsScrape is one reading of the exposition. Series with labels
// other than le are summed over their label sets.
type metricsScrape struct {
	at     time.Time // when the request was sent
	values map[string]float64
	hists  map[string]histogram
}

func (m *metricsScrape) value(name string) (float64, bool) {
	if m == nil {
		return 0, false
	}
	v, ok := m.values[name]
	return v, ok
}

// parseExposition reads the Prometheus text format. Lines it cannot read
// are skipped; a body without any termarena_ series is an error (a wrong
// URL answering 200 with a web page, say).
func parseExposition(r io.Reader) (*metricsScrape, error) {
	m := &metricsScrape{values: map[string]float64{}, hists: map[string]histogram{}}
	buckets := map[string]map[float64]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	ours := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		name, le, value, ok := parseSeries(line)
		if !ok {
			continue
		}
		ours = ours || strings.HasPrefix(name, "termarena_")
		if base, isBucket := strings.CutSuffix(name, "_bucket"); isBucket && le != "" {
			bound, err := strconv.ParseFloat(le, 64)
			if err != nil {
				continue
			}
			if buckets[base] == nil {
				buckets[base] = map[float64]float64{}
			}
			buckets[base][bound] += value
			continue
		}
		m.values[name] += value
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !ours {
		return nil, errors.New("no termarena_ metrics in the response")
	}
	for name, bs := range buckets {
		var h histogram
		for b := range bs {
			h.bounds = append(h.bounds, b)
		}
		slices.Sort(h.bounds)
		for _, b := range h.bounds {
			h.cum = append(h.cum, bs[b])
		}
		m.hists[name] = h
	}
	return m, nil
}

// parseSeries splits `name{labels} value [timestamp]`, returning the le
// label's value if there is one.
func parseSeries(line string) (name, le string, value float64, ok bool) {
	i := strings.IndexAny(line, "{ \t")
	if i <= 0 {
		return "", "", 0, false
	}
	name, rest := line[:i], line[i:]
	if rest[0] == '{' {
		rest = rest[1:]
		for {
			rest = strings.TrimLeft(rest, " \t,")
			if rest == "" {
				return "", "", 0, false
			}
			if rest[0] == '}' {
				rest = rest[1:]
				break
			}
			eq := strings.IndexByte(rest, '=')
			if eq <= 0 || len(rest) < eq+2 || rest[eq+1] != '"' {
				return "", "", 0, false
			}
			label := strings.TrimSpace(rest[:eq])
			val, after, good := unquoteLabel(rest[eq+2:])
			if !good {
				return "", "", 0, false
			}
			if label == "le" {
				le = val
			}
			rest = after
		}
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", "", 0, false
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return "", "", 0, false
	}
	return name, le, v, true
}

// unquoteLabel reads a label value up to its closing quote (s starts just
// after the opening one), undoing the format's three escapes.
func unquoteLabel(s string) (val, rest string, ok bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], true
		case '\\':
			if i+1 >= len(s) {
				return "", "", false
			}
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			default: // \\ and \"
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false
}

// scraper reads one metrics URL. Requests are bounded by a timeout, never
// follow redirects (which could lead off the checked host), and ignore
// proxy settings.
type scraper struct {
	url    string
	client *http.Client
}

const scrapeTimeout = 750 * time.Millisecond

func newScraper(u string) *scraper {
	return &scraper{url: u, client: &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           (&net.Dialer{Timeout: scrapeTimeout}).DialContext,
			MaxIdleConns:          1,
			IdleConnTimeout:       10 * time.Second,
			ResponseHeaderTimeout: 5 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

func (s *scraper) scrape(ctx context.Context, timeout time.Duration) (*metricsScrape, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	at := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, fmt.Errorf("%s: %s", s.url, resp.Status)
	}
	m, err := parseExposition(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.url, err)
	}
	m.at = at
	return m, nil
}

func (s *scraper) close() { s.client.CloseIdleConnections() }

// checkMetricsURL applies --addr's rule to --metrics: loopback hosts only,
// unless --allow-remote.
func checkMetricsURL(raw string, allowRemote bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("--metrics %q: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("--metrics %q: want an http:// URL such as http://127.0.0.1:9100/metrics", raw)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() || allowRemote {
		return nil
	}
	return fmt.Errorf("--metrics %s is not a loopback address; to scrape a remote server pass --allow-remote", raw)
}

// telDelta is what the server did between two scrapes.
type telDelta struct {
	secs                  float64
	inputToFrame          histogram
	lateness              histogram
	latenessOK            bool
	frameWrite            histogram
	written, skipped      float64
	logins                float64
	frameBytes, frameObs  float64
	countersOK, latencyOK bool
}

// diffScrapes is cur − prev for the figures the report uses.
func diffScrapes(prev, cur *metricsScrape) telDelta {
	d := telDelta{secs: cur.at.Sub(prev.at).Seconds()}
	var ok1, ok2 bool
	d.inputToFrame, ok1 = cur.hists[mInputToFrame].sub(prev.hists[mInputToFrame])
	d.frameWrite, ok2 = cur.hists[mFrameWrite].sub(prev.hists[mFrameWrite])
	d.latencyOK = ok1 && ok2
	d.lateness, d.latenessOK = cur.hists[mTickLateness].sub(prev.hists[mTickLateness])
	d.written = cur.values[mFramesWritten] - prev.values[mFramesWritten]
	d.skipped = cur.values[mFramesSkipped] - prev.values[mFramesSkipped]
	d.logins = cur.values[mLogins] - prev.values[mLogins]
	d.frameBytes = cur.values[mFrameBytes+"_sum"] - prev.values[mFrameBytes+"_sum"]
	d.frameObs = cur.values[mFrameBytes+"_count"] - prev.values[mFrameBytes+"_count"]
	d.countersOK = d.written >= 0 && d.skipped >= 0 && d.logins >= 0 && d.frameObs >= 0
	return d
}

// telAcc sums deltas over the steady part of a run.
type telAcc struct {
	secs             float64
	inputToFrame     histogram
	lateness         histogram
	latenessSkipped  int
	frameWrite       histogram
	written, skipped float64
	logins           float64
	frameBytes       float64
	frameObs         float64
	intervals        int
	intervalsSkipped int // left out whole: a counter or latency bucket went down
}

func (a *telAcc) add(d telDelta) {
	if !d.countersOK || !d.latencyOK {
		a.intervalsSkipped++
		return
	}
	a.intervals++
	a.secs += d.secs
	a.inputToFrame, _ = a.inputToFrame.add(d.inputToFrame)
	a.frameWrite, _ = a.frameWrite.add(d.frameWrite)
	if d.latenessOK {
		var ok bool
		if a.lateness, ok = a.lateness.add(d.lateness); !ok {
			a.latenessSkipped++
		}
	} else {
		a.latenessSkipped++
	}
	a.written += d.written
	a.skipped += d.skipped
	a.logins += d.logins
	a.frameBytes += d.frameBytes
	a.frameObs += d.frameObs
}

// perSession is the memory one session costs: the growth from before the
// first bot connected to the end, shared over the sessions connected at
// the end. It may be negative (memory returned to the OS during the run).
func perSession(before, end uint64, sessions int) (float64, bool) {
	if before == 0 || end == 0 || sessions <= 0 {
		return 0, false
	}
	return (float64(end) - float64(before)) / float64(sessions), true
}

// ms converts seconds to a pointer to milliseconds, for JSON fields that
// are absent when there is nothing to report.
func ms(v float64, ok bool) *float64 {
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	x := v * 1000
	return &x
}
