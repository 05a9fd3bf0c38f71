package pong

import (
	"testing"

	"github.com/termarena/termarena/game"
)

func TestLeaveForfeit(t *testing.T) {
	tests := []struct {
		name    string
		mode    Mode
		seats   []int
		leave   []int
		want    game.Result
		wantWin uint8
	}{
		{
			name: "1v1 leaver loses at once", mode: OneVOne, seats: []int{0, 1}, leave: []int{0},
			want:    game.Result{Placements: []int{1, 0}, Places: []int{2, 1}, Scores: []int{0, 0}, Forfeit: true},
			wantWin: 1 << 1,
		},
		{
			name: "2v2 team with nobody left loses", mode: TwoVTwo, seats: []int{0, 1, 2, 3}, leave: []int{2, 3},
			want:    game.Result{Placements: []int{0, 1, 2, 3}, Places: []int{1, 1, 2, 2}, Scores: []int{0, 0, 0, 0}, Forfeit: true},
			wantWin: 1<<0 | 1<<1,
		},
		{
			name: "FFA leavers are out in the order they left", mode: FFA4, seats: []int{0, 1, 2, 3}, leave: []int{3, 0, 1},
			want:    game.Result{Placements: []int{2, 1, 0, 3}, Places: []int{3, 2, 1, 4}, Scores: []int{5, 5, 5, 5}, Forfeit: true},
			wantWin: 1 << 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGame(t, DefaultConfig(tt.mode), tt.seats...)
			start(g)
			for i, s := range tt.leave {
				if _, over := g.Result(); over {
					t.Fatalf("over before leave #%d", i)
				}
				g.Leave(s)
				if p := snap(g).Paddles[s]; p.Present {
					t.Errorf("slot %d still present after leaving", s)
				}
			}
			r, over := g.Result()
			if !over {
				t.Fatal("not over")
			}
			checkResult(t, r, tt.want)
			if s := snap(g); s.Winners != tt.wantWin || !s.Forfeit {
				t.Errorf("winners %b forfeit %v, want %b true", s.Winners, s.Forfeit, tt.wantWin)
			}
		})
	}

	t.Run("2v2 one leaver: side becomes a wall, play goes on", func(t *testing.T) {
		g := newGame(t, DefaultConfig(TwoVTwo), 0, 1, 2, 3)
		start(g)
		g.Leave(Left)
		if _, over := g.Result(); over {
			t.Fatal("over with a teammate left")
		}
		shootAt(g, Left, 0, 200)
		g.Step(nil)
		if !g.ball.live || g.ball.vx != 200 {
			t.Errorf("ball %+v: want a bounce off the left wall", g.ball)
		}
		// A replacement may take the seat; the team plays on.
		if err := g.Join(Left); err != nil {
			t.Errorf("Join into the vacated 2v2 seat: %v", err)
		}
	})

	t.Run("FFA leaver is placed below everyone still in, above those out before", func(t *testing.T) {
		cfg := DefaultConfig(FFA4)
		cfg.Lives = 1
		g := newGame(t, cfg, 0, 1, 2, 3)
		start(g)
		missAt(t, g, Top) // top out first
		g.Leave(Left)     // left out second
		missAt(t, g, Bottom)
		r, over := g.Result()
		if !over {
			t.Fatal("not over")
		}
		checkResult(t, r, game.Result{Placements: []int{1, 3, 0, 2}, Places: []int{3, 1, 4, 2}, Scores: []int{1, 1, 0, 0}, Forfeit: false})
	})

	t.Run("before the first tick Leave frees the seat", func(t *testing.T) {
		g := newGame(t, DefaultConfig(OneVOne), 0, 1)
		g.Leave(0)
		if _, over := g.Result(); over {
			t.Fatal("leaving before the start ended the game")
		}
		if err := g.Join(0); err != nil {
			t.Fatalf("rejoin: %v", err)
		}
	})

	t.Run("leaving twice or an empty seat is a no-op", func(t *testing.T) {
		g := newGame(t, DefaultConfig(FFA4), 0, 1, 2)
		start(g)
		h := g.Hash()
		g.Leave(3)
		g.Leave(7)
		g.Leave(-1)
		if g.Hash() != h {
			t.Error("state changed")
		}
	})

	t.Run("a leave that strands the ball replays the point", func(t *testing.T) {
		g := newGame(t, DefaultConfig(FFA4), 0, 1, 2, 3)
		start(g)
		// Straight down: only top and bottom can ever meet it.
		setBall(g, 20*Sub, 20*Sub, 0, 200)
		g.Leave(Top)
		if !g.ball.live {
			t.Fatal("bottom can still reach the ball; the rally should go on")
		}
		g.Leave(Bottom)
		if s := snap(g); s.Ball.Live || s.Over || s.LastPointAgainst != -1 {
			t.Errorf("ball live=%v over=%v lastPointAgainst=%d: want a re-serve with no point", s.Ball.Live, s.Over, s.LastPointAgainst)
		}
	})
}

func TestLateJoinTakesEffectAtNextServe(t *testing.T) {
	cfg := DefaultConfig(FFA4)
	g := newGame(t, cfg, 0, 1)
	for !g.ball.live {
		g.Step(nil)
	}
	if err := g.Join(Top); err != nil {
		t.Fatalf("Join mid-rally: %v", err)
	}
	if p := snap(g).Paddles[Top]; p.Present || !p.Joining {
		t.Fatalf("mid-rally joiner %+v, want joining, not present", p)
	}
	if err := g.Join(Top); err != ErrTaken {
		t.Errorf("second Join of the same seat = %v, want ErrTaken", err)
	}
	// The key the newcomer holds while waiting is in force when they appear.
	g.Step([]game.Input{{Slot: Top, Seq: 1, Action: 1}})
	startPos := g.seats[Top].pos

	shootAt(g, Top, 0, 200)
	g.Step(nil)
	if !g.ball.live || g.ball.vy != 200 || g.seats[Top].hits != 0 {
		t.Fatalf("ball %+v: the top is still a wall during the rally", g.ball)
	}
	if g.seats[Top].pos != startPos {
		t.Fatal("a joining paddle moved")
	}

	missAt(t, g, Left) // the rally ends
	s := snap(g)
	if p := s.Paddles[Top]; !p.Present || p.Joining {
		t.Fatalf("after the point the joiner is %+v, want present", p)
	}
	if s.Ball.Live {
		t.Fatal("ball live right after the point")
	}
	g.Step(nil)
	if g.seats[Top].pos != cfg.MovePaddle(startPos, 1, 1, Top) {
		t.Error("held direction not applied once present")
	}

	// Between points a joiner is seated at once and gets the whole pause.
	for range 10 {
		g.Step(nil)
	}
	if err := g.Join(Bottom); err != nil {
		t.Fatal(err)
	}
	if s := snap(g); !s.Paddles[Bottom].Present || s.ServeIn != int32(cfg.ServeDelayTicks) {
		t.Errorf("joined between points: %+v serveIn %d", s.Paddles[Bottom], s.ServeIn)
	}
}

func TestCasualWarmUpDoesNotScore(t *testing.T) {
	cfg := DefaultConfig(OneVOne)
	g := newGame(t, cfg, 0)
	for !g.ball.live {
		g.Step(nil)
	}
	// Alone, every serve comes at the only paddle.
	if g.ball.vx >= 0 {
		t.Fatalf("serve %+v not towards the only player", g.ball)
	}
	if err := g.Join(1); err != nil {
		t.Fatal(err)
	}
	missAt(t, g, Left)
	s := snap(g)
	if s.Scores != [4]int32{} {
		t.Errorf("scores %v: a miss with no opponent in play must not score", s.Scores)
	}
	if !s.Paddles[1].Present {
		t.Error("opponent not seated after the rally")
	}
	missAt(t, g, Left)
	if s := snap(g); s.Scores[1] != 1 {
		t.Errorf("scores %v once both play", s.Scores)
	}
}

func TestLeaveWhileJoiningIsNoForfeit(t *testing.T) {
	g := newGame(t, DefaultConfig(OneVOne), 0)
	for !g.ball.live {
		g.Step(nil)
	}
	if err := g.Join(1); err != nil {
		t.Fatal(err)
	}
	g.Leave(1)
	if _, over := g.Result(); over {
		t.Fatal("a joiner who never played ended the game")
	}
	if err := g.Join(1); err != nil {
		t.Fatalf("seat not free again: %v", err)
	}
}

func TestJoinErrors(t *testing.T) {
	g := newGame(t, DefaultConfig(OneVOne), 0)
	for _, tt := range []struct {
		slot int
		want error
	}{{-1, ErrNoSlot}, {2, ErrNoSlot}, {0, ErrTaken}, {1, nil}} {
		if err := g.Join(tt.slot); err != tt.want {
			t.Errorf("Join(%d) = %v, want %v", tt.slot, err, tt.want)
		}
	}
	if g.Slots() != 2 || New(DefaultConfig(FFA4), 0).Slots() != 4 || New(DefaultConfig(TwoVTwo), 0).Slots() != 4 {
		t.Error("Slots: want 2 for 1v1 and 4 otherwise")
	}
}
