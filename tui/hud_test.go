package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
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

// Issue 20 item 7: the "too small" screens fit a 20×8 terminal whole: the
// size needed and had, how to get out, and (in play) that the match goes
// on, none of it cut off at the edge.
func TestTooSmallFitsTwentyByEight(t *testing.T) {
	fr := match4(t, pong.TwoVTwo)
	scr := drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1"}, fr, 20, 8)
	flat := strings.Join(strings.Fields(scr), " ")
	for _, want := range []string{"Terminal too small", "need 44×24, have 20×8", "enlarge the window, or q to leave", "match in progress — enlarge the terminal"} {
		if !strings.Contains(flat, want) {
			t.Fatalf("the room screen at 20×8 lacks %q:\n%s", want, scr)
		}
	}
	m := NewLobby(LobbyDeps{Ctx: t.Context(), Player: game.Player{ID: "a", Name: "alice"}, Online: lobby.NewHub()})
	m.Update(tea.WindowSizeMsg{Width: 20, Height: 8})
	scr = plain(m)
	flat = strings.Join(strings.Fields(scr), " ")
	for _, want := range []string{"Terminal too small", "need 40×12, have 20×8", "enlarge the window, or q to quit"} {
		if !strings.Contains(flat, want) {
			t.Fatalf("the lobby at 20×8 lacks %q:\n%s", want, scr)
		}
	}
}

// Issue 20: a free-for-all's results showed lives left as a bare "(1)".
// They say what the number counts; a 1v1's points stay plain, and light
// cycles count rounds.
func TestFreeForAllResultsSayLivesLeft(t *testing.T) {
	fr := match4(t, pong.FFA4)
	fr.Phase = game.Finished
	fr.Roster = make([]game.Player, 4)
	for i, s := range fr.Seats {
		fr.Roster[i] = s.Player
	}
	fr.Result = &game.Result{Placements: []int{2, 0, 1, 3}, Places: []int{2, 3, 1, 4}, Scores: []int{0, 0, 1, 0}}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		scr := drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1"}, fr, size[0], size[1])
		for _, want := range []string{"1. christopher-lamb (♥1 left)", "2. alexandra-smith1 (out)", "4. dorothea-winters (out)"} {
			if !strings.Contains(scr, want) {
				t.Fatalf("free-for-all results at %v lack %q:\n%s", size, want, scr)
			}
		}
	}
	if scr := drawView(t, RoomViewConfig{Me: "0", Slot: 0, Title: "r1"}, finished1v1(t), 80, 24); !strings.Contains(scr, "1. bob (11)") {
		t.Fatalf("1v1 results:\n%s", scr)
	}
}
