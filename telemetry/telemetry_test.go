package telemetry

import (
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/termarena/termarena/game"
)

type fakeSources struct{ stats []game.TickStats }

func (f fakeSources) Sessions() int               { return 7 }
func (f fakeSources) PlayersOnline() int          { return 5 }
func (f fakeSources) PlayersInMatches() int       { return 4 }
func (f fakeSources) RoomCount() int              { return 2 }
func (f fakeSources) TickStats() []game.TickStats { return f.stats }
func (f fakeSources) Panics() map[string]uint64 {
	return map[string]uint64{"room": 3, "results": 1}
}
func (f fakeSources) RoomsByGame() map[string]int {
	return map[string]int{"pong": 2, "tron": 0}
}

func gather(t *testing.T, m *Metrics, name string) *dto.MetricFamily {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return f
		}
	}
	t.Fatalf("no metric %s", name)
	return nil
}

func TestFrameHistograms(t *testing.T) {
	m := New(fakeSources{})
	m.FrameWritten(57, 100*time.Microsecond)
	m.FrameWritten(120, 2*time.Millisecond)
	m.FrameWritten(5000, 2*time.Second) // a stalled client
	m.FramesSkipped(3)
	m.InputToFrame(3 * time.Millisecond)
	m.InputToFrame(40 * time.Millisecond)

	h := gather(t, m, "termarena_frame_bytes").GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 3 || h.GetSampleSum() != 5177 {
		t.Fatalf("frame bytes: count %d sum %v", h.GetSampleCount(), h.GetSampleSum())
	}
	// Cumulative buckets: ≤64 holds 1, ≤128 holds 2, ≤16384 holds 3.
	want := map[float64]uint64{64: 1, 128: 2, 4096: 2, 16384: 3}
	for _, b := range h.GetBucket() {
		if n, ok := want[b.GetUpperBound()]; ok && b.GetCumulativeCount() != n {
			t.Errorf("bytes bucket ≤%v = %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), n)
		}
	}
	stall := gather(t, m, "termarena_frame_write_seconds").GetMetric()[0].GetHistogram()
	for _, b := range stall.GetBucket() {
		if b.GetUpperBound() == 1 && b.GetCumulativeCount() != 2 {
			t.Errorf("writes ≤1s = %d, want 2 (the 2 s one is a stall)", b.GetCumulativeCount())
		}
	}
	lat := gather(t, m, "termarena_input_to_frame_seconds").GetMetric()[0].GetHistogram()
	for _, b := range lat.GetBucket() {
		if b.GetUpperBound() == 0.005 && b.GetCumulativeCount() != 1 {
			t.Errorf("input→frame ≤5ms = %d, want 1", b.GetCumulativeCount())
		}
	}
	if got := gather(t, m, "termarena_frames_skipped_total").GetMetric()[0].GetCounter().GetValue(); got != 3 {
		t.Errorf("skipped %v", got)
	}
}

func TestTickLatenessFromRooms(t *testing.T) {
	bounds := []time.Duration{250 * time.Microsecond, 500 * time.Microsecond, time.Millisecond, 2 * time.Millisecond,
		4 * time.Millisecond, 8 * time.Millisecond, 16 * time.Millisecond}
	var a, b game.TickStats
	a.LatenessBounds, b.LatenessBounds = bounds, bounds
	a.Lateness[0], a.Lateness[3] = 90, 5 // 90 on time, 5 between 1 and 2 ms
	b.Lateness[0], b.Lateness[7] = 4, 1  // one over 16 ms
	a.Rate, b.Rate = 60, 58
	m := New(fakeSources{stats: []game.TickStats{a, b}})
	h := gather(t, m, "termarena_tick_lateness_seconds").GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 100 {
		t.Fatalf("lateness count %d", h.GetSampleCount())
	}
	for _, bk := range h.GetBucket() {
		if bk.GetUpperBound() == 0.002 && bk.GetCumulativeCount() != 99 {
			t.Errorf("ticks ≤2ms = %d, want 99", bk.GetCumulativeCount())
		}
	}
	s := m.Snapshot()
	if s.TickRate != 59 || s.TickLatenessP99 != 2 || s.TickLatenessOver || s.Rooms != 2 || s.Sessions != 7 || s.PlayersInMatches != 4 {
		t.Fatalf("snapshot %+v", s)
	}
}

// A p99 beyond the largest bucket (a loaded machine) is reported as that
// bound and "over", and the snapshot still encodes as JSON: admin stats
// --json failed with "unsupported value: +Inf" whenever a room's ticks
// ran over 16 ms late.
func TestTickLatenessBeyondTheBucketsEncodes(t *testing.T) {
	bounds := []time.Duration{time.Millisecond, 16 * time.Millisecond}
	var a game.TickStats
	a.LatenessBounds = bounds
	a.Lateness[0], a.Lateness[len(bounds)] = 50, 50 // half the ticks over 16 ms
	a.Rate = 60
	s := New(fakeSources{stats: []game.TickStats{a}}).Snapshot()
	if s.TickLatenessP99 != 16 || !s.TickLatenessOver {
		t.Fatalf("p99 %v ms, over %v; want 16 and over", s.TickLatenessP99, s.TickLatenessOver)
	}
	out, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("the snapshot does not encode: %v", err)
	}
	if !strings.Contains(string(out), `"tick_lateness_p99_ms":16,"tick_lateness_p99_over":true`) {
		t.Fatalf("JSON %s", out)
	}
}

func TestSnapshotRatesAndExposition(t *testing.T) {
	m := New(fakeSources{})
	m.Snapshot()
	for range 30 {
		m.FrameWritten(60, time.Microsecond)
	}
	m.Login()
	s := m.Snapshot()
	if s.FramesWritten != 30 || s.MeanFrameBytes != 60 || s.Logins != 1 || s.FramesPerSecond <= 0 || s.RSSBytes == 0 {
		t.Fatalf("snapshot %+v", s)
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, name := range []string{"termarena_sessions 7", "termarena_frames_written_total 30", "termarena_logins_total 1", "go_goroutines", "process_resident_memory_bytes"} {
		if !strings.Contains(string(body), name) {
			t.Errorf("exposition lacks %q", name)
		}
	}
	var nilM *Metrics // sessions without telemetry call the same hooks
	nilM.FrameWritten(1, 0)
	nilM.InputToFrame(0)
	nilM.Login()
	nilM.FramesSkipped(1)
}

func TestFramesAndRoomsByGame(t *testing.T) {
	m := New(fakeSources{})
	m.Snapshot()
	pong, tron := m.ForGame("pong"), m.ForGame("tron")
	if m.ForGame("tron") != tron {
		t.Fatal("ForGame does not cache its game's sink")
	}
	for range 3 {
		pong.FrameWritten(50, time.Millisecond)
	}
	tron.FrameWritten(200, 2*time.Millisecond)
	tron.FramesSkipped(4)
	tron.InputToFrame(3 * time.Millisecond)
	m.FrameWritten(10, 0) // a screen that does not report by game

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, line := range []string{
		`termarena_frames_written_total 5`,
		`termarena_frames_skipped_total 4`,
		`termarena_frame_bytes_sum 360`,
		`termarena_input_to_frame_seconds_count 1`,
		`termarena_rooms 2`,
		`termarena_game_frames_written_total{game="pong"} 3`,
		`termarena_game_frames_written_total{game="tron"} 1`,
		`termarena_game_frames_skipped_total{game="tron"} 4`,
		`termarena_game_frame_bytes_sum{game="pong"} 150`,
		`termarena_game_frame_bytes_bucket{game="tron",le="256"} 1`,
		`termarena_game_frame_write_seconds_count{game="pong"} 3`,
		`termarena_game_input_to_frame_seconds_count{game="tron"} 1`,
		`termarena_game_rooms{game="pong"} 2`,
		`termarena_game_rooms{game="tron"} 0`,
	} {
		if !strings.Contains(string(body), line+"\n") {
			t.Errorf("exposition lacks %q", line)
		}
	}
	if strings.Contains(string(body), `termarena_game_input_to_frame_seconds_count{game="pong"} 1`) {
		t.Error("tron's keypress counted for pong")
	}

	s := m.Snapshot()
	if s.FramesWritten != 5 || s.FramesSkipped != 4 {
		t.Fatalf("totals %+v", s)
	}
	p, tr := s.Games["pong"], s.Games["tron"]
	if p.Rooms != 2 || p.FramesWritten != 3 || p.MeanFrameBytes != 50 || p.FramesPerSecond <= 0 {
		t.Errorf("pong %+v", p)
	}
	if tr.Rooms != 0 || tr.FramesWritten != 1 || tr.FramesSkipped != 4 || tr.MeanFrameBytes != 200 || tr.SkippedPerSecond <= 0 {
		t.Errorf("tron %+v", tr)
	}
	if s2 := m.Snapshot(); s2.Games["pong"].FramesPerSecond != 0 {
		t.Errorf("pong rate since the last snapshot %v, want 0", s2.Games["pong"].FramesPerSecond)
	}

	var nilM *Metrics
	sink := nilM.ForGame("tron")
	sink.FrameWritten(1, 0)
	sink.FramesSkipped(1)
	sink.InputToFrame(0)
}

func TestGameFramesDoNotAllocate(t *testing.T) {
	m := New(fakeSources{})
	m.ForGame("tron")
	if n := testing.AllocsPerRun(100, func() {
		g := m.ForGame("tron")
		g.FrameWritten(200, time.Millisecond)
		g.FramesSkipped(1)
		g.InputToFrame(time.Millisecond)
	}); n != 0 {
		t.Fatalf("%v allocations per frame", n)
	}
}

func BenchmarkGameFrameWritten(b *testing.B) {
	g := New(fakeSources{}).ForGame("tron")
	b.ReportAllocs()
	for range b.N {
		g.FrameWritten(57, 13*time.Microsecond)
	}
}

func BenchmarkFrameWritten(b *testing.B) {
	m := New(fakeSources{})
	b.ReportAllocs()
	for range b.N {
		m.FrameWritten(57, 13*time.Microsecond)
	}
}

// Recovered panics are a counter by worker, and the snapshot carries the
// rooms' count on its own for admin stats.
func TestPanicsByWorker(t *testing.T) {
	m := New(fakeSources{})
	got := map[string]float64{}
	for _, mt := range gather(t, m, "termarena_panics_total").GetMetric() {
		got[mt.GetLabel()[0].GetValue()] = mt.GetCounter().GetValue()
	}
	if got["room"] != 3 || got["results"] != 1 || len(got) != 2 {
		t.Fatalf("termarena_panics_total %v", got)
	}
	if s := m.Snapshot(); s.RoomPanics != 3 || s.Panics["results"] != 1 {
		t.Fatalf("snapshot room_panics %d, panics %v", s.RoomPanics, s.Panics)
	}
}
