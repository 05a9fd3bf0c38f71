package tui

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/termarena/termarena/pace"
)

// A player flooding keys gets frames at the session's rate, not one per
// key (bug: 20,000 keys a second were answered with 5,000–11,600 frames a
// second), and the HUD's rate says the session's rate (bug: it showed
// 58–60 at 30 while keys were pressed). Frames are counted, against the
// beats the flood lasted.
func TestKeyFloodDrawsAtTheSessionsFrameRate(t *testing.T) {
	const fps = 10
	_, fr := match1v1(t, 10)
	out := &countWriter{}
	v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(fr), Me: "a", Slot: 0, Out: out, Profile: colorprofile.ANSI256,
		Width: 80, Height: 24, FPS: fps})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	start := time.Now()
	go func() { defer close(done); v.Run(ctx) }()
	keys := 0
	// Presses both ways, so every key changes where the paddle goes; long
	// enough for the HUD's rate to be measured twice.
	for keys < 20000 || time.Since(start) < 2500*time.Millisecond {
		v.key(int8(1-2*(keys%2)), false, false)
		keys++
		if keys%32 == 0 {
			runtime.Gosched()
		}
	}
	cancel()
	<-done
	elapsed := time.Since(start)
	// One frame at start and one per beat; a beat's frame may land just
	// after the flood is timed.
	limit := uint64(fps*elapsed.Seconds()) + 3
	if n := v.Frames(); n > limit {
		t.Fatalf("%d keys in %v were answered with %d frames; at %d fps at most %d", keys, elapsed.Round(time.Millisecond), n, fps, limit)
	}
	if v.pace.fps > fps+1 {
		t.Fatalf("the HUD showed %d fps while keys came, at %d fps", v.pace.fps, fps)
	}
}

// atomicFrames counts frames written, readable while the view runs.
type atomicFrames struct{ n atomic.Int64 }

func (a *atomicFrames) WriteFrame([]byte) error { a.n.Add(1); return nil }

// A key is on screen at once, not at the next beat: with a clock that
// never beats, the key's frame is still written (bug: keys waited for the
// next paced frame, up to a frame's time at 30 fps, against the input to
// frame goal of 5 ms). The beat the key's frame took draws nothing, so the
// rate holds (TestKeyFloodDrawsAtTheSessionsFrameRate); a second key
// before that beat waits for it.
func TestKeyIsDrawnWithoutWaitingForTheBeat(t *testing.T) {
	_, fr := match1v1(t, 10)
	out := &atomicFrames{}
	clocks := pace.NewManual()
	v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(fr), Me: "a", Slot: 0, Out: out, Profile: colorprofile.ANSI256,
		Width: 80, Height: 24, FPS: 30, Clocks: clocks})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); v.Run(ctx) }()
	defer func() { cancel(); <-done }()
	waitFrames := func(want int64) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for out.n.Load() < want {
			if time.Now().After(deadline) {
				t.Fatalf("%d frames written, want %d: the key waited for a beat that never came", out.n.Load(), want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	waitFrames(1) // the first frame, at start
	v.key(-1, false, false)
	waitFrames(2)
}
