// Command termarena-webload opens many web viewers of one live room (its
// Server-Sent Events stream, gzipped as browsers ask for it) and reports
// what each got: frames a second (whole screens and row diffs alike) and
// bytes on the wire a second. It is the load client behind BENCHMARKS.md's
// live-viewer figures. Its report says when the tool itself, not the
// server, was the limit: when it used more than 90 % of the cores it may
// use (GOMAXPROCS: one under taskset -c 1), or its readers waited longer
// than a frame (1/15 s) to run.
//
//	termarena-webload -url http://127.0.0.1:8080/r/r1/live -viewers 1000 -duration 20s
package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	url := flag.String("url", "", "the live stream: http://HOST:PORT/r/ROOM/live")
	viewers := flag.Int("viewers", 100, "viewers to open")
	ramp := flag.Duration("ramp", 5*time.Second, "time over which the viewers connect")
	dur := flag.Duration("duration", 20*time.Second, "how long to measure once all are connected")
	cpuProfile := flag.String("cpuprofile", "", "write the tool's CPU profile of the measured stretch to this file")
	flag.Parse()
	if *url == "" || *viewers < 1 {
		flag.Usage()
		os.Exit(2)
	}
	os.Exit(run(*url, *viewers, *ramp, *dur, *cpuProfile))
}

// countingReader counts the bytes read through it (the wire bytes).
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

type viewer struct {
	wire, frames atomic.Int64
	err          atomic.Value
}

func run(url string, n int, ramp, dur time.Duration, profile string) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr := &http.Transport{MaxConnsPerHost: 0, DisableCompression: true}
	client := &http.Client{Transport: tr}
	vs := make([]*viewer, n)
	var wg sync.WaitGroup
	for i := range vs {
		vs[i] = &viewer{}
		wg.Add(1)
		go func(v *viewer) {
			defer wg.Done()
			req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			resp, err := client.Do(req)
			if err != nil {
				v.err.Store(err.Error())
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				v.err.Store(resp.Status)
				return
			}
			var body io.Reader = countingReader{resp.Body, &v.wire}
			if resp.Header.Get("Content-Encoding") == "gzip" {
				zr, err := gzip.NewReader(body)
				if err != nil {
					v.err.Store(err.Error())
					return
				}
				body = zr
			}
			countFrames(body, &v.frames)
		}(vs[i])
		time.Sleep(ramp / time.Duration(n))
	}
	time.Sleep(2 * time.Second) // let the last ones get their first frame
	w0, f0 := snapshot(vs)
	start := time.Now()
	cpu0 := processCPU()
	sched := newSchedLatency()
	stopProfile, err := startProfile(profile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "termarena-webload:", err)
		return 1
	}
	time.Sleep(dur)
	stopProfile()
	w1, f1 := snapshot(vs)
	secs := time.Since(start).Seconds()
	cpuShare := (processCPU() - cpu0).Seconds() / secs / float64(runtime.GOMAXPROCS(0))
	schedP99 := sched.p99()
	cancel()
	wg.Wait()
	var fps, bps []float64
	failed := map[string]int{}
	for i, v := range vs {
		if e, ok := v.err.Load().(string); ok {
			failed[e]++
			continue
		}
		fps = append(fps, float64(f1[i]-f0[i])/secs)
		bps = append(bps, float64(w1[i]-w0[i])/secs)
	}
	slices.Sort(fps)
	slices.Sort(bps)
	fmt.Printf("viewers %d, streaming %d, failed %v, over %.1fs\n", n, len(fps), failed, secs)
	if len(fps) > 0 {
		fmt.Printf("frames/s per viewer: min %.1f  median %.1f  max %.1f\n", fps[0], fps[len(fps)/2], fps[len(fps)-1])
		fmt.Printf("wire bytes/s per viewer: min %.0f  median %.0f  max %.0f (all viewers %.1f KB/s)\n", bps[0], bps[len(bps)/2], bps[len(bps)-1], sum(bps)/1000)
	}
	fmt.Printf("tool: %.0f%% of its %d core(s), its goroutines waited %.1f ms (p99) to run\n", 100*cpuShare, runtime.GOMAXPROCS(0), schedP99)
	if why := clientBound(cpuShare, schedP99); why != "" {
		fmt.Printf("WARNING client-bound: %s; the figures above are limited by this tool, not only the server (open fewer viewers, or give the tool a core of its own)\n", why)
	}
	if len(fps) < n {
		return 1
	}
	return 0
}

func snapshot(vs []*viewer) (wire, frames []int64) {
	for _, v := range vs {
		wire = append(wire, v.wire.Load())
		frames = append(frames, v.frames.Load())
	}
	return wire, frames
}

func sum(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t
}

// countFrames counts the frames in an event stream until it ends: a whole
// screen, or the rows that changed since the frame before (what a viewer
// that keeps up gets): either is a frame the viewer shows.
func countFrames(r io.Reader, n *atomic.Int64) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if t := sc.Text(); strings.HasPrefix(t, `data: {"rows"`) || strings.HasPrefix(t, `data: {"diff"`) {
			n.Add(1)
		}
	}
}
