package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/termarena/termarena/buildinfo"
	"github.com/termarena/termarena/telemetry"
)

func TestStats(t *testing.T) {
	e := newEnv(t)
	d := e.deps()
	d.Stats = func() telemetry.Stats {
		return telemetry.Stats{Sessions: 12, Rooms: 3, FramesWritten: 900, FramesPerSecond: 30, TickLatenessP99: 0.5}
	}
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), d, adminCaller(), []string{"stats"}, &out, &errOut); code != ExitOK {
		t.Fatalf("stats: %d %q", code, errOut.String())
	}
	for _, want := range []string{"build", "sessions", "12", "rooms", "900 (30/s)", "0.50 ms"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stats lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := Run(context.Background(), d, adminCaller(), []string{"stats", "--json"}, &out, &errOut); code != ExitOK {
		t.Fatal(code)
	}
	var s struct {
		Sessions int `json:"sessions"`
		Rooms    int `json:"rooms"`
		Build    struct {
			Version, Revision, Date string
		} `json:"build"`
	}
	if err := json.Unmarshal(out.Bytes(), &s); err != nil || s.Sessions != 12 || s.Rooms != 3 {
		t.Fatalf("stats --json: %v %s", err, out.String())
	}
	if b := buildinfo.Read(); s.Build.Version != b.Version || s.Build.Revision != b.Revision || s.Build.Date != b.Date {
		t.Errorf("stats --json build %+v, want %+v", s.Build, b)
	}
	if code := Run(context.Background(), d, Caller{Name: "bob"}, []string{"stats"}, &out, &errOut); code != ExitDenied {
		t.Fatalf("non-admin stats: %d", code)
	}
	if code := Run(context.Background(), d, adminCaller(), []string{"stats", "now"}, &out, &errOut); code != ExitUsage {
		t.Fatalf("stats with an argument: %d", code)
	}
}
