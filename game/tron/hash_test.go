package tron

import "testing"

// TestHashCoversState: changing any one cell of the arena, or any one
// field of the state, changes the hash.
func TestHashCoversState(t *testing.T) {
	cfg := DefaultConfig(Casual)
	g := newGame(t, cfg, 0, 1, 2)
	g.Step(nil)
	g.maxLag = 1 // the rollback state is hashed once a lag was seen
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
		{"round end wait", func(g *Game) { g.endIn++ }},
		{"round end winners", func(g *Game) { g.endWinners = 2 }},
		{"max lag", func(g *Game) { g.maxLag++ }},
		{"history start", func(g *Game) { g.from-- }},
		{"last turn tick", func(g *Game) { g.cycles[1].lastAt++ }},
		{"history input", func(g *Game) { g.entry(g.tick).ins = append(g.entry(g.tick).ins, rin{slot: 1, action: Up}) }},
	} {
		c := *g
		c.grid = append([]byte(nil), g.grid...)
		c.hist = make([]entry, len(g.hist))
		for i := range g.hist {
			c.hist[i] = g.hist[i]
			c.hist[i].ins = append([]rin(nil), g.hist[i].ins...)
		}
		tt.edit(&c)
		if c.Hash() == base {
			t.Errorf("changing %s left the hash as it was", tt.name)
		}
	}
}

// TestHashWithoutLagUnchanged pins the digest of the determinism script,
// which sends no lag: it is the one computed before rollback existed, so
// replays recorded then still verify.
func TestHashWithoutLagUnchanged(t *testing.T) {
	for mode, want := range map[Mode]uint64{Casual: 0x0858dea47c5d6baf, FFA: 0x8fddfef87332e758} {
		h, _, _ := runScript(mode, 1)
		if got := digest(h); got != want {
			t.Errorf("%s: digest %016x, want %016x", mode, got, want)
		}
	}
}
