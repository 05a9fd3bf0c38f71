package tron

import "testing"

// TestHashCoversState: changing any one cell of the arena, or any one
// field of the state, changes the hash.
func TestHashCoversState(t *testing.T) {
	cfg := DefaultConfig(Casual)
	g := newGame(t, cfg, 0, 1, 2)
	g.Step(nil)
	base := g.Hash()
	if g.Hash() != base {
		t.Fatal("Hash is not stable")
	}
	seen := map[uint64]bool{base: true}
	for i := range g.grid {
		old := g.grid[i]
		g.grid[i] = old ^ 3
		h := g.Hash()
		g.grid[i] = old
		if seen[h] {
			t.Fatalf("changing cell %d gave a hash already seen", i)
		}
		seen[h] = true
	}
	for _, tt := range []struct {
		name string
		edit func(*Game)
	}{
		{"rng", func(g *Game) { g.rng.Next() }},
		{"tick", func(g *Game) { g.tick++ }},
		{"round", func(g *Game) { g.round++ }},
		{"move timer", func(g *Game) { g.moveIn++ }},
		{"hold", func(g *Game) { g.holdIn++ }},
		{"pause", func(g *Game) { g.pauseIn++ }},
		{"round winners", func(g *Game) { g.roundWinners = 1 }},
		{"head", func(g *Game) { g.cycles[1].x++ }},
		{"heading", func(g *Game) { g.cycles[1].heading = Reverse(g.cycles[1].heading) }},
		{"queue", func(g *Game) { g.cycles[2].queue[1] = Left }},
		{"alive", func(g *Game) { g.cycles[0].alive = false }},
		{"wins", func(g *Game) { g.cycles[2].wins++ }},
		{"survival", func(g *Game) { g.cycles[2].survival++ }},
		{"pending", func(g *Game) { g.cycles[5].pending = true }},
		{"left", func(g *Game) { g.cycles[1].left = true }},
		{"place", func(g *Game) { g.places[1] = 2 }},
		{"over", func(g *Game) { g.over = true }},
		{"config", func(g *Game) { g.cfg.PauseTicks++ }},
	} {
		c := *g
		c.grid = append([]byte(nil), g.grid...)
		tt.edit(&c)
		if c.Hash() == base {
			t.Errorf("changing %s left the hash as it was", tt.name)
		}
	}
}
