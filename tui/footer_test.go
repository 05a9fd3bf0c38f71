package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// The player's footer is the game's key help: whatever the title, the chat
// marker or the terminal's width, it keeps "q leave"; it carries the chat
// marker only where no chat pane is on screen.
func TestPlayerFooterKeepsQ(t *testing.T) {
	for _, c := range []struct {
		mode   pong.Mode
		slot   int
		w, h   int
		keys   string
		ranked bool
	}{
		{pong.OneVOne, pong.Left, 80, 24, "w/s ↑/↓ move", false},
		{pong.OneVOne, pong.Right, 200, 50, "w/s ↑/↓ move", true},
		{pong.TwoVTwo, pong.Top, 80, 24, "a/d ←/→ move", false},
		{pong.TwoVTwo, pong.Bottom, 200, 50, "a/d ←/→ move", true},
		{pong.TwoVTwo, pong.Top, 46, 24, "a/d ←/→ move", false}, // the narrowest the board fits
		{pong.FFA4, pong.Left, 46, 24, "w/s ↑/↓ move", false},
	} {
		for _, finished := range []bool{false, true} {
			g := pong.New(pong.DefaultConfig(c.mode), 7)
			for i := range g.Slots() {
				if err := g.Join(i); err != nil {
					t.Fatal(err)
				}
			}
			g.Step(nil)
			s := &tapSim{g: g}
			fr := s.frame()
			if finished {
				fr.Phase = game.Finished
			}
			title := "r1234 · " + c.mode.String() + " · private · code abcde"
			if c.ranked {
				title = "r1234 · pong-" + c.mode.String() + " · ranked"
			}
			out := newVT(c.w, c.h)
			now := time.Unix(1000, 0)
			marker := &ChatLines{marker: "chat (1234 new) · t"}
			v := newTestRoomView(RoomViewConfig{Room: newFakeRoom(fr), Me: "a", Slot: c.slot, Title: title, Ranked: c.ranked,
				Out: out, Profile: colorprofile.ANSI256, Width: c.w, Height: c.h, Now: func() time.Time { return now },
				Chat: func() *ChatLines { return marker }})
			v.setFrame(fr, now)
			v.draw()
			lines := strings.Split(out.screen(), "\n")
			foot := lines[c.h-1]
			if !strings.Contains(foot, "q leave") {
				t.Errorf("%v slot %d at %d×%d, finished %v: footer %q has no \"q leave\"", c.mode, c.slot, c.w, c.h, finished, foot)
			}
			if !finished && !strings.Contains(foot, c.keys) {
				t.Errorf("%v slot %d at %d×%d: footer %q lacks the move keys %q", c.mode, c.slot, c.w, c.h, foot, c.keys)
			}
			// The marker stands in for a chat pane that does not fit;
			// beside one, the pane's own header counts what is new.
			switch pane := v.chat.pane.h > 0; {
			case !pane && c.w >= 80 && !strings.Contains(foot, "chat (1234 new)"):
				t.Errorf("%v slot %d at %d×%d: footer %q lost the unread count", c.mode, c.slot, c.w, c.h, foot)
			case pane && strings.Contains(foot, "chat (1234 new)"):
				t.Errorf("%v slot %d at %d×%d: footer %q repeats the chat pane's count", c.mode, c.slot, c.w, c.h, foot)
			}
		}
	}
}
