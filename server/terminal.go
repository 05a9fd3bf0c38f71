package server

import (
	"context"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/termarena/termarena/termkey"
	"github.com/termarena/termarena/tui"
)

// terminal is where a session's keys go once decoded: to a player's room
// screen first while one is up (Play), which maps the game's keys on its
// own goroutine, so a key in play never reaches the menu's model; every
// other key, and everything else, goes on to the menu.
//
// The keys are read and decoded by the session's one reader (after
// inputguard) and handed over here by the driver running, before Update:
// that keeps the order of keys and Updates exact: a key after t is
// offered only once t's Update has opened the chat line.
type terminal struct {
	play atomic.Pointer[tui.KeyTaker]

	// The room screens the lobby handed over (Drive) and the driver has
	// yet to take (screens), under mu: tests hand them from other
	// goroutines than the session's.
	mu      sync.Mutex
	screens []drivenScreen
	// resync is set, and wake poked, when a screen is handed over or the
	// room of the one the driver runs is left: the driver's per-frame
	// loop looks at the screens only then (driver.syncScreen).
	resync atomic.Bool
	wake   wake // the driver's
}

// flagResync tells the driver to look at its room screens again.
func (t *terminal) flagResync() {
	t.resync.Store(true)
	t.wake.poke()
}

// drivenScreen is a room screen the driver runs until ctx ends.
type drivenScreen struct {
	ctx context.Context
	v   *tui.RoomView
}

// Drive hands a player's room screen to the session's driver, which runs it
// until ctx ends (tui.ScreenDriver): in the play loop, or in the menus'
// loop under a model that says no game screen is up.
func (t *terminal) Drive(ctx context.Context, v *tui.RoomView) {
	t.mu.Lock()
	t.screens = append(t.screens, drivenScreen{ctx, v})
	t.mu.Unlock()
	t.flagResync()
}

// takeScreens is the screens handed over since the last call.
func (t *terminal) takeScreens() []drivenScreen {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.screens
	t.screens = nil
	return s
}

// Play offers every key to k first until release (tui.Terminal).
func (t *terminal) Play(k tui.KeyTaker) (release func()) {
	p := &k
	t.play.Store(p)
	return func() { t.play.CompareAndSwap(p, nil) }
}

// filter runs on the session's goroutine before each Update: a key the
// room screen takes is gone (nil); anything else goes on.
func (t *terminal) filter(ctx context.Context, msg tea.Msg) tea.Msg {
	p := t.play.Load()
	if p == nil {
		return msg
	}
	switch k := msg.(type) {
	case tea.KeyPressMsg:
		if (*p).TakeKey(ctx, k.String(), k.IsRepeat, false) {
			return nil
		}
	case tea.KeyReleaseMsg:
		if (*p).TakeKey(ctx, k.String(), false, true) {
			return nil
		}
	}
	return msg
}

// takeEvent is filter for a key not yet made a message (driver.keyMsgs):
// whether the room screen took it.
func (t *terminal) takeEvent(ctx context.Context, e *termkey.Event) bool {
	p := t.play.Load()
	if p == nil || e.Paste {
		return false
	}
	if e.Release {
		return (*p).TakeKey(ctx, e.Key.String(), false, true)
	}
	return (*p).TakeKey(ctx, e.Key.String(), e.Key.IsRepeat, false)
}
