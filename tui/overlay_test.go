package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game/pong"
)

// The ranked leave question stays whole while the ball crosses it: the
// board repaints the cells the ball leaves and enters, and the question
// is drawn over them again, not only when its text changes.
func TestQuestionSurvivesTheBallCrossingIt(t *testing.T) {
	g, fr := match1v1(t, 10)
	out := newVT(80, 24)
	clock := time.Unix(1000, 0)
	v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(fr), Me: "a", Slot: 0, Title: "r1 · pong-1v1 · ranked", Out: out,
		Profile: colorprofile.ANSI256, Width: 80, Height: 24, Now: func() time.Time { return clock }, Ranked: true})
	v.SetPrompt("Leave ranked match? You lose it.", "y = leave · any other key = stay")
	v.applyChanges()
	c := pong.DefaultConfig(pong.OneVOne)
	for i := range 40 {
		snap := *g.Snapshot().(*pong.Snapshot)
		// Across the middle row, where the question stands.
		snap.Ball = pong.Ball{X: (c.Width/2 - 20 + int32(i)) * pong.Sub, Y: c.Height / 2 * pong.Sub, VX: pong.Sub, Live: true}
		next := *fr
		next.State, next.Tick = &snap, fr.Tick+uint64(i)+1
		clock = clock.Add(time.Second / 30)
		v.setFrame(&next, clock)
		v.draw()
		if scr := out.screen(); !strings.Contains(scr, "Leave ranked match? You lose it.") {
			t.Fatalf("frame %d: the question is broken:\n%s", i, scr)
		}
	}
}
