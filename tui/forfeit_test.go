package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/lobby"
)

func TestForfeitTextSaysWhatLeavingCost(t *testing.T) {
	now := time.Unix(1000, 0)
	o := &lobby.Outcome{Changes: []lobby.RatingChange{{}, {Before: 1512, After: 1490.4, Games: 31, DeviationAfter: 62.4, Left: true, Cooldown: now.Add(5 * time.Minute)}}}
	if got := forfeitText(o, 1, now); !strings.Contains(got, "counted as a loss (-22, now 1490 ± 62)") || !strings.Contains(got, "Queue cooldown: 5 min.") {
		t.Fatalf("with a cooldown: %q", got)
	}
	o.Changes[1].Cooldown = now
	if got := forfeitText(o, 1, now); !strings.Contains(got, "No queue cooldown this time") {
		t.Fatalf("forgiven: %q", got)
	}
	if got := forfeitText(nil, 1, now); got != "You left a ranked match: it counts as a loss." {
		t.Fatalf("no outcome in time: %q", got)
	}
	for _, line := range strings.Split(forfeitText(o, 1, now), "\n") {
		if n := len([]rune(line)); n > 72 {
			t.Fatalf("%q is %d wide: the lobby box at 80 columns holds 72", line, n)
		}
	}
}
