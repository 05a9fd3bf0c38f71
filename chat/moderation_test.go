package chat

import (
	"errors"
	"strings"
	"testing"
	"time"
)

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

func TestKindStrings(t *testing.T) {
	if Say.String() != "say" || Notice.String() != "notice" || Kind(99).String() != "kind(99)" {
		t.Error("Kind.String")
	}
	if Ban.String() != "ban" || ModKind(0).String() != "modkind(0)" {
		t.Error("ModKind.String")
	}
	if Admin.String() != "admin" || Role(9).String() != "role(9)" {
		t.Error("Role.String")
	}
	if TeamChannel("r1", 1) != "team:r1:1" || WatchChannel("r1") != "watch:r1" || RoomChannel("r1") != "room:r1" {
		t.Error("channel keys")
	}
}

// TestLiftMuteTellsTheMember: lifting a mute in force tells every session
// of the member; lifting none, or one that already ran out, says nothing.
func TestLiftMuteTellsTheMember(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	bob, carol := player("bob"), player("carol")
	b1, b2 := e.c.Join(bob, LobbyChannel), e.c.Join(bob, RoomChannel("r1"))
	cs := e.c.Join(carol, LobbyChannel)
	e.c.SetMuted(bob.ID, e.now.Add(time.Minute), "spam")
	e.refused(bob, LobbyChannel, "hi", "you are muted")

	e.c.LiftMute(bob.ID, e.now)
	for i, s := range []*Sub{b1, b2} {
		got := s.Drain()
		if len(got) != 1 || got[0].Kind != Notice || got[0].Text != UnmutedText || !got[0].Time.Equal(e.now) {
			t.Fatalf("session %d of bob got %+v", i, got)
		}
	}
	if got := cs.Drain(); len(got) != 0 {
		t.Fatalf("carol was told about bob's mute: %+v", got)
	}
	e.mustSend(bob, LobbyChannel, "thanks")
	b1.Drain()

	e.c.LiftMute(bob.ID, e.now) // not muted
	e.c.SetMuted(bob.ID, e.now.Add(time.Minute), "")
	e.advance(2 * time.Minute)
	e.c.LiftMute(bob.ID, e.now) // ran out already
	if got := b1.Drain(); len(got) != 0 {
		t.Fatalf("bob was told of a mute not in force: %+v", got)
	}
}
