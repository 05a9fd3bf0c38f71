package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"
)

// WaitMsg is a command that only waits, handed to the session's driver
// instead of run: a goroutine parked on a channel for every live figure
// of every session (the chat's next line, the online count, a room's end)
// cost a session as many goroutines as it had lists on screen. The driver
// waits for them all in the one place it waits for keys, and once Until
// can be received from (ok false: it was closed) runs Then as a command.
// A receive on Stop (nil: never) drops the wait. Then does not run before
// NotBefore (zero: at once): a figure every login or move changes (the
// online count, who is online) is read at most once a gap, however many
// changes a burst brings, and still soon after the last of them.
//
// A driver that does not know WaitMsg hands it to the lobby's Update,
// which runs it as the blocking command it stands for.
type WaitMsg struct {
	Until     <-chan struct{}
	Stop      <-chan struct{}
	Then      func(ok bool) tea.Msg
	NotBefore time.Time
}

// waitFor is the command that hands w to the driver.
func waitFor(w WaitMsg) tea.Cmd { return func() tea.Msg { return w } }

// block is w as a command that waits on its own goroutine, until Until,
// Stop or the session's end.
func (w WaitMsg) block(ctx context.Context) tea.Cmd {
	return func() tea.Msg {
		select {
		case _, ok := <-w.Until:
			if d := time.Until(w.NotBefore); d > 0 {
				t := time.NewTimer(d)
				defer t.Stop()
				select {
				case <-t.C:
				case <-w.Stop:
					return nil
				case <-ctx.Done():
					return nil
				}
			}
			return w.Then(ok)
		case <-w.Stop:
		case <-ctx.Done():
		}
		return nil
	}
}
