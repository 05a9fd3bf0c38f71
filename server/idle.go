package server

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/termarena/termarena/tui"
)

// lobbyIdle closes a session that sits in the lobby untouched for the
// idle limit, with a warning ahead of it: an abandoned terminal holds a
// connection, a slot of the per-IP cap and a Bubble Tea program for
// nothing. A session in a room, a queue, a replay or watching is never
// idle: waiting there is what the player is doing.
//
// The session's window-size goroutine runs the check on a ticker, so it
// costs no goroutine of its own.
type lobbyIdle struct {
	limit time.Duration
	ahead time.Duration // warning this long before the close
	// inLobby and since are written on the program's goroutine after an
	// Update moves the session, and read by the check.
	inLobby atomic.Bool
	since   atomic.Int64 // unix nanoseconds the session last moved
	warned  bool         // the check's own
}

func newLobbyIdle(limit time.Duration, where string, now time.Time) *lobbyIdle {
	li := &lobbyIdle{limit: limit, ahead: min(time.Minute, limit/2)}
	li.moved(where, now)
	return li
}

// every is how often the check runs: often enough to warn and close close
// to their times, rarely enough to cost nothing.
func (li *lobbyIdle) every() time.Duration { return min(10*time.Second, li.ahead/4) }

func (li *lobbyIdle) moved(where string, now time.Time) {
	li.inLobby.Store(where == "lobby")
	li.since.Store(now.UnixNano())
}

// check says what to tell the session at now, given when its input last
// arrived: a warning, a final notice that ends it, a cleared warning once
// the player is back, or nothing.
func (li *lobbyIdle) check(now, lastInput time.Time) (tui.NoticeMsg, bool) {
	active := time.Unix(0, li.since.Load())
	if lastInput.After(active) {
		active = lastInput
	}
	idle := now.Sub(active)
	switch {
	case !li.inLobby.Load() || idle < li.limit-li.ahead:
		if li.warned {
			li.warned = false
			return tui.NoticeMsg{}, true
		}
		return tui.NoticeMsg{}, false
	case idle >= li.limit:
		return tui.NoticeMsg{Text: fmt.Sprintf("Closed after %s idle in the lobby. Come back any time.", span(li.limit)), Final: true}, true
	case !li.warned:
		li.warned = true
		return tui.NoticeMsg{Text: fmt.Sprintf("Idle in the lobby: this session closes in %s unless you press a key.", span(li.limit-idle))}, true
	}
	return tui.NoticeMsg{}, false
}

// span says a duration the way a person would: "30 minutes", "1 minute",
// "45 seconds".
func span(d time.Duration) string {
	plural := func(n int64, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return fmt.Sprintf("%d %ss", n, unit)
	}
	if d >= time.Minute {
		return plural(int64((d+30*time.Second)/time.Minute), "minute")
	}
	return plural(int64((d+time.Second/2)/time.Second), "second")
}
