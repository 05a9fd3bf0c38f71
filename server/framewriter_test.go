package server

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestGameFramesOnlyWhileTheGameScreenHasTheTerminal drives a session's
// writer the way the driver hands it over: a game frame is written only
// between the hand-over to the game screen and the hand-back (a frame
// before would land on the menus, one after on the player's own screen).
func TestGameFramesOnlyWhileTheGameScreenHasTheTerminal(t *testing.T) {
	var out bytes.Buffer
	l := &lockedWriter{w: &out}
	if err := l.WriteFrame([]byte("[before]")); err == nil {
		t.Error("a frame was written while the menus had the terminal")
	}
	l.handTo(true, "\x1b[>3u")
	if err := l.WriteFrame([]byte("[frame]")); err != nil {
		t.Errorf("a frame while the game screen has the terminal: %v", err)
	}
	l.handTo(false, "\x1b[<u")
	_, _ = l.Write([]byte("menu\n"))
	if err := l.WriteFrame([]byte("[after]")); err == nil {
		t.Error("a frame was written after the terminal went back to the menus")
	}
	if got, want := out.String(), "\x1b[>3u[frame]\x1b[<u"+"menu\r\n"; got != want {
		t.Errorf("the player's terminal got %q, want %q", got, want)
	}
}

// A running game view is told when the terminal is handed to it, so it
// paints it whole at once; a view that has stopped is not, and a stopped
// view's removal leaves a newer view's registration alone.
func TestHandOverWakesTheGameView(t *testing.T) {
	l := &lockedWriter{w: &bytes.Buffer{}}
	var first, second int
	removeFirst := l.OnGiven(func() { first++ })
	_, _ = l.Write([]byte("menu"))
	if first != 0 {
		t.Fatal("a menu write woke the view")
	}
	l.handTo(true, "")
	if first != 1 {
		t.Fatalf("woken %d times by one hand-over", first)
	}
	l.handTo(false, "")
	if first != 1 {
		t.Fatal("the hand-back woke the view")
	}
	removeSecond := l.OnGiven(func() { second++ })
	removeFirst() // the old view ends after the new one started
	l.handTo(true, "")
	if first != 1 || second != 1 {
		t.Fatalf("after replacing: first %d, second %d", first, second)
	}
	removeSecond()
	l.handTo(true, "")
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
	l.handTo(true, "\x1b[?1049h")
	frame := []byte("\x1b7\x1b[3;4H█\x1b8")
	if n := testing.AllocsPerRun(100, func() {
		if err := l.WriteFrame(frame); err != nil {
			t.Fatal(err)
		}
	}); n > 0 {
		t.Errorf("%.0f allocations a frame", n)
	}
}
