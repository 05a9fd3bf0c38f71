package pong

import (
	"math"
	"testing"

	"github.com/termarena/termarena/game"
)

func TestDefaultConfigs(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			c := DefaultConfig(mode)
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			if c.TickRate != 60 || c.PaddleLen != 8 {
				t.Errorf("tick rate %d, paddle %d", c.TickRate, c.PaddleLen)
			}
			loX, hiX, _, _ := c.bounds()
			cross := float64(hiX-loX) / float64(c.BallSpeed) / float64(c.TickRate)
			paddle := float64(c.Height*Sub) / float64(c.PaddleSpeed) / float64(c.TickRate)
			t.Logf("%dx%d units; straight serve crosses in %.2fs; paddle crosses the height in %.2fs", c.Width, c.Height, cross, paddle)
			// Board rows are half-rows: a 2-line HUD plus the board must fit
			// 24 rows, and the width 80 columns.
			if c.Width > 78 || c.Height/2+2 > 24 {
				t.Errorf("%dx%d does not fit an 80x24 terminal with a HUD", c.Width, c.Height)
			}
			switch mode {
			case OneVOne:
				if cross < 1.2 || cross > 1.6 {
					t.Errorf("1v1 serve crosses in %.2fs, want about 1.5s", cross)
				}
				if paddle < 0.6 || paddle > 0.8 {
					t.Errorf("paddle crosses in %.2fs, want about 0.7s", paddle)
				}
			default:
				if c.Width != c.Height {
					t.Errorf("4-player board %dx%d is not square", c.Width, c.Height)
				}
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
	}{
		{"unknown mode", func(c *Config) { c.Mode = 9 }},
		{"board too small", func(c *Config) { c.Width = 4 }},
		{"board too large", func(c *Config) { c.Height = 100000 }},
		{"paddle longer than a side", func(c *Config) { c.PaddleLen = c.Height }},
		{"zero paddle", func(c *Config) { c.PaddleLen = 0 }},
		{"paddle cannot move", func(c *Config) { c.PaddleSpeed = 0 }},
		{"max below serve speed", func(c *Config) { c.MaxBallSpeed = c.BallSpeed - 1 }},
		{"absurd ball speed", func(c *Config) { c.MaxBallSpeed = 100 * Sub }},
		{"ball too slow to bounce cleanly", func(c *Config) { c.BallSpeed = 1 }},
		{"negative speed-up", func(c *Config) { c.SpeedUpPerHit = -1 }},
		{"no points to win", func(c *Config) { c.PointsToWin = 0 }},
		{"no lives", func(c *Config) { c.Lives = 0 }},
		{"negative serve delay", func(c *Config) { c.ServeDelayTicks = -1 }},
		{"no tick rate", func(c *Config) { c.TickRate = 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig(FFA4)
			tt.edit(&c)
			if c.Validate() == nil {
				t.Fatal("Validate accepted it")
			}
			defer func() {
				if recover() == nil {
					t.Error("New accepted it")
				}
			}()
			New(c, 1)
		})
	}
	// A 4-player paddle must also fit the width.
	c := DefaultConfig(FFA4)
	c.Width, c.PaddleLen = 20, 18
	if c.Validate() == nil {
		t.Error("paddle as wide as the board accepted")
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range modes {
		if got, err := ParseMode(m.String()); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m, got, err)
		}
	}
	if _, err := ParseMode("3v3"); err == nil {
		t.Error("ParseMode(3v3) succeeded")
	}
}

func TestSinTable(t *testing.T) {
	for d, v := range sinTable {
		want := math.Sin(float64(d)*math.Pi/180) * (1 << trigScaleShift)
		if math.Abs(float64(v)-want) > 0.5 {
			t.Errorf("sin(%d°) = %d, want %.2f", d, v, want)
		}
	}
}

func TestStepDoesNotAllocate(t *testing.T) {
	for _, mode := range modes {
		cfg := DefaultConfig(mode)
		cfg.PointsToWin, cfg.Lives = maxCount, maxCount
		g := newGame(t, cfg, allSeats(mode)...)
		b := newBot(1)
		if n := testing.AllocsPerRun(5000, func() { g.Step(b.inputs(g)) }); n != 0 {
			t.Errorf("%s: Step allocates %.1f times per tick", mode, n)
		}
		if n := testing.AllocsPerRun(100, func() { _ = g.Hash() }); n != 0 {
			t.Errorf("%s: Hash allocates", mode)
		}
		if n := testing.AllocsPerRun(100, func() { _ = g.Snapshot() }); n != 1 {
			t.Errorf("%s: Snapshot allocates %.1f times, want 1", mode, n)
		}
	}
}

func TestSnapshotIsImmutable(t *testing.T) {
	g := newGame(t, DefaultConfig(FFA4), 0, 1, 2, 3)
	b := newBot(3)
	for range 100 {
		g.Step(b.inputs(g))
	}
	s := snap(g)
	before := *s
	cfg := *s.Config
	for range 500 {
		g.Step(b.inputs(g))
	}
	if *s != before || *s.Config != cfg {
		t.Error("a snapshot changed after later ticks")
	}
	if s2 := snap(g); s2 == s || s2.Tick != s.Tick+500 {
		t.Errorf("fresh snapshot at tick %d, old one at %d", s2.Tick, s.Tick)
	}
}

func TestHashCoversState(t *testing.T) {
	base := func() *Game {
		g := newGame(t, DefaultConfig(FFA4), 0, 1, 2, 3)
		start(g)
		return g
	}
	h0 := base().Hash()
	if base().Hash() != h0 {
		t.Fatal("hash not reproducible")
	}
	edits := map[string]func(g *Game){
		"rng":       func(g *Game) { g.rng.Next() },
		"tick":      func(g *Game) { g.tick++ },
		"ball x":    func(g *Game) { g.ball.x++ },
		"ball vy":   func(g *Game) { g.ball.vy++ },
		"speed":     func(g *Game) { g.ball.speed++ },
		"serve in":  func(g *Game) { g.serveIn-- },
		"paddle":    func(g *Game) { g.seats[3].pos++ },
		"dir":       func(g *Game) { g.seats[2].dir = 1 },
		"lives":     func(g *Game) { g.seats[1].lives-- },
		"hits":      func(g *Game) { g.seats[0].hits++ },
		"pending":   func(g *Game) { g.seats[0].pending = true },
		"team":      func(g *Game) { g.team[1]++ },
		"last hit":  func(g *Game) { g.lastHit = 2 },
		"over":      func(g *Game) { g.over = true },
		"winners":   func(g *Game) { g.winners = 1 },
		"config":    func(g *Game) { g.cfg.Lives++ },
		"out order": func(g *Game) { g.seats[1].outRank = 1 },
	}
	for name, edit := range edits {
		g := base()
		edit(g)
		if g.Hash() == h0 {
			t.Errorf("changing %s does not change the hash", name)
		}
	}
}

// recordScript plays n ticks with the bot and keeps each tick's inputs, so
// benchmarks time Step alone.
func recordScript(cfg Config, n int) [][]game.Input {
	g := New(cfg, 1)
	for _, s := range allSeats(cfg.Mode) {
		_ = g.Join(s)
	}
	b := newBot(1)
	script := make([][]game.Input, n)
	for i := range script {
		script[i] = append([]game.Input(nil), b.inputs(g)...)
		g.Step(script[i])
	}
	return script
}

func benchStep(b *testing.B, mode Mode) {
	cfg := DefaultConfig(mode)
	cfg.PointsToWin, cfg.Lives = maxCount, maxCount // never ends mid-benchmark
	script := recordScript(cfg, 1<<14)
	g := New(cfg, 1)
	for _, s := range allSeats(mode) {
		_ = g.Join(s)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		g.Step(script[i&(len(script)-1)])
	}
}

func BenchmarkStep1v1(b *testing.B)  { benchStep(b, OneVOne) }
func BenchmarkStepFFA4(b *testing.B) { benchStep(b, FFA4) }

func BenchmarkSnapshot(b *testing.B) {
	g := New(DefaultConfig(FFA4), 1)
	for _, s := range allSeats(FFA4) {
		_ = g.Join(s)
	}
	for range 200 {
		g.Step(nil)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = g.Snapshot()
	}
}

func BenchmarkHash(b *testing.B) {
	g := New(DefaultConfig(FFA4), 1)
	b.ReportAllocs()
	for b.Loop() {
		_ = g.Hash()
	}
}

// TestInvariantsUnderRandomPlay plays many bot matches, with random joins
// and leaves, and checks after every tick what must always hold: the ball
// inside the board and moving when live, paddles inside their range, no
// rally going on forever without a paddle touching the ball.
func TestInvariantsUnderRandomPlay(t *testing.T) {
	ticks := 20000
	if testing.Short() {
		ticks = 4000
	}
	for _, mode := range modes {
		for seed := range uint64(6) {
			cfg := DefaultConfig(mode)
			cfg.PointsToWin, cfg.Lives = 50, 15
			g := New(cfg, seed)
			for _, s := range allSeats(mode) {
				_ = g.Join(s)
			}
			b := newBot(seed)
			played := 0
			loX, hiX, loY, hiY := cfg.bounds()
			sinceContact := 0
			lastHits := int32(0)
			for tick := range ticks {
				if g.over {
					break
				}
				played = tick
				// Four-player rooms churn: rare leaves (a forfeit, or an
				// elimination in FFA), frequent attempts to fill seats.
				if r := b.r.IntN(20000); mode != OneVOne && r < 4 {
					g.Leave(r)
				} else if mode != OneVOne && r < 100 {
					_ = g.Join(r % 4)
				}
				g.Step(b.inputs(g))
				bl := g.ball
				if bl.live {
					if bl.x < loX || bl.x > hiX || bl.y < loY || bl.y > hiY {
						t.Fatalf("%s seed %d tick %d: ball %+v outside %d..%d x %d..%d", mode, seed, tick, bl, loX, hiX, loY, hiY)
					}
					if bl.vx == 0 && bl.vy == 0 {
						t.Fatalf("%s seed %d tick %d: live ball standing still", mode, seed, tick)
					}
				}
				for i := range g.nslots {
					lo, hi := cfg.PaddleRange(i)
					if p := g.seats[i].pos; g.seats[i].player && (p < lo || p > hi) {
						t.Fatalf("%s seed %d tick %d: paddle %d at %d outside %d..%d", mode, seed, tick, i, p, lo, hi)
					}
				}
				hits := g.seats[0].hits + g.seats[1].hits + g.seats[2].hits + g.seats[3].hits
				if !bl.live || hits != lastHits {
					sinceContact = 0
				}
				lastHits = hits
				if sinceContact++; sinceContact > 30*cfg.TickRate {
					t.Fatalf("%s seed %d tick %d: 30 s without a paddle touching the ball: %+v", mode, seed, tick, bl)
				}
			}
			r, _ := g.Result()
			t.Logf("%s seed %d: %d ticks, over=%v %+v", mode, seed, played+1, g.over, r)
		}
	}
}
