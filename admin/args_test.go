package admin

import (
	"reflect"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	const day = 24 * time.Hour
	for in, want := range map[string]time.Duration{
		"90s":   90 * time.Second,
		"30m":   30 * time.Minute,
		"24h":   day,
		"7d":    7 * day,
		"2w":    14 * day,
		"1d12h": 36 * time.Hour,
		"1h30m": 90 * time.Minute,
		"3650d": 3650 * day,
		"0d1s":  time.Second,
	} {
		if got, err := parseDuration(in); err != nil || got != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{
		"", "0s", "0d0h", "-5m", "5", "10x", "1.5h", "h", "1h30", "5ms", "3651d", "522w",
		"9223372036854775807s", "99999999999999999999d", "1d 2h", "١d", "permanent",
	} {
		if got, err := parseDuration(bad); err == nil {
			t.Errorf("parseDuration(%q) = %v, want an error", bad, got)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                                 "0s",
		-time.Minute:                      "0s",
		500 * time.Millisecond:            "0s",
		90 * time.Second:                  "1m30s",
		10 * time.Minute:                  "10m",
		36 * time.Hour:                    "1d12h",
		7*24*time.Hour + time.Second:      "7d1s",
		3650 * 24 * time.Hour:             "3650d",
		25*time.Hour + 61*time.Minute + 1: "1d2h1m",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
		if d >= time.Second && d%time.Second == 0 {
			if back, err := parseDuration(formatDuration(d)); err != nil || back != d {
				t.Errorf("parseDuration(formatDuration(%v)) = %v, %v", d, back, err)
			}
		}
	}
}

func TestLooksLikeDuration(t *testing.T) {
	for in, want := range map[string]bool{"1d": true, "-5m": true, "0": true, "spam": false, "-": false, "": false, "d1": false} {
		if got := looksLikeDuration(in); got != want {
			t.Errorf("looksLikeDuration(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args  []string
		pos   []string
		bools map[string]bool
		vals  map[string]string
		bad   bool
	}{
		{args: []string{"bob", "1d", "spam", "--ip", "1.2.3.4"}, pos: []string{"bob", "1d", "spam"}, vals: map[string]string{"ip": "1.2.3.4"}},
		{args: []string{"--ip=1.2.3.4", "bob"}, pos: []string{"bob"}, vals: map[string]string{"ip": "1.2.3.4"}},
		{args: []string{"--json", "--all"}, bools: map[string]bool{"json": true, "all": true}},
		{args: []string{"bob", "-5m"}, pos: []string{"bob", "-5m"}},
		{args: []string{"bob", "--", "--not-a-flag", "-x"}, pos: []string{"bob", "--not-a-flag", "-x"}},
		{args: []string{"bob", "-x"}, bad: true},
		{args: []string{"--ip"}, bad: true},
		{args: []string{"--json=yes"}, bad: true},
		{args: []string{"--since", "1h"}, bad: true}, // not one of this command's flags
	}
	for _, tt := range tests {
		p, err := parseArgs(tt.args, []string{"json", "all"}, []string{"ip"})
		if tt.bad {
			if err == nil {
				t.Errorf("parseArgs(%q) accepted it: %+v", tt.args, p)
			}
			continue
		}
		if tt.bools == nil {
			tt.bools = map[string]bool{}
		}
		if tt.vals == nil {
			tt.vals = map[string]string{}
		}
		if err != nil || !reflect.DeepEqual(p.pos, tt.pos) || !reflect.DeepEqual(p.bools, tt.bools) || !reflect.DeepEqual(p.vals, tt.vals) {
			t.Errorf("parseArgs(%q) = %+v, %v; want pos %q bools %v vals %v", tt.args, p, err, tt.pos, tt.bools, tt.vals)
		}
	}
}
