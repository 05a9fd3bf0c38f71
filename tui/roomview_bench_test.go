package tui

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/pace"
)

type countWriter struct{ n, frames int }

func (c *countWriter) WriteFrame(p []byte) error { c.n += len(p); c.frames++; return nil }

// recordedFrames plays a 1v1 match where both paddles chase the ball and
// keeps one frame per 1/30 s (two ticks), as a 30 fps session sees them.
func recordedFrames(tb testing.TB, n int) []*game.Frame {
	g := pong.New(pong.DefaultConfig(pong.OneVOne), 7)
	_ = g.Join(0)
	_ = g.Join(1)
	var out []*game.Frame
	for len(out) < n {
		for range 2 {
			s := g.Snapshot().(*pong.Snapshot)
			var in []game.Input
			for slot := range 2 {
				d := int8(0)
				if s.Ball.Y < s.Paddles[slot].Pos-pong.Sub {
					d = -1
				} else if s.Ball.Y > s.Paddles[slot].Pos+pong.Sub {
					d = 1
				}
				in = append(in, game.Input{Slot: slot, Action: d})
			}
			g.Step(in)
		}
		out = append(out, frameOf(g, 0))
		if _, over := g.Result(); over {
			g = pong.New(pong.DefaultConfig(pong.OneVOne), uint64(len(out)))
			_ = g.Join(0)
			_ = g.Join(1)
		}
	}
	return out
}

func benchFrames(b *testing.B, w, h int, prof colorprofile.Profile) {
	frames := recordedFrames(b, 600)
	cw := &countWriter{}
	now := time.Unix(1000, 0)
	v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(frames[0]), Me: "a", Slot: 0, Out: cw, Profile: prof,
		Width: w, Height: h, Now: func() time.Time { return now }})
	v.setFrame(frames[0], v.cfg.Now())
	v.draw() // the full first paint is not a typical frame
	cw.n, cw.frames = 0, 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		now = now.Add(time.Second / 30)
		v.setFrame(frames[1+i%(len(frames)-1)], now)
		v.draw()
	}
	b.StopTimer()
	if cw.frames > 0 {
		b.ReportMetric(float64(cw.n)/float64(b.N), "B/frame")
		b.ReportMetric(float64(cw.frames)/float64(b.N), "written/frame")
	}
}

func BenchmarkGameFrame80x24(b *testing.B)           { benchFrames(b, 80, 24, colorprofile.ANSI256) }
func BenchmarkGameFrame80x24TrueColor(b *testing.B)  { benchFrames(b, 80, 24, colorprofile.TrueColor) }
func BenchmarkGameFrame200x50(b *testing.B)          { benchFrames(b, 200, 50, colorprofile.ANSI256) }
func BenchmarkGameFrame200x50TrueColor(b *testing.B) { benchFrames(b, 200, 50, colorprofile.TrueColor) }

// frameAllocs is how many allocations v makes a frame, drawing frames[1:]
// one 30th of a second apart on the clock *now (frames[0] drawn already).
func frameAllocs(v *RoomView, frames []*game.Frame, now *time.Time) float64 {
	i := 0
	return testing.AllocsPerRun(len(frames)-1, func() {
		i++
		*now = now.Add(time.Second / 30)
		v.setFrame(frames[1+i%(len(frames)-1)], *now)
		v.draw()
	})
}

// A playing session draws 30 frames a second: a frame allocates nothing
// (the header's texts are made only when what they show changes), for a
// player and for a watcher following one.
func TestGameFramesAllocateNothing(t *testing.T) {
	frames := recordedFrames(t, 300)
	for _, c := range []struct {
		name   string
		slot   int
		follow func() int
	}{
		{"player", 0, nil},
		{"watcher following", -1, func() int { return 1 }},
	} {
		now := time.Unix(1000, 0)
		v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(frames[0]), Me: "a", Slot: c.slot, Out: &countWriter{},
			Profile: colorprofile.ANSI256, Width: 80, Height: 24, Now: func() time.Time { return now }, Follow: c.follow,
			Footer: func() (string, string) { return "watching r1", "q back" }})
		v.setFrame(frames[0], now)
		v.draw()
		if allocs := frameAllocs(v, frames, &now); allocs > 0 {
			t.Errorf("%s: %.0f allocations a frame", c.name, allocs)
		}
	}
}

// A 2v2 frame allocates nothing either: the header asks the game for its
// teams every frame.
func TestTwoVTwoFramesAllocateNothing(t *testing.T) {
	g := pong.New(pong.DefaultConfig(pong.TwoVTwo), 7)
	for s := range 4 {
		if err := g.Join(s); err != nil {
			t.Fatal(err)
		}
	}
	frames := make([]*game.Frame, 0, 101)
	for range 101 {
		g.Step(nil)
		fr := frameOf(g, 0)
		fr.Seats = append(fr.Seats, game.Seat{Player: game.Player{ID: "c", Name: "cat"}, Taken: true, Connected: true},
			game.Seat{Player: game.Player{ID: "d", Name: "dan"}, Taken: true, Connected: true})
		fr.Acks = make([]uint32, 4)
		frames = append(frames, fr)
	}
	now := time.Unix(1000, 0)
	v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(frames[0]), Me: "a", Slot: 0, Out: &countWriter{},
		Profile: colorprofile.ANSI256, Width: 80, Height: 24, Now: func() time.Time { return now }})
	v.setFrame(frames[0], now)
	v.draw()
	if allocs := frameAllocs(v, frames, &now); allocs > 0 {
		t.Errorf("%.0f allocations a frame", allocs)
	}
}

// BenchmarkTakeKey is what a player's key costs from the session's
// terminal to the room screen having it (TakeKey, then Run's goroutine
// taking it off the queue), press and release in turn, with Run drawing
// on a clock that never beats. Run it with -cpu 1, as the server runs:
// the time is then the CPU both goroutines spend, switches included.
func BenchmarkTakeKey(b *testing.B) {
	frames := recordedFrames(b, 2)
	v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(frames[1]), Me: "a", Slot: 0, Out: &countWriter{},
		Profile: colorprofile.ANSI256, Width: 80, Height: 24, Clocks: pace.NewManual()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); v.Run(ctx) }()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if !v.TakeKey(ctx, "w", false, i%2 == 1) {
			b.Fatal("the room screen did not take w")
		}
		for len(v.keys) > 0 {
			runtime.Gosched()
		}
	}
	b.StopTimer()
	cancel()
	<-done
}
