package tui

import (
	"fmt"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
)

// BenchmarkSessionFrame is one 30 fps frame of a player's room screen
// wired as a server session wires it: a title, a round trip that changes
// every 2 s and a probe,
// the watcher count, ratings, the chat pane, so the header, footer and
// pane are asked for their figures every frame as they are on a server
// (BenchmarkGameFrame draws the board alone). Run it with -cpu 1 and
// -cpuprofile to see each part's share: the board (gameview.View.Paint),
// the header and footer (paintHUD), the overlay, the chat pane and
// screen.Render.
func BenchmarkSessionFrame(b *testing.B) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			frames := recordedFrames(b, 600)
			cw := &countWriter{}
			now := time.Unix(1000, 0)
			pane := &ChatLines{header: "chat · room r1 · t/enter to type", marker: "chat · t"}
			labels := [4]string{"1500?", "1523"}
			v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(frames[0]), Me: "a", Slot: 0, Out: cw,
				Profile: colorprofile.ANSI256, Width: size[0], Height: size[1], Title: "r1 · 1v1 · casual",
				Now: func() time.Time { return now },
				// A new round trip every 2 s, as the server's probe.
				RTT:      func() time.Duration { return time.Duration(12+now.Unix()/2%3) * time.Millisecond },
				NoReply:  func() time.Duration { return 0 },
				Watchers: func() int { return 0 },
				Labels:   func(slot int) string { return labels[slot%4] },
				Chat:     func() *ChatLines { return pane }})
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
			b.ReportMetric(float64(cw.n)/float64(b.N), "B/frame")
		})
	}
}

// BenchmarkOverlayFrame is a 30 fps frame while the overlay speaks: the
// opening countdown, the moment after a point, a question during play
// (the board moving under the question).
func BenchmarkOverlayFrame(b *testing.B) {
	countdown, point, play := overlayFrames(b)
	for _, c := range []struct {
		name   string
		frames []*game.Frame
		prompt []string
	}{
		{"countdown", countdown, nil},
		{"point", point, nil},
		{"question", play, []string{"Leave the match?", "y leave · n stay"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			now := time.Unix(1000, 0)
			v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(c.frames[0]), Me: "a", Slot: 0, Out: &countWriter{},
				Profile: colorprofile.ANSI256, Width: 80, Height: 24, Now: func() time.Time { return now }})
			if c.prompt != nil {
				v.SetPrompt(c.prompt...)
			}
			v.setFrame(c.frames[0], now)
			v.draw()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				now = now.Add(time.Second / 30)
				v.setFrame(c.frames[1+i%(len(c.frames)-1)], now)
				v.draw()
			}
		})
	}
}
