package server

import (
	"bytes"
	"io"
	"strings"
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

// A running game view is woken by each of Bubble Tea's writes, so it
// repaints over them at once; a view that has stopped is not, and a
// stopped view's removal leaves a newer view's registration alone.
func TestBubbleTeaWritesWakeTheGameView(t *testing.T) {
	l := &lockedWriter{w: &bytes.Buffer{}}
	var first, second int
	removeFirst := l.OnForeign(func() { first++ })
	_, _ = l.Write([]byte("menu"))
	if first != 1 {
		t.Fatalf("woken %d times by one write", first)
	}
	if err := l.WriteFrame([]byte("frame")); err == nil && first != 1 {
		t.Fatal("a game frame woke the view")
	}
	removeSecond := l.OnForeign(func() { second++ })
	removeFirst() // the old view ends after the new one started
	_, _ = l.Write([]byte("menu"))
	if first != 1 || second != 1 {
		t.Fatalf("after replacing: first %d, second %d", first, second)
	}
	removeSecond()
	_, _ = l.Write([]byte("menu"))
	if second != 1 {
		t.Fatalf("woken after removal: %d", second)
	}
}

// A notice printed after the program ends breaks between words at the
// terminal's width instead of mid-word.
func TestFinalNoticeWrapsAtWords(t *testing.T) {
	text := "You closed termarena in a ranked match. Your seat is kept for 30 s, as after a dropped connection."
	got := wrapNotice(text, 40)
	for _, line := range strings.Split(got, "\r\n") {
		if len(line) > 40 || strings.HasPrefix(line, " ") || strings.HasSuffix(line, " ") {
			t.Fatalf("line %q of %q", line, got)
		}
	}
	if strings.ReplaceAll(got, "\r\n", " ") != text {
		t.Fatalf("words lost or changed: %q", got)
	}
	if wrapNotice(text, 0) != text {
		t.Fatal("an unknown width changed the text")
	}
}

// A game frame's way to the channel allocates nothing: a playing session
// writes 30 frames a second, and every allocation there is the garbage
// collector's work under load (a deferred closure in it made one per
// frame).
func TestGameFrameWriteAllocatesNothing(t *testing.T) {
	l := &lockedWriter{w: io.Discard}
	_, _ = l.Write([]byte("\x1b[?1049h"))
	frame := []byte("\x1b7\x1b[3;4H█\x1b8")
	if n := testing.AllocsPerRun(100, func() {
		l.Foreign()
		if err := l.WriteFrame(frame); err != nil {
			t.Fatal(err)
		}
	}); n > 0 {
		t.Errorf("%.0f allocations a frame", n)
	}
}
