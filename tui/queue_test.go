package tui

import (
	"math"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/termarena/termarena/lobby"
)

// The queue screen says how many a match needs (a light-cycle table of
// four can take a while to fill), and stops promising a wider range once
// it accepts any rating.
func TestQueueScreenSaysHowManyAndStopsWideningAtAnyRating(t *testing.T) {
	early := ansi.Strip(queueText("tron-ffa", 12*time.Second, 1350, 1650, 1, 1, 4))
	for _, want := range []string{"Looking for a tron-ffa match", "1350 – 1650", "in the queue  1 · a match needs 4 players", "the range widens"} {
		if !strings.Contains(early, want) {
			t.Errorf("early queue screen lacks %q:\n%s", want, early)
		}
	}
	late := ansi.Strip(queueText("tron-ffa", 75*time.Second, math.Inf(-1), math.Inf(1), 2, 2, 4))
	if !strings.Contains(late, "any rating") || strings.Contains(late, "widens") || !strings.Contains(late, "matched with anyone") {
		t.Errorf("queue screen at any rating:\n%s", late)
	}
}

// With enough players queued for a match and none formed, the queue
// screen says the others are outside the player's rating range and how
// the range widens, not that a match needs as many players as wait.
func TestQueueScreenSaysOthersWaitOutsideTheRange(t *testing.T) {
	s := ansi.Strip(queueText("pong-1v1", 12*time.Second, 1350, 1650, 2, 2, 2))
	for _, want := range []string{"in the queue  2 · the others wait outside your rating range", "widens by 50 every 5 s, to anyone in 48 s", "esc leave the queue"} {
		if !strings.Contains(s, want) {
			t.Errorf("queue screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "a match needs") {
		t.Errorf("two wait and the screen says a match needs two:\n%s", s)
	}
}

// In a cluster the queue is every node's: a player alone on n2 while
// another waits on n3 outside the range is told so, not that a match
// needs two players, and is not told that nobody else is queueing. Seen
// on the hand tour of issue 25: ann (1741) on n2 and carol (1500) on n3
// read "in the queue 1 · a match needs 2 players" above "1 more waits on
// other nodes".
func TestQueueScreenCountsOtherNodesQueues(t *testing.T) {
	desk := clusterDesk{waited: 35 * time.Second, lo: 1541, hi: 1941, queued: 1, elsewhere: 1}
	p := &queuePage{desk: desk, ticket: &lobby.Ticket{Mode: "pong-1v1"},
		bots: &botOffer{after: DefaultBotOfferAfter, level: 3, start: func(int) tea.Cmd { return nil }}}
	s := ansi.Strip(p.view())
	for _, want := range []string{"in the queue  1 · the others wait outside your rating range", "1 more waits on other nodes"} {
		if !strings.Contains(s, want) {
			t.Errorf("queue screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "a match needs") || strings.Contains(s, "Nobody else is queueing") {
		t.Errorf("one waits on another node and the screen says otherwise:\n%s", s)
	}
}

// clusterDesk is a cluster's queue as the queue page sees it: this
// node's count and the others'.
type clusterDesk struct {
	waited            time.Duration
	lo, hi            float64
	queued, elsewhere int
}

func (d clusterDesk) Status(*lobby.Ticket) (time.Duration, float64, float64, int, bool) {
	return d.waited, d.lo, d.hi, d.queued, true
}
func (d clusterDesk) TableSize(lobby.RankedMode) int { return 2 }
func (d clusterDesk) Leave(string)                   {}
func (d clusterDesk) Scope(lobby.RankedMode) (string, int, bool) {
	return "n2", d.elsewhere, true
}

// seatRecorder is the router as the queue page sees it: it notes the room
// the page asks it to seat the player in.
type seatRecorder struct {
	asked bool
	room  *lobby.Room
}

func (s *seatRecorder) seatMatch(r *lobby.Room) tea.Cmd { s.asked, s.room = true, r; return nil }

func testMatchmaker(t *testing.T) (*lobby.Matchmaker, *lobby.Rooms) {
	t.Helper()
	rooms := testRooms(t)
	mm, err := lobby.NewMatchmaker(rooms, &lobby.Cooldowns{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return mm, rooms
}

// The queue page shows the wait; keys other than esc and q leave the
// player queued, and either of those takes them out of the matchmaker's
// queue and back to the rooms list.
func TestQueuePageShowsTheWaitAndLeavesOnEscOrQ(t *testing.T) {
	for _, leaveKey := range []string{"esc", "q"} {
		mm, _ := testMatchmaker(t)
		tk, err := mm.Join("pong-1v1", "alice", "alice", 1500)
		if err != nil {
			t.Fatal(err)
		}
		seat := &seatRecorder{}
		p, _ := newQueuePage(t.Context(), mm, seat, tk)
		scr := ansi.Strip(p.view())
		for _, want := range []string{"Looking for a pong-1v1 match", "in the queue  1 · a match needs 2 players", "esc leave the queue"} {
			if !strings.Contains(scr, want) {
				t.Fatalf("queue page lacks %q:\n%s", want, scr)
			}
		}
		if p.where() != "queue pong-1v1" {
			t.Errorf("where = %q", p.where())
		}
		for _, k := range []string{"x", "enter", "p"} {
			if next, _ := p.update(keyPress(k)); next != p {
				t.Fatalf("%s left the queue page", k)
			}
		}
		next, cmd := p.update(keyPress(leaveKey))
		if next != nil || cmd != nil {
			t.Fatalf("%s: next page %v, command %v; want the rooms list", leaveKey, next, cmd != nil)
		}
		if _, _, _, _, queued := mm.Status(tk); queued {
			t.Errorf("%s did not take alice out of the matchmaker's queue", leaveKey)
		}
		if seat.asked {
			t.Errorf("%s asked the router to seat alice", leaveKey)
		}
	}
}

// When the matchmaker pairs the player, the page's wait delivers the room
// and the page hands it to the router, leaving the screen; it asks for
// the lobby's clock while it waits.
func TestQueuePageHandsTheMatchToTheRouter(t *testing.T) {
	mm, _ := testMatchmaker(t)
	tk, err := mm.Join("pong-1v1", "alice", "alice", 1500)
	if err != nil {
		t.Fatal(err)
	}
	seat := &seatRecorder{}
	p, wait := newQueuePage(t.Context(), mm, seat, tk)
	if next, _ := p.update(refreshMsg{}); next != p || !p.clocked() {
		t.Fatal("the queue page left the screen on its clock's tick, or shows no clock")
	}
	if _, err := mm.Join("pong-1v1", "bob", "bob", 1500); err != nil {
		t.Fatal(err)
	}
	var matched *matchedMsg
	for _, msg := range runCmd(t, wait) {
		if m, ok := msg.(matchedMsg); ok {
			matched = &m
		}
	}
	if matched == nil || matched.room == nil {
		t.Fatal("the page's wait delivered no room")
	}
	next, _ := p.update(*matched)
	if next != nil || !seat.asked || seat.room != matched.room {
		t.Fatalf("after the match: next page %v, router asked %v (for the match's room: %v)", next, seat.asked, seat.room == matched.room)
	}
	if _, ok := matched.room.Seats["alice"]; !ok {
		t.Fatalf("the room has no seat for alice: %v", matched.room.Seats)
	}
}

// queuedIn is the queue page m shows, or nil when it shows none.
func queuedIn(m *Lobby) *queuePage {
	if q, ok := m.scr.(*queuePage); ok && m.state == stMenu {
		return q
	}
	return nil
}
