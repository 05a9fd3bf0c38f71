package tui

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// The queue screen says how many a match needs (a light-cycle table of
// four can take a while to fill), and stops promising a wider range once
// it accepts any rating.
func TestQueueScreenSaysHowManyAndStopsWideningAtAnyRating(t *testing.T) {
	early := ansi.Strip(queueText("tron-ffa", 12*time.Second, 1350, 1650, 1, 4))
	for _, want := range []string{"Looking for a tron-ffa match", "1350 – 1650", "in the queue  1 · a match needs 4 players", "the range widens"} {
		if !strings.Contains(early, want) {
			t.Errorf("early queue screen lacks %q:\n%s", want, early)
		}
	}
	late := ansi.Strip(queueText("tron-ffa", 75*time.Second, math.Inf(-1), math.Inf(1), 2, 4))
	if !strings.Contains(late, "any rating") || strings.Contains(late, "widens") || !strings.Contains(late, "matched with anyone") {
		t.Errorf("queue screen at any rating:\n%s", late)
	}
}
