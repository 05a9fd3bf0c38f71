package tui

import (
	"strings"
	"testing"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
)

// TestUnsavedResultIsSaid: when the server could not save a ranked
// match's result (a full disk), the results say so at 80×24 instead of
// "rating changes: saving…" for ever.
func TestUnsavedResultIsSaid(t *testing.T) {
	fr := match4(t, pong.OneVOne)
	fr.Phase = game.Finished
	fr.Result = &game.Result{Places: []int{1, 2}, Scores: []int{11, 7}}
	out := &lobby.Outcome{Seed: fr.Seed, Unsaved: "result not saved: the server cannot save right now"}
	scr := drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1", Ranked: true,
		Outcome: func() *lobby.Outcome { return out }}, fr, 80, 24)
	if !strings.Contains(scr, "result not saved: the server cannot save right now") || strings.Contains(scr, "saving…") {
		t.Fatalf("results of an unsaved match:\n%s", scr)
	}
}
