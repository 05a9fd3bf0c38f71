package tron

import "testing"

// Riders who never touch a key cannot keep a room alive: a cycle moves on
// by itself and crashes at the latest when it reaches a wall, every round
// credits someone (a draw credits each rider in it), so a match ends
// within a bound fixed by the config. This is why light cycles needed no
// rule change when Pong did (pong.RulesProgress).
func TestNoInputMatchEndsInEveryMode(t *testing.T) {
	for _, m := range []Mode{Casual, FFA} {
		cfg := DefaultConfig(m)
		for riders := cfg.MinPlayers; riders <= cfg.Players; riders++ {
			// A round: the hold at the starts, a straight ride to the far
			// wall, the frozen pause; a match: each rider one short of
			// the rounds to win, and one more round.
			round := cfg.ReadyTicks + int(max(cfg.Width, cfg.Height)+1)*cfg.MoveEvery + cfg.PauseTicks + 1
			bound := (riders*(cfg.RoundsToWin-1) + 1) * round
			for seed := uint64(1); seed <= 20; seed++ {
				g := New(cfg, seed)
				for s := range riders {
					if err := g.Join(s); err != nil {
						t.Fatal(err)
					}
				}
				for range bound {
					g.Step(nil)
				}
				if _, over := g.Result(); !over {
					t.Fatalf("%v, %d riders, seed %d: no input, and the match is still on after %d ticks", m, riders, seed, bound)
				}
			}
		}
	}
}
