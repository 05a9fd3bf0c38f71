package tui

import (
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	pongview "github.com/termarena/termarena/game/pong/view"
)

// overlayFrames are 30 fps frames of a 1v1 while the overlay says
// something: the opening countdown (who plays whom and the seconds), the
// moment after a point ("point: bob"), and play going on under a question.
func overlayFrames(t testing.TB) (countdown, point, play []*game.Frame) {
	g := pong.New(pong.DefaultConfig(pong.OneVOne), 42)
	for s := range 2 {
		if err := g.Join(s); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 90 { // three seconds of countdown over a board at rest
		fr := frameOf(g, 0)
		fr.Phase, fr.Left = game.Countdown, 3*time.Second-time.Duration(i)*time.Second/30
		countdown = append(countdown, fr)
	}
	sb := pongview.NewScreen(viewBase, colorprofile.ANSI256)
	for len(point) < 20 && g.Snapshot().(*pong.Snapshot).Tick < 60*60 {
		for range 2 {
			// Both paddles hide in a corner, so points come quickly.
			g.Step([]game.Input{{Slot: 0, Action: -1}, {Slot: 1, Action: -1}})
		}
		fr := frameOf(g, 0)
		if sb.Scored(fr.State) >= 0 {
			point = append(point, fr)
		} else if len(play) < 40 {
			play = append(play, fr)
		}
	}
	if len(point) < 20 || len(play) < 40 {
		t.Fatalf("%d frames after a point, %d of play", len(point), len(play))
	}
	return countdown, point, play
}

// While the overlay's text stands still (the same second of the countdown,
// the same point, the same question), a frame allocates nothing: the
// text is made when it changes, not every frame, and drawn again over a
// board that moved under it without building padded lines.
func TestOverlayFramesAllocateNothing(t *testing.T) {
	countdown, point, play := overlayFrames(t)
	for _, c := range []struct {
		name   string
		frames []*game.Frame
		prompt []string
	}{
		{"countdown", countdown, nil},
		{"point", point, nil},
		{"question during play", play, []string{"Leave the match?", "y leave · n stay"}},
	} {
		now := time.Unix(1000, 0)
		v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(c.frames[0]), Me: "a", Slot: 0, Out: &countWriter{},
			Profile: colorprofile.ANSI256, Width: 80, Height: 24, Now: func() time.Time { return now }})
		if c.prompt != nil {
			v.SetPrompt(c.prompt...)
		}
		v.setFrame(c.frames[0], now)
		v.draw()
		if len(v.ov.lines) == 0 {
			t.Fatalf("%s: no overlay", c.name)
		}
		// The countdown's digit changes each second: its text is made
		// three times in 90 frames, which rounds to none a frame.
		if allocs := frameAllocs(v, c.frames, &now); allocs > 0 {
			t.Errorf("%s: %.0f allocations a frame", c.name, allocs)
		}
	}
}
