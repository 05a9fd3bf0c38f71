package chat

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzSend: whatever a member types, Send does not panic, and nothing it
// delivers or replies can act on a terminal.
func FuzzSend(f *testing.F) {
	for _, s := range []string{
		"hello", "/w bob hi", "/r hi", "/me waves", "/ignore bob", "/unignore bob",
		"/who", "/help", "/mute bob 5m spam", "/ban bob 99999999999999d", "/kick",
		"//x", "/", "/w", "f.u.c.k", "sh1t", "\x1b[31mred", "\x9b2J", "a\u202eb",
		"\xff\xfe", "/w b\x00ob hi", "/mute bob \x1b]0;x\x07", strings.Repeat("f u c k ", 60),
		"/warn bob \u2028reason", "/me \u200b", "@bob", "/w @bob \t hi",
	} {
		f.Add(s, uint8(0), uint8(0))
	}
	f.Fuzz(func(t *testing.T, input string, who, where uint8) {
		c := New(Config{})
		members := []Member{player("alice"), player("bob"), staff("mo", Moderator), staff("root1", Admin), guest("guest-1")}
		channels := []ChannelKey{LobbyChannel, RoomChannel("r1"), WatchChannel("r1"), WhisperChannel}
		var subs []*Sub
		for _, m := range members {
			subs = append(subs, c.Join(m, LobbyChannel, RoomChannel("r1")))
		}
		from := members[int(who)%len(members)]
		ch := channels[int(where)%len(channels)]
		now := t0
		var results []Result
		// The input as typed, and as the text of each message-bearing
		// command, so the fuzzer reaches every path with the same bytes.
		for _, in := range []string{input, "/w bob " + input, "/me " + input, "/r " + input, "/mute bob " + input, "/ignore " + input} {
			results = append(results, c.Send(from, ch, in, now))
			now = now.Add(time.Second)
		}
		for _, r := range results {
			for _, m := range r.Reply {
				checkInert(t, "reply", m.Text)
			}
			if a := r.Action; a != nil {
				checkInert(t, "reason", a.Reason)
				checkInert(t, "target", a.Target)
			}
		}
		for _, s := range subs {
			for _, m := range s.Drain() {
				checkInert(t, "delivered", m.Text)
				if n := utf8.RuneCountInString(m.Text); n > MaxText {
					t.Errorf("delivered %d runes", n)
				}
				if m.Text == "" {
					t.Error("delivered an empty message")
				}
			}
		}
	})
}

func checkInert(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("%s: invalid UTF-8 %q", what, s)
	}
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b == 0x7f {
			t.Fatalf("%s: control byte %#x in %q", what, b, s)
		}
	}
	for _, r := range s {
		if r >= 0x80 && r <= 0x9f {
			t.Fatalf("%s: C1 control %U in %q", what, r, s)
		}
	}
}
