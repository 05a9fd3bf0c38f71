package server

import (
	"testing"
	"time"
)

// The idle check is due only when it has something to say: the warning a
// minute before the limit, the close at it, nothing out of the lobby; a
// key moves the time on. (It ran on a 10 s ticker in every lobby session,
// 100 wakeups a second for 1,000 idle lobbies.)
func TestIdleCheckIsDueOnlyWhenItHasSomethingToSay(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	li := newLobbyIdle(30*time.Minute, "lobby", t0)
	if got, want := li.due(time.Time{}), t0.Add(29*time.Minute); !got.Equal(want) {
		t.Fatalf("idle since t0: due %v, want the warning's time %v", got, want)
	}
	key := t0.Add(10 * time.Minute)
	if got, want := li.due(key), key.Add(29*time.Minute); !got.Equal(want) {
		t.Fatalf("a key at +10m: due %v, want %v", got, want)
	}
	// An early check (the key came after the timer was set) says nothing.
	if _, says := li.check(t0.Add(29*time.Minute), key); says {
		t.Fatal("an early check said something")
	}
	warnAt := key.Add(29 * time.Minute)
	if msg, says := li.check(warnAt, key); !says || msg.Final {
		t.Fatalf("at the warning's time: %+v %v", msg, says)
	}
	if got, want := li.due(key), key.Add(30*time.Minute); !got.Equal(want) {
		t.Fatalf("warned: due %v, want the close's time %v", got, want)
	}
	li.moved("r1", warnAt.Add(time.Second))
	if msg, says := li.check(warnAt.Add(time.Second), key); !says || msg.Text != "" {
		t.Fatalf("moved into a room while warned: %+v %v, want the warning cleared", msg, says)
	}
	if got := li.due(key); !got.IsZero() {
		t.Fatalf("in a room: due %v, want none", got)
	}
}
