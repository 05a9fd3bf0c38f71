// Package bot is the light cycles' computer rider at five levels, for the
// server's bot driver (package bot at the root). It reads only what a
// seat's screen shows: the arena as the driver hands it, late by the
// level's reaction time, and its own cycle as it is now (a rider knows
// which way they turned).
//
// The levels are the usual ladder of Tron programs: 1 turns only when the
// next cell is a wall; 2 looks down the road and turns toward the longer
// one; 3 flood-fills and rides into the most room; 4 also fills that room
// tightly, hugging walls instead of cutting it in two; 5 looks ahead at
// where the others can get to first and takes the move that claims the
// most of the arena (its Voronoi share), treating the cells the others
// may reach before its view catches up as taken.
package bot

import (
	"fmt"

	drive "github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/game/sim"
	"github.com/termarena/termarena/game/tron"
)

// Level is one level's skills.
type Level struct {
	Reflex drive.Reflex
	// Think is how the level picks its move.
	Think Thinking
	// Wander is the chance in a thousand, per move, of a turn for no
	// reason while the road ahead is clear (a beginner's restlessness).
	Wander int
}

// Thinking is a way of choosing the next move.
type Thinking uint8

const (
	AvoidWall Thinking = iota // turn only when the next cell is taken
	LongRoad                  // turn toward the longer straight road when the one ahead is short
	FloodFill                 // ride into the most reachable room
	FillSpace                 // the most room, filled tightly
	Lookahead                 // the most arena reached first, with the others' next moves as taken
)

// Levels are the five levels, weakest first. Cycles move every third
// tick, so a Delay of 24 ticks is eight cells late: level 1 reacts in
// 0.4 s and sees only the next cell.
var Levels = [drive.Levels]Level{
	{Reflex: drive.Reflex{Delay: 24, Jitter: 6, Gap: 3}, Think: AvoidWall, Wander: 40},
	{Reflex: drive.Reflex{Delay: 18, Jitter: 6, Gap: 3}, Think: LongRoad, Wander: 10},
	{Reflex: drive.Reflex{Delay: 12, Jitter: 3, Gap: 3}, Think: FloodFill},
	{Reflex: drive.Reflex{Delay: 9, Jitter: 3, Gap: 3}, Think: FillSpace},
	{Reflex: drive.Reflex{Delay: 4, Jitter: 2, Gap: 3}, Think: Lookahead},
}

// New is the catalogue's bot.Maker for light cycles: every mode, every
// seat.
func New(mode string, level, slot int, seed uint64) (drive.Brain, drive.Reflex, error) {
	if _, err := tron.ParseMode(mode); err != nil {
		return nil, drive.Reflex{}, err
	}
	if level < 1 || level > drive.Levels {
		return nil, drive.Reflex{}, fmt.Errorf("tron bot: no level %d (1 to %d)", level, drive.Levels)
	}
	if slot < 0 || slot >= tron.MaxPlayers {
		return nil, drive.Reflex{}, fmt.Errorf("tron bot: no seat %d", slot)
	}
	lv := Levels[level-1]
	r := lv.Reflex
	r.Seed = seed ^ 0x5eed
	return &Brain{lv: lv, rng: sim.NewRNG(seed), lastX: -1}, r, nil
}

// Brain is one cycle's rider.
type Brain struct {
	lv  Level
	rng sim.RNG
	// lastX, lastY is the head it last decided at: one decision a move.
	lastX, lastY int16
	lastRound    int32
	// Scratch reused between moves.
	grid  []byte
	dist  []int32
	queue []int32
}

var headings = [4]int8{tron.Up, tron.Down, tron.Left, tron.Right}

// Act implements drive.Brain.
func (b *Brain) Act(v drive.View) []int8 {
	seen, ok1 := v.Seen.(*tron.Snapshot)
	now, ok2 := v.Now.(*tron.Snapshot)
	if !ok1 || !ok2 || v.Slot < 0 || v.Slot >= now.Slots {
		return nil
	}
	me := now.Cycles[v.Slot]
	if !me.Alive || me.Queue[0] != tron.None || now.PauseIn > 0 {
		return nil
	}
	if me.X == b.lastX && me.Y == b.lastY && now.Round == b.lastRound {
		return nil
	}
	b.lastX, b.lastY, b.lastRound = me.X, me.Y, now.Round
	b.board(seen, now, v.Slot)
	turn := b.choose(seen, v.Slot, int(me.X), int(me.Y), me.Heading)
	if turn == me.Heading || turn == tron.None {
		return nil
	}
	return []int8{turn}
}

// board is the arena as the bot knows it: what its screen showed Delay
// ago, plus its own trail as it is now.
func (b *Brain) board(seen, now *tron.Snapshot, slot int) {
	n := now.Width * now.Height
	if len(b.grid) != n {
		b.grid = make([]byte, n)
		b.dist = make([]int32, n)
		b.queue = make([]int32, 0, n)
	}
	if seen.Width == now.Width && seen.Height == now.Height && seen.Round == now.Round {
		copy(b.grid, seen.Grid)
	} else {
		clear(b.grid)
	}
	own := byte(slot + 1)
	for i, c := range now.Grid {
		if c == own {
			b.grid[i] = own
		}
	}
}

func (b *Brain) free(w, h, x, y int) bool {
	return x >= 0 && x < w && y >= 0 && y < h && b.grid[y*w+x] == 0
}

// choose picks the heading for the next move from (x, y).
func (b *Brain) choose(s *tron.Snapshot, slot, x, y int, heading int8) int8 {
	w, h := s.Width, s.Height
	var others []int
	if b.lv.Think >= FillSpace {
		// Keeps out of everything another rider could have reached
		// since the bot saw them (at its slowest), and two moves more:
		// they may be there at the same move, or turn across its path.
		others = b.blockOthers(s, slot, 2+(b.lv.Reflex.Delay+b.lv.Reflex.Jitter)/max(int(s.Config.MoveEvery), 1))
	}
	defer b.unblock()
	opts := b.open(w, h, x, y, heading)
	if len(opts) == 0 && others != nil {
		// Every move may meet another rider: take the chance rather
		// than the wall.
		b.unblock()
		others = b.blockOthers(s, slot, 0)
		opts = b.open(w, h, x, y, heading)
	}
	if len(opts) == 0 {
		return tron.None
	}
	ahead := func(d int8) bool {
		dx, dy := tron.Delta(d)
		return b.free(w, h, x+dx, y+dy)
	}
	switch b.lv.Think {
	case AvoidWall:
		if ahead(heading) && !b.wander() {
			return heading
		}
		return b.pick(opts, heading)
	case LongRoad:
		if b.road(w, h, x, y, heading) > 3 && !b.wander() {
			return heading
		}
		best, bestLen := tron.None, -1
		for _, d := range opts {
			if l := b.road(w, h, x, y, d); l > bestLen || (l == bestLen && d == heading) {
				best, bestLen = d, l
			}
		}
		return best
	}
	// The searching levels score every open move.
	best, bestScore := tron.None, int64(-1)
	for _, d := range opts {
		dx, dy := tron.Delta(d)
		nx, ny := x+dx, y+dy
		var score int64
		switch b.lv.Think {
		case FloodFill:
			score = int64(b.area(w, h, nx, ny)) * 4
		case FillSpace:
			// Room first; among nearly equal rooms, the move that
			// keeps to the walls, which fills the room without
			// cutting it into pieces.
			score = int64(b.area(w, h, nx, ny))*64 + int64(b.walls(w, h, nx, ny))*8
		case Lookahead:
			score = b.territory(w, h, nx, ny, others)
		}
		// Straight on when it makes no difference (fewer keys), else a
		// coin decides between equals: a rider has no fixed habits.
		score *= 4
		if d == heading {
			score += 3
		} else {
			score += int64(b.rng.Intn(3))
		}
		if score > bestScore {
			best, bestScore = d, score
		}
	}
	return best
}

// open lists the moves from (x, y) heading that are not into a taken cell.
func (b *Brain) open(w, h, x, y int, heading int8) []int8 {
	var opts []int8
	for _, d := range headings {
		if d == tron.Reverse(heading) {
			continue
		}
		dx, dy := tron.Delta(d)
		if b.free(w, h, x+dx, y+dy) {
			opts = append(opts, d)
		}
	}
	return opts
}

func (b *Brain) wander() bool { return b.rng.Intn(1000) < uint64(b.lv.Wander) }

// pick is a random open move, the current heading if that is the only one.
func (b *Brain) pick(opts []int8, heading int8) int8 {
	var turns []int8
	for _, d := range opts {
		if d != heading {
			turns = append(turns, d)
		}
	}
	if len(turns) == 0 {
		return heading
	}
	return turns[b.rng.Intn(uint64(len(turns)))]
}

// road is how many free cells lie straight ahead of (x, y) going d.
func (b *Brain) road(w, h, x, y int, d int8) int {
	dx, dy := tron.Delta(d)
	n := 0
	for x, y = x+dx, y+dy; b.free(w, h, x, y) && n < w+h; x, y = x+dx, y+dy {
		n++
	}
	return n
}

// walls counts the taken cells (and arena edges) around (x, y).
func (b *Brain) walls(w, h, x, y int) int {
	n := 0
	for _, d := range headings {
		dx, dy := tron.Delta(d)
		if !b.free(w, h, x+dx, y+dy) {
			n++
		}
	}
	return n
}

// area is how many free cells are reachable from (x, y), itself counted.
func (b *Brain) area(w, h, x, y int) int {
	start := y*w + x
	for i := range b.dist {
		b.dist[i] = -1
	}
	q := append(b.queue[:0], int32(start))
	b.dist[start] = 0
	for i := 0; i < len(q); i++ {
		c := int(q[i])
		cx, cy := c%w, c/w
		for _, d := range headings {
			dx, dy := tron.Delta(d)
			nx, ny := cx+dx, cy+dy
			if !b.free(w, h, nx, ny) || b.dist[ny*w+nx] >= 0 {
				continue
			}
			b.dist[ny*w+nx] = 0
			q = append(q, int32(ny*w+nx))
		}
	}
	b.queue = q
	return len(q)
}

// blockOthers marks, as taken, every cell the other riders could reach
// within reach moves of where the bot last saw them. It returns those
// cells and the others' heads: the others hold them already, so
// territory races from all of them.
func (b *Brain) blockOthers(s *tron.Snapshot, slot int, reach int) []int {
	w, h := s.Width, s.Height
	var heads []int
	for i := range s.Slots {
		c := s.Cycles[i]
		if i == slot || !c.Alive {
			continue
		}
		heads = append(heads, int(c.Y)*w+int(c.X))
		for dy := -reach; dy <= reach; dy++ {
			for dx := -reach; dx <= reach; dx++ {
				if abs(dx)+abs(dy) > reach || (dx == 0 && dy == 0) {
					continue
				}
				x, y := int(c.X)+dx, int(c.Y)+dy
				if b.free(w, h, x, y) {
					b.grid[y*w+x] = blocked
					heads = append(heads, y*w+x)
				}
			}
		}
	}
	return heads
}

// blocked marks a cell blockOthers took, so unblock can give it back.
const blocked = 0xff

func (b *Brain) unblock() {
	for i, c := range b.grid {
		if c == blocked {
			b.grid[i] = 0
		}
	}
}

// territory scores moving to (x, y): the cells the bot reaches before any
// other rider (a breadth-first race from every head at once), ties to
// nobody. A move into a pocket smaller than the bot's share is no
// better than the pocket.
func (b *Brain) territory(w, h, x, y int, others []int) int64 {
	for i := range b.dist {
		b.dist[i] = -1
	}
	// dist holds distance*2 + who (0 me, 1 others), -1 unvisited, -2 tied.
	q := b.queue[:0]
	me := y*w + x
	b.dist[me] = 0
	q = append(q, int32(me))
	for _, o := range others {
		if b.dist[o] < 0 {
			b.dist[o] = 1
			q = append(q, int32(o))
		}
	}
	mine := 0
	for i := 0; i < len(q); i++ {
		c := int(q[i])
		dc := b.dist[c]
		if dc == -2 {
			continue
		}
		if dc&1 == 0 {
			mine++
		}
		cx, cy := c%w, c/w
		for _, d := range headings {
			dx, dy := tron.Delta(d)
			nx, ny := cx+dx, cy+dy
			if !b.free(w, h, nx, ny) {
				continue
			}
			n := ny*w + nx
			nd := (dc>>1+1)<<1 | dc&1
			switch cur := b.dist[n]; {
			case cur == -1:
				b.dist[n] = nd
				q = append(q, int32(n))
			case cur >= 0 && cur>>1 == nd>>1 && cur&1 != nd&1:
				b.dist[n] = -2 // reached first by both: nobody's
			}
		}
	}
	b.queue = q
	room := b.area(w, h, x, y)
	return int64(min(mine, room))*16 + int64(room)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
