package chat

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestFloodBurstAndRefill(t *testing.T) {
	// Violations are not what this test is about: never auto-mute.
	e := newEnv(t, Config{Filter: noFilter(t), Flood: FloodConfig{Violations: 1000}})
	alice := player("alice")
	e.c.Join(alice, LobbyChannel)
	n := 0
	msg := func() string { n++; return fmt.Sprintf("message %d", n) }

	steps := []struct {
		advance time.Duration
		sends   int // sends at this instant
		ok      int // how many of them go through
	}{
		{0, 6, 5},           // burst of 5, the 6th refused
		{time.Second, 2, 1}, // one token back per second
		{500 * time.Millisecond, 1, 0},
		{500 * time.Millisecond, 1, 1},
		{10 * time.Second, 7, 5}, // the bucket holds at most 5
	}
	for i, s := range steps {
		e.advance(s.advance)
		got := 0
		for range s.sends {
			in := msg()
			r := e.send(alice, LobbyChannel, in)
			if r.Delivered {
				got++
				continue
			}
			if !strings.Contains(replyText(r), "too fast") {
				t.Fatalf("step %d: %q refused with %q, want a 'too fast' reason", i, in, replyText(r))
			}
			if r.Action != nil {
				t.Fatalf("step %d: unexpected action %+v", i, r.Action)
			}
		}
		if got != s.ok {
			t.Errorf("step %d: %d of %d delivered, want %d", i, got, s.sends, s.ok)
		}
	}
}

func TestFloodTellsHowLongToWait(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	alice := player("alice")
	e.c.Join(alice, LobbyChannel)
	for i := range 5 {
		e.mustSend(alice, LobbyChannel, fmt.Sprintf("m%d", i))
	}
	e.advance(300 * time.Millisecond)
	e.refused(alice, LobbyChannel, "m5", "wait 1s")
}

func TestDuplicateWithinWindow(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	alice, bob := player("alice"), player("bob")
	e.c.Join(alice, LobbyChannel)
	e.c.Join(bob, LobbyChannel)

	e.mustSend(alice, LobbyChannel, "Good game everyone")
	e.advance(5 * time.Second)
	// Case and white space do not make a message new.
	e.refused(alice, LobbyChannel, "  good   GAME everyone ", "you just said that (you can repeat it in 25s)")
	e.mustSend(alice, LobbyChannel, "good game, everyone") // different text
	e.mustSend(bob, LobbyChannel, "good game everyone")    // per identity
	e.mustSend(alice, LobbyChannel, "/me good game everyone")
	e.advance(24 * time.Second) // 29 s after the first
	e.refused(alice, LobbyChannel, "good game everyone", "you can repeat it in 1s")
	e.advance(time.Second) // 30 s: allowed again
	e.mustSend(alice, LobbyChannel, "good game everyone")
}

func TestDuplicateWhisperToManyPeople(t *testing.T) {
	// The same advert whispered to one person after another is still a
	// repeat.
	e := newEnv(t, Config{Filter: noFilter(t)})
	alice := player("alice")
	e.c.Join(alice, LobbyChannel)
	e.c.Join(player("bob"), LobbyChannel)
	e.c.Join(player("carol"), LobbyChannel)
	e.mustSend(alice, LobbyChannel, "/w bob buy gold at example.com")
	e.refused(alice, LobbyChannel, "/w carol buy gold at example.com", "you just said that")
}

func TestAutoMuteEscalation(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	alice, bob := player("alice"), player("bob")
	e.c.Join(alice, LobbyChannel)
	bobSub := e.c.Join(bob, LobbyChannel)

	want := []time.Duration{
		time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute,
		16 * time.Minute, 32 * time.Minute, 64 * time.Minute, 128 * time.Minute,
		256 * time.Minute, 512 * time.Minute, 1024 * time.Minute,
		24 * time.Hour, 24 * time.Hour, // capped
	}
	for round, d := range want {
		text := fmt.Sprintf("spam %d", round)
		e.mustSend(alice, LobbyChannel, text)
		e.refused(alice, LobbyChannel, text, "you just said that")
		r := e.refused(alice, LobbyChannel, text, "you just said that")
		if r.Action != nil {
			t.Fatalf("round %d: muted after 2 violations", round)
		}
		r = e.refused(alice, LobbyChannel, text, "you just said that")
		wantLine := "you are muted for " + FormatDuration(d) + ": " + floodReason
		if !strings.Contains(replyText(r), wantLine) {
			t.Fatalf("round %d: reply %q, want it to contain %q", round, replyText(r), wantLine)
		}
		a := r.Action
		if a == nil || a.Kind != Mute || !a.Auto || a.Actor != SystemActor || a.Duration != d ||
			a.Target != "alice" || a.TargetID != alice.ID || a.Reason != floodReason || !a.Time.Equal(e.now) {
			t.Fatalf("round %d: action %+v, want automatic mute of alice for %v", round, a, d)
		}
		// While muted: refused with the time left, and that is not a
		// further violation (it would escalate forever).
		e.advance(d - 10*time.Second)
		for range 5 {
			r := e.refused(alice, LobbyChannel, "hello?", "you are muted for 10s: "+floodReason)
			if r.Action != nil {
				t.Fatalf("round %d: muted send produced action %+v", round, r.Action)
			}
		}
		e.advance(10 * time.Second) // the mute ends
		e.mustSend(alice, LobbyChannel, fmt.Sprintf("sorry %d", round))
		e.advance(time.Minute) // let the violation window pass
	}
	if bobSub.Missed() != 0 {
		t.Fatalf("bob missed messages")
	}

	// 24 h after the last automatic mute ended, escalation starts over.
	e.advance(24 * time.Hour)
	e.mustSend(alice, LobbyChannel, "back")
	for range 3 {
		e.send(alice, LobbyChannel, "back")
	}
	if until, _, ok := e.c.Muted(alice.ID, e.now); !ok || until.Sub(e.now) != time.Minute {
		t.Fatalf("after decay: muted=%v for %v, want 1m", ok, until.Sub(e.now))
	}
}

func TestAutoMuteNotJustBeforeDecay(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	alice := player("alice")
	e.c.Join(alice, LobbyChannel)
	violate := func(text string) *ModAction {
		e.mustSend(alice, LobbyChannel, text)
		var a *ModAction
		for range 3 {
			if r := e.send(alice, LobbyChannel, text); r.Action != nil {
				a = r.Action
			}
		}
		return a
	}
	if a := violate("one"); a == nil || a.Duration != time.Minute {
		t.Fatalf("first: %+v", a)
	}
	// 23h59m after that mute ended: still escalated.
	e.advance(time.Minute + 24*time.Hour - time.Minute)
	if a := violate("two"); a == nil || a.Duration != 2*time.Minute {
		t.Fatalf("second: %+v", a)
	}
}

func TestViolationsOutsideWindowDoNotMute(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	alice := player("alice")
	e.c.Join(alice, LobbyChannel)
	for i := range 10 {
		text := fmt.Sprintf("t%d", i)
		e.mustSend(alice, LobbyChannel, text)
		if r := e.refused(alice, LobbyChannel, text, "you just said that"); r.Action != nil {
			t.Fatalf("violation %d muted: %+v", i, r.Action)
		}
		e.advance(31 * time.Second) // two violations per 60 s at most
	}
}

func TestMuteFromServer(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	alice := player("alice")
	e.c.Join(alice, LobbyChannel)

	e.c.SetMuted(alice.ID, e.now.Add(4*time.Minute+12*time.Second), "spam")
	e.refused(alice, LobbyChannel, "hi", "you are muted for 4m12s: spam")
	e.refused(alice, LobbyChannel, "/w bob hi", "you are muted")
	e.refused(alice, LobbyChannel, "/me hi", "you are muted")
	// Commands that only answer the sender still work.
	if r := e.send(alice, LobbyChannel, "/who"); !strings.Contains(replyText(r), "alice") {
		t.Fatalf("/who while muted: %q", replyText(r))
	}
	e.advance(4*time.Minute + 11*time.Second + 500*time.Millisecond)
	e.refused(alice, LobbyChannel, "hi", "you are muted for 1s: spam") // rounded up
	e.advance(500 * time.Millisecond)
	e.mustSend(alice, LobbyChannel, "hi")

	e.c.SetMuted(alice.ID, time.Time{}, "")
	e.refused(alice, LobbyChannel, "hello", "you are muted until a moderator lifts it")
	e.c.ClearMuted(alice.ID)
	e.mustSend(alice, LobbyChannel, "hello")

	// A mute restored at startup applies before the member ever joins.
	carol := player("carol")
	e.c.SetMuted(carol.ID, e.now.Add(time.Hour), "abuse")
	e.c.Join(carol, LobbyChannel)
	e.refused(carol, LobbyChannel, "hi", "you are muted for 1h: abuse")
}

func TestDupKeyNormalises(t *testing.T) {
	same := [][2]string{
		{"hello world", "HELLO    world"},
		{"a b", "a\u00a0b"},
		{"KELVIN", "\u212aelvin"},
	}
	for _, p := range same {
		if dupKey(Say, p[0]) != dupKey(Say, p[1]) {
			t.Errorf("%q and %q differ", p[0], p[1])
		}
	}
	differ := [][2]string{{"ab", "a b"}, {"hello", "hello!"}}
	for _, p := range differ {
		if dupKey(Say, p[0]) == dupKey(Say, p[1]) {
			t.Errorf("%q and %q collide", p[0], p[1])
		}
	}
	if dupKey(Say, "x") == dupKey(Me, "x") {
		t.Error("kind ignored")
	}
}
