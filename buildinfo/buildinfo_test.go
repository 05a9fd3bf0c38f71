package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromBuild(t *testing.T) {
	stamped := &debug.BuildInfo{
		Main: debug.Module{Path: "github.com/termarena/termarena", Version: "v0.0.0-20261125015104-973820c3fd77"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "973820c3fd775bde4ddac42bbdfa40b771202994"},
			{Key: "vcs.time", Value: "2026-11-25T01:51:04Z"},
			{Key: "vcs.modified", Value: "false"},
		},
	}
	dirty := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "973820c"}, {Key: "vcs.modified", Value: "true"},
	}}
	for _, tc := range []struct {
		name          string
		bi            *debug.BuildInfo
		ver, rev, day string
		want          Info
	}{
		{"git checkout", stamped, "", "", "",
			Info{"v0.0.0-20261125015104-973820c3fd77", "973820c3fd775bde4ddac42bbdfa40b771202994", "2026-11-25T01:51:04Z"}},
		{"docker build: -X wins", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "v1.2.0", "abc123", "2026-11-25T07:00:00Z",
			Info{"v1.2.0", "abc123", "2026-11-25T07:00:00Z"}},
		{"-X over a stamp", stamped, "v1.2.0", "", "",
			Info{"v1.2.0", "973820c3fd775bde4ddac42bbdfa40b771202994", "2026-11-25T01:51:04Z"}},
		{"uncommitted changes", dirty, "", "", "", Info{"unknown", "973820c-modified", "unknown"}},
		{"nothing recorded", nil, "", "", "", Info{"unknown", "unknown", "unknown"}},
	} {
		if got := fromBuild(tc.bi, tc.ver, tc.rev, tc.day); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if s := (Info{"v1.2.0", "abc123", "2026-11-25T07:00:00Z"}).String(); s != "termarena v1.2.0 (revision abc123, built 2026-11-25T07:00:00Z)" {
		t.Errorf("String: %q", s)
	}
}
