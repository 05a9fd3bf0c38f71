package server

import (
	"bytes"
	"testing"
)

// TestGameFramesOnlyOnTheScreenTheyWereDrawnFor drives a session's writer
// the way Bubble Tea and the game view share it: a frame is written only on
// the alternate screen, and only if Bubble Tea has not drawn since the view
// last read Foreign (the frame would then hold only what changed on a
// screen that is gone).
func TestGameFramesOnlyOnTheScreenTheyWereDrawnFor(t *testing.T) {
	var out bytes.Buffer
	l := &lockedWriter{w: &out}
	frame := func(s string) error {
		l.Foreign()
		return l.WriteFrame([]byte(s))
	}
	if err := frame("[before setup]"); err == nil {
		t.Error("a frame was written before Bubble Tea entered the alternate screen")
	}
	l.Foreign()
	_, _ = l.Write([]byte("\x1b[?1049h\x1b[2J"))
	if err := l.WriteFrame([]byte("[stale]")); err == nil {
		t.Error("a frame drawn before Bubble Tea cleared the screen was written after it")
	}
	if err := frame("[frame]"); err != nil {
		t.Errorf("a frame on the alternate screen: %v", err)
	}
	_, _ = l.Write([]byte("\x1b[?1049l\x1b[?25h"))
	if err := frame("[after restore]"); err == nil {
		t.Error("a frame was written after Bubble Tea left the alternate screen")
	}
	if got, want := out.String(), "\x1b[?1049h\x1b[2J[frame]\x1b[?1049l\x1b[?25h"; got != want {
		t.Errorf("the player's terminal got %q, want %q", got, want)
	}
}
