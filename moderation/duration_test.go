package moderation

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Chat's /mute and /ban and admin's DUR both read durations here; these
// tables are the two that each side had when they had a parser each.

func TestParseDuration(t *testing.T) {
	const day = 24 * time.Hour
	for _, c := range []struct {
		in   string
		want time.Duration
		err  string // substring; "" means success
	}{
		{"90s", 90 * time.Second, ""},
		{"30m", 30 * time.Minute, ""},
		{"24h", 24 * time.Hour, ""},
		{"7d", 7 * day, ""},
		{"2w", 14 * day, ""},
		{"1d12h", 36 * time.Hour, ""},
		{"1h30m15s", time.Hour + 30*time.Minute + 15*time.Second, ""},
		{" 10M ", 10 * time.Minute, ""},
		{"+5m", 5 * time.Minute, ""},
		{"0005m", 5 * time.Minute, ""},
		{"3650d", 3650 * day, ""},
		{"0s", 0, "must be more than zero"},
		{"0d0h", 0, "must be more than zero"},
		{"-5m", 0, "must be positive"},
		{"5", 0, "missing unit"},
		{"", 0, "empty"},
		{"m", 0, "expected a number"},
		{"5x", 0, `unknown unit "x"`},
		{"1y", 0, "unknown unit"},
		{"1.5h", 0, "unknown unit"},
		{"3651d", 0, "longer than 10 years"},
		{"3650d1s", 0, "longer than 10 years"},
		{"99999999999999999999999d", 0, "longer than 10 years"},
		{"9223372036854775807s", 0, "longer than 10 years"},
		{"522w", 0, "longer than 10 years"},
		{"521w", 521 * 7 * day, ""},
		{"5m\x1b[2J", 0, "expected a number"},
	} {
		got, err := ParseDuration(c.in)
		if c.err == "" {
			if err != nil || got != c.want {
				t.Errorf("ParseDuration(%q) = %v, %v; want %v", c.in, got, err, c.want)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrInvalidDuration) || !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseDuration(%q) = %v, %v; want error containing %q", c.in, got, err, c.err)
		}
		if err != nil && strings.ContainsRune(err.Error(), 0x1b) {
			t.Errorf("error echoes a control character: %q", err)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{-time.Second, "0s"},
		{time.Millisecond, "1s"},
		{1500 * time.Millisecond, "2s"},
		{4*time.Minute + 12*time.Second, "4m12s"},
		{time.Minute, "1m"},
		{90 * time.Minute, "1h30m"},
		{24 * time.Hour, "1d"},
		{26*time.Hour + 5*time.Second, "1d2h5s"},
	} {
		if got := FormatDuration(c.d); got != c.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", c.d, got, c.want)
		}
		if c.d >= time.Second && c.d%time.Second == 0 {
			if back, err := ParseDuration(FormatDuration(c.d)); err != nil || back != c.d {
				t.Errorf("round trip of %v: %v, %v", c.d, back, err)
			}
		}
	}
}

func TestParseDurationAsAdminTyped(t *testing.T) {
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
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{
		"", "0s", "0d0h", "-5m", "5", "10x", "1.5h", "h", "1h30", "5ms", "3651d", "522w",
		"9223372036854775807s", "99999999999999999999d", "1d 2h", "١d", "permanent",
	} {
		if got, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) = %v, want an error", bad, got)
		}
	}
}

func TestFormatDurationAsAdminTyped(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                                 "0s",
		-time.Minute:                      "0s",
		500 * time.Millisecond:            "1s", // rounded up: never "0s" while a mute still holds
		90 * time.Second:                  "1m30s",
		10 * time.Minute:                  "10m",
		36 * time.Hour:                    "1d12h",
		7*24*time.Hour + time.Second:      "7d1s",
		3650 * 24 * time.Hour:             "3650d",
		25*time.Hour + 61*time.Minute + 1: "1d2h1m1s",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
		if d >= time.Second && d%time.Second == 0 {
			if back, err := ParseDuration(FormatDuration(d)); err != nil || back != d {
				t.Errorf("ParseDuration(FormatDuration(%v)) = %v, %v", d, back, err)
			}
		}
	}
}

func TestLooksLikeDuration(t *testing.T) {
	for in, want := range map[string]bool{"1d": true, "-5m": true, "+5m": true, "0": true, "spam": false, "-": false, "": false, "d1": false} {
		if got := LooksLikeDuration(in); got != want {
			t.Errorf("LooksLikeDuration(%q) = %v, want %v", in, got, want)
		}
	}
}
