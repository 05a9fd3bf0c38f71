package tron

// start is a cycle's starting cell and heading.
type start struct {
	x, y    int16
	heading int8
}

// inset is how far in from the walls the start ring runs: a sixth of the
// shorter side, so on the default arena every cycle starts 12 cells in
// front of the wall behind it.
func (c *Config) inset() int { return min(c.Width, c.Height) / 6 }

// ring places n cycles evenly around a rectangle inset from the walls,
// each facing inward, perpendicular to its side. Every cycle starts the
// same distance from the wall behind it; for even n every start has a twin
// rotated by 180°, so the layout is the same from both ends of every pair;
// and the ring is turned so the starts sit as far from the ring's corners
// as they can, because two cycles either side of a corner would cross each
// other's path at once. It uses no randomness: which slot gets which start
// is the seed's part (assignStarts).
func (c *Config) ring(n int, out *[MaxPlayers]start) {
	if n <= 0 {
		return
	}
	m := c.inset()
	lx, ly := c.Width-1-2*m, c.Height-1-2*m
	per := 2 * (lx + ly)
	corners := [4]int{0, lx, lx + ly, 2*lx + ly}
	// The phase maximising the smallest distance from a start to a corner,
	// the first one on a tie; the perimeter is at most about a thousand
	// cells, so trying every phase is cheap and exactly reproducible.
	best, bestD := 0, -1
	for phase := range (per + n - 1) / n {
		d := per
		for i := range n {
			s := phase + i*per/n
			for _, k := range corners {
				e := abs(s - k)
				d = min(d, e, per-e)
			}
		}
		if d > bestD {
			best, bestD = phase, d
		}
	}
	for i := range n {
		s := (best + i*per/n) % per
		var st start
		switch {
		case s < lx: // top side, heading down
			st = start{int16(m + s), int16(m), Down}
		case s < lx+ly: // right side, heading left
			st = start{int16(c.Width - 1 - m), int16(m + s - lx), Left}
		case s < 2*lx+ly: // bottom side, heading up
			st = start{int16(c.Width - 1 - m - (s - lx - ly)), int16(c.Height - 1 - m), Up}
		default: // left side, heading right
			st = start{int16(m), int16(c.Height - 1 - m - (s - 2*lx - ly)), Right}
		}
		out[i] = st
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
