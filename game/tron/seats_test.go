package tron

import (
	"errors"
	"testing"

	"github.com/termarena/termarena/game"
)

func TestJoinErrors(t *testing.T) {
	g := newGame(t, testConfig(2), 0)
	for _, tt := range []struct {
		slot int
		want error
	}{{-1, ErrNoSlot}, {2, ErrNoSlot}, {0, ErrTaken}, {1, nil}} {
		if err := g.Join(tt.slot); !errors.Is(err, tt.want) {
			t.Errorf("Join(%d) = %v, want %v", tt.slot, err, tt.want)
		}
	}
}

// TestJoinBeforePlayLaysOut: every join before the first tick lays the
// starts out again, so the countdown shows where everyone starts.
func TestJoinBeforePlayLaysOut(t *testing.T) {
	g := New(DefaultConfig(Casual), 7)
	for n := 1; n <= 8; n++ {
		if err := g.Join(n - 1); err != nil {
			t.Fatal(err)
		}
		s := snap(g)
		cells := map[[2]int16]bool{}
		for i := range n {
			c := s.Cycles[i]
			if !c.Alive || !c.Rider || s.At(int(c.X), int(c.Y)) != i {
				t.Fatalf("%d joined: slot %d %+v not on the arena", n, i, c)
			}
			cells[[2]int16{c.X, c.Y}] = true
		}
		if len(cells) != n {
			t.Fatalf("%d joined: %d distinct starts", n, len(cells))
		}
	}
	g.Leave(3)
	s := snap(g)
	if s.Cycles[3].Seated || s.Cycles[3].Alive || s.Cycles[3].Left {
		t.Fatalf("left before play: %+v, want a free seat", s.Cycles[3])
	}
	marked := 0
	for _, v := range s.Grid {
		if v != 0 {
			marked++
		}
	}
	if marked != 7 {
		t.Errorf("%d cells marked after a leave before play, want the 7 starts", marked)
	}
	if _, over := g.Result(); over {
		t.Error("a leave before play ended the match")
	}
}

func TestLateJoinerRidesNextRound(t *testing.T) {
	cfg := testConfig(3)
	cfg.PauseTicks = 3
	g := newGame(t, cfg, 0, 1)
	arrange(t, g, pos{0, 5, 5, Right}, pos{1, 5, 10, Right})
	if err := g.Join(2); err != nil {
		t.Fatal(err)
	}
	s := snap(g)
	if c := s.Cycles[2]; !c.Seated || !c.Pending || c.Alive || c.Rider {
		t.Fatalf("joined mid-round: %+v, want seated and pending", c)
	}
	g.cycles[0].x = 19 // 0 hits the wall next move
	g.Step(nil)
	if g.pauseIn != 3 {
		t.Fatalf("round did not end: pause %d", g.pauseIn)
	}
	for range 3 {
		g.Step(nil)
	}
	s = snap(g)
	if c := s.Cycles[2]; c.Pending || !c.Alive || !c.Rider || s.At(int(c.X), int(c.Y)) != 2 {
		t.Fatalf("next round: %+v, want riding", c)
	}
	// A joiner who leaves before riding was never there.
	g2 := newGame(t, cfg, 0, 1)
	arrange(t, g2, pos{0, 5, 5, Right}, pos{1, 5, 10, Right})
	_ = g2.Join(2)
	g2.Leave(2)
	if c := snap(g2).Cycles[2]; c.Seated || c.Left || c.Pending {
		t.Errorf("pending leaver: %+v, want a free seat", c)
	}
}

func TestLeaveCrashesTheCycle(t *testing.T) {
	cfg := testConfig(3)
	g := newGame(t, cfg, 0, 1, 2)
	arrange(t, g, pos{0, 5, 5, Right}, pos{1, 5, 10, Right}, pos{2, 5, 13, Right})
	stepMoves(g, 2)
	g.Leave(1)
	s := snap(g)
	if c := s.Cycles[1]; c.Alive || c.Seated || !c.Left {
		t.Fatalf("leaver: %+v, want crashed, unseated, left", c)
	}
	if s.At(7, 10) != 1 || s.At(5, 10) != 1 {
		t.Error("the leaver's trail was removed")
	}
	if s.Over || s.Round != 1 {
		t.Fatalf("over %v, round %d: two riders remain, the round goes on", s.Over, s.Round)
	}
	// Input for the leaver's slot does nothing.
	h := snap(g).Cycles[1]
	g.Step([]game.Input{in(1, Up)})
	if c := snap(g).Cycles[1]; c != h {
		t.Errorf("leaver's cycle changed: %+v, was %+v", c, h)
	}
}

func TestLeaveLeavesOneRiderWhoWinsTheRound(t *testing.T) {
	cfg := testConfig(3)
	cfg.PauseTicks = 10
	g := newGame(t, cfg, 0, 1, 2)
	arrange(t, g, pos{0, 19, 5, Right}, pos{1, 5, 10, Right}, pos{2, 5, 13, Right})
	g.Step(nil) // 0 crashes
	g.Leave(1)  // 2 is the last riding
	if g.cycles[2].wins != 1 || g.pauseIn != 10 || g.over {
		t.Fatalf("slot 2 wins %d, pause %d, over %v; want 2 credited with the round, match on", g.cycles[2].wins, g.pauseIn, g.over)
	}
}

func TestForfeit(t *testing.T) {
	cfg := testConfig(3)
	cfg.RoundsToWin = 3
	g := newGame(t, cfg, 0, 1, 2)
	arrange(t, g, pos{0, 5, 5, Right}, pos{1, 5, 10, Right}, pos{2, 5, 13, Right})
	// Slot 1 has two round wins and slot 0 none before they both leave:
	// leaving still places them below the one who stayed.
	g.cycles[1].wins = 2
	g.cycles[0].wins = 1
	g.Leave(1)
	if g.over {
		t.Fatal("over with two seats left")
	}
	g.Leave(0)
	res, ok := g.Result()
	if !ok || !res.Forfeit {
		t.Fatalf("result %+v ok %v, want a forfeit", res, ok)
	}
	if want := []int{3, 2, 1}; !equalInts(res.Places, want) {
		t.Errorf("places %v, want %v: the stayer first, then leavers by round wins", res.Places, want)
	}
	if want := []int{2, 1, 0}; !equalInts(res.Placements, want) {
		t.Errorf("placements %v, want %v", res.Placements, want)
	}
	if want := []int{1, 2, 0}; !equalInts(res.Scores, want) {
		t.Errorf("scores %v, want %v", res.Scores, want)
	}
	// A leave after the end changes nothing.
	g.Leave(2)
	if res2, _ := g.Result(); !equalInts(res2.Places, res.Places) {
		t.Errorf("places after a leave at the end %v, was %v", res2.Places, res.Places)
	}
}

// TestSeatReusedAfterLeave: a newcomer in a left seat starts from nothing.
func TestSeatReusedAfterLeave(t *testing.T) {
	cfg := testConfig(3)
	g := newGame(t, cfg, 0, 1, 2)
	arrange(t, g, pos{0, 5, 5, Right}, pos{1, 5, 10, Right}, pos{2, 5, 13, Right})
	g.cycles[1].wins = 2
	g.Leave(1)
	if err := g.Join(1); err != nil {
		t.Fatal(err)
	}
	if c := snap(g).Cycles[1]; c.Wins != 0 || c.Left || !c.Pending {
		t.Errorf("newcomer in a left seat: %+v, want pending with no wins", c)
	}
}
