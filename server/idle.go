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
// The session's driver runs the check on one timer set for when it is due
// (and at once on a key while warned), so it costs no goroutine and wakes
// nothing while the session sits there.
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

// due is when the check next has something to say, given when the
// session's input last arrived: the warning's time, or the close's once
// warned; zero out of the lobby (moving back in sets the clock again).
// Input since only moves the time on: a check that comes early finds
// nothing to say and is set again, so an idle session is looked at once,
// not every few seconds.
func (li *lobbyIdle) due(lastInput time.Time) time.Time {
	if !li.inLobby.Load() && !li.warned {
		return time.Time{}
	}
	active := time.Unix(0, li.since.Load())
	if lastInput.After(active) {
		active = lastInput
	}
	if li.warned {
		return active.Add(li.limit)
	}
	return active.Add(li.limit - li.ahead)
}

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
