package server

import (
	"context"
	"io"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/termarena/termarena/tui"
)

// terminal is a session's one reader of the client's keys: the bytes pass
// inputguard (SessionReader) and one key decoder, ultraviolet's, the one
// Bubble Tea uses, on the terminal's goroutines rather than the menu
// program's. A decoded key goes to whoever drives the screen: a player's
// room screen first while one is up (Play), which maps the game's keys on
// its own goroutine, so a key in play never passes through the menu
// program; every other event goes to the menu program.
//
// Bubble Tea is given an input that ends at once (noInput), so its own
// reader stops as soon as the program starts; it still believes it has
// input, so it negotiates the kitty keyboard protocol (key releases) and
// asks the terminal what it supports, and the answers reach it from here.
type terminal struct {
	in   io.Reader
	term string // TERM, for the decoder's key table
	play atomic.Pointer[tui.KeyTaker]
}

// Play offers every key to k first until release (tui.Terminal).
func (t *terminal) Play(k tui.KeyTaker) (release func()) {
	p := &k
	t.play.Store(p)
	return func() { t.play.CompareAndSwap(p, nil) }
}

// menu is the menu program as the terminal feeds it.
type menu interface{ Send(tea.Msg) }

// keyFor is a key the menu handles while a room screen is up: the
// terminal waits until its Update has run (done), so what the key changed
// (the chat line opened, a question asked, the room left) holds before the
// next key is offered to the room screen.
type keyFor struct {
	msg  tea.Msg
	done chan struct{}
}

// read starts decoding the client's input until it ends (the channel
// closes) or ctx does. The caller's loop takes the events (and hands each
// to dispatch) beside its own work, and drains them once it is done (see
// runProgram): stopped is closed when the decoder has stopped.
func (t *terminal) read(ctx context.Context) (events <-chan uv.Event, stopped <-chan struct{}) {
	ch := make(chan uv.Event)
	done := make(chan struct{})
	dec := uv.NewTerminalReader(t.in, t.term)
	go func() {
		defer close(done)
		// It stops when the input ends: the SSH channel closes when the
		// session does, after the menu program has returned.
		_ = dec.StreamEvents(ctx, ch)
	}()
	return ch, done
}

// dispatch hands one decoded event to the room screen or the menu. It
// blocks while the menu takes a key (Send waits for the program to read
// it), as the program's own input reader did.
func (t *terminal) dispatch(ctx context.Context, m menu, ev uv.Event) {
	var key string
	var repeat, release bool
	switch e := ev.(type) {
	case uv.KeyPressEvent:
		key, repeat = e.String(), e.IsRepeat
		ev = tea.KeyPressMsg(e)
	case uv.KeyReleaseEvent:
		key, release = e.String(), true
		ev = tea.KeyReleaseMsg(e)
	default:
		m.Send(ev) // Bubble Tea translates what it reads itself
		return
	}
	p := t.play.Load()
	if p == nil {
		m.Send(ev)
		return
	}
	if (*p).TakeKey(ctx, key, repeat, release) {
		return
	}
	k := keyFor{msg: ev, done: make(chan struct{})}
	m.Send(k)
	select {
	case <-k.done:
	case <-ctx.Done():
	}
}

// noInput is the menu program's input: it ends at once, so the program's
// own reader goroutines end at once too (the terminal reads the keys).
type noInput struct{}

func (noInput) Read([]byte) (int, error) { return 0, io.EOF }

// drain keeps taking events until the decoder stops, so it never blocks
// on a send once the session's loop is gone; the caller runs it when the
// session ends.
func drain(events <-chan uv.Event, stopped <-chan struct{}) {
	for {
		select {
		case <-events:
		case <-stopped:
			return
		}
	}
}
