package tui

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// headerFigure finds the figures at a header's right and what precedes
// them.
var headerFigure = regexp.MustCompile(`(.)(.)(\d+ watching|rtt [^ ]+|no reply \d+s|\d+fps)( · [^·]+)* $`)

// Issue 20 item 13: at 80 columns a ranked 2v2 header with a "left" tag
// ran the last team's score into the figures on the right ("0rtt 142ms"):
// a team header ends in its score, with no space after it, and the fit
// allowed no gap. The score and the figures keep two spaces between them
// for every viewer, whoever left or dropped.
func TestTwoVTwoHeaderKeepsScoreAndFiguresApart(t *testing.T) {
	labels := func(slot int) string { return []string{"1520?", "1480?", "1510?", "1490?"}[slot] }
	for me := -1; me < 4; me++ {
		for left := range 4 {
			for _, drop := range []int{-1, (left + 1) % 4} {
				for _, watchers := range []int{0, 12} {
					for _, rtt := range []time.Duration{142 * time.Millisecond, 1234 * time.Millisecond} {
						fr := match4(t, pong.TwoVTwo)
						fr.Roster = make([]game.Player, 4)
						for i, s := range fr.Seats {
							fr.Roster[i] = s.Player
						}
						fr.Forfeited = make([]bool, 4)
						fr.Forfeited[left] = true
						fr.Seats[left] = game.Seat{}
						if drop >= 0 {
							fr.Seats[drop].Connected = false
						}
						head := firstLine(drawView(t, RoomViewConfig{Me: game.PlayerID(fmt.Sprint(me)), Slot: me, Title: "r1", Ranked: true, Labels: labels,
							Watchers: func() int { return watchers }, RTT: func() time.Duration { return rtt }}, fr, 80, 24))
						m := headerFigure.FindStringSubmatch(head)
						if m == nil || m[1] != " " || m[2] != " " {
							t.Fatalf("seat %d, %d left, %d dropped, %d watching, rtt %v: the score runs into the figures: %q", me, left, drop, watchers, rtt, head)
						}
					}
				}
			}
		}
	}
}
