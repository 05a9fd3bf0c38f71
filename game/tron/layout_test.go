package tron

import "testing"

// TestStartsAreFair checks every rider count on the default arena and the
// smallest one: starts are distinct, inside, the same distance in front of
// the wall behind them, facing inward with a clear run ahead, and (even
// counts) each has a twin rotated by 180°.
func TestStartsAreFair(t *testing.T) {
	small := testConfig(MaxPlayers)
	small.Width, small.Height = minArena, minArena
	for _, cfg := range []Config{DefaultConfig(Casual), small} {
		m := cfg.inset()
		for n := 1; n <= MaxPlayers; n++ {
			var st [MaxPlayers]start
			cfg.ring(n, &st)
			seen := map[[2]int16]bool{}
			for i := range n {
				s := st[i]
				x, y := int(s.x), int(s.y)
				if x < 0 || x >= cfg.Width || y < 0 || y >= cfg.Height || seen[[2]int16{s.x, s.y}] {
					t.Fatalf("%dx%d, %d riders: start %d (%d,%d) outside or repeated", cfg.Width, cfg.Height, n, i, x, y)
				}
				seen[[2]int16{s.x, s.y}] = true
				// Distance to the wall behind.
				dx, dy := Delta(s.heading)
				back := 0
				for bx, by := x-dx, y-dy; bx >= 0 && bx < cfg.Width && by >= 0 && by < cfg.Height; bx, by = bx-dx, by-dy {
					back++
				}
				if back != m {
					t.Errorf("%dx%d, %d riders: start %d (%d,%d) heading %d is %d cells from the wall behind, want %d",
						cfg.Width, cfg.Height, n, i, x, y, s.heading, back, m)
				}
				// Inward: more room ahead than behind.
				ahead := 0
				for fx, fy := x+dx, y+dy; fx >= 0 && fx < cfg.Width && fy >= 0 && fy < cfg.Height; fx, fy = fx+dx, fy+dy {
					ahead++
				}
				if ahead <= back {
					t.Errorf("%dx%d, %d riders: start %d faces outward (%d ahead, %d behind)", cfg.Width, cfg.Height, n, i, ahead, back)
				}
			}
			if n%2 == 0 {
				for i := range n {
					twin := [2]int16{int16(cfg.Width-1) - st[i].x, int16(cfg.Height-1) - st[i].y}
					if !seen[twin] {
						t.Errorf("%dx%d, %d riders: start (%d,%d) has no 180° twin", cfg.Width, cfg.Height, n, st[i].x, st[i].y)
					}
				}
			}
		}
	}
}

// TestStartSpacing documents the spacing the FFA mode's seat count is
// chosen for: the gap along the start ring between neighbours.
func TestStartSpacing(t *testing.T) {
	cfg := DefaultConfig(Casual)
	m := cfg.inset()
	per := 2 * (cfg.Width - 1 - 2*m + cfg.Height - 1 - 2*m)
	for _, tt := range []struct{ n, gap int }{{6, 47}, {8, 35}} {
		if got := per / tt.n; got != tt.gap {
			t.Errorf("%d riders: %d cells between starts, the FFA comment says %d", tt.n, got, tt.gap)
		}
	}
}
