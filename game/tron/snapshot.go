package tron

// Cycle is one seat as of a snapshot.
type Cycle struct {
	Seated  bool // a player holds the seat
	Pending bool // joined mid-match; rides from the next round
	Left    bool // left the match after it started
	Rider   bool // started the current round
	Alive   bool // still riding in it
	// X, Y is the head cell; Heading the way the cycle last moved (or
	// faces at a start). A crashed cycle keeps the cell it crashed from.
	X, Y    int16
	Heading int8
	// Queue is the turns taken at the next moves, oldest first, None after
	// the last.
	Queue    [QueueLen]int8
	Wins     int32
	Survival uint32 // ticks alive while cycles moved, over all rounds
	Place    int8   // 1-based once the match is over; 0 if not placed
}

// Snapshot is an immutable view of a match after a tick. The room makes one
// per tick and shares it with every session: everything is a value except
// Config and Grid, which are shared read-only with other snapshots.
type Snapshot struct {
	// Config is shared by every snapshot of the match; read it, never
	// write it.
	Config *Config
	Tick   uint64
	// Round is the round in play (1-based), or the one that just ended
	// while PauseIn > 0.
	Round int32
	// Width and Height of the arena in cells (Config's, repeated for
	// convenience).
	Width, Height int
	// Grid is the arena, row-major: cell (x, y) is Grid[y*Width+x], 0 for
	// empty, slot+1 for a trail or head. Shared between snapshots until the
	// next move: never write it.
	Grid []byte
	// MoveIn is the number of ticks before cycles next move (counting only
	// ticks they ride: not the hold or the pause). HoldIn is the hold left
	// at the start of a round, PauseIn the freeze left after its end.
	MoveIn, HoldIn, PauseIn int32
	// RoundWinners has bit i set when slot i won (or shared) the round that
	// just ended; 0 while a round is in play.
	RoundWinners uint8
	Slots        int
	Cycles       [MaxPlayers]Cycle

	Over    bool
	Forfeit bool
	// Winners has bit i set when slot i shares first place (once Over).
	Winners uint8
}

// Snapshot implements game.Game; the value is a *Snapshot. Building it
// copies the grid only when a move changed it since the last snapshot,
// once every MoveEvery ticks at most.
func (g *Game) Snapshot() any {
	if g.dirty || g.snapGrid == nil {
		g.snapGrid = append([]byte(nil), g.grid...)
		g.dirty = false
	}
	s := &Snapshot{
		Config:       g.shared,
		Tick:         g.tick,
		Round:        g.round,
		Width:        g.cfg.Width,
		Height:       g.cfg.Height,
		Grid:         g.snapGrid,
		MoveIn:       g.moveIn,
		HoldIn:       g.holdIn,
		PauseIn:      g.pauseIn,
		RoundWinners: g.roundWinners,
		Slots:        g.cfg.Players,
		Over:         g.over,
		Forfeit:      g.forfeit,
		Winners:      g.winners,
	}
	for i := range g.cfg.Players {
		c := &g.cycles[i]
		s.Cycles[i] = Cycle{
			Seated:   c.seated,
			Pending:  c.pending,
			Left:     c.left,
			Rider:    g.riders&(1<<i) != 0,
			Alive:    c.alive,
			X:        c.x,
			Y:        c.y,
			Heading:  c.heading,
			Queue:    c.queue,
			Wins:     c.wins,
			Survival: c.survival,
			Place:    g.places[i],
		}
	}
	return s
}

// At is the slot whose trail or head is on cell (x, y), or -1 for an empty
// cell or one outside the arena.
func (s *Snapshot) At(x, y int) int {
	if x < 0 || x >= s.Width || y < 0 || y >= s.Height {
		return -1
	}
	return int(s.Grid[y*s.Width+x]) - 1
}

// Free reports whether a cycle could move into (x, y): inside the arena
// and not on a trail.
func (s *Snapshot) Free(x, y int) bool {
	return x >= 0 && x < s.Width && y >= 0 && y < s.Height && s.Grid[y*s.Width+x] == 0
}

// Won reports whether slot shares first place (only once Over).
func (s *Snapshot) Won(slot int) bool {
	return slot >= 0 && slot < MaxPlayers && s.Winners&(1<<slot) != 0
}

// NextHead is where slot's head goes at its next move if the player's
// turns not yet confirmed by the room (oldest first; none, or None, for
// none) are applied on top of what the snapshot already queued, and the
// heading it will then have. It is the rule Step applies, so a view draws
// a turn in the frame after the key and, as the room acknowledges inputs,
// re-applies only those still pending. The cell may be a wall or a trail,
// in which case the move crashes; ok is false when the slot is not riding.
func (s *Snapshot) NextHead(slot int, turns ...int8) (x, y int, heading int8, ok bool) {
	if slot < 0 || slot >= s.Slots || !s.Cycles[slot].Alive {
		return 0, 0, None, false
	}
	c := &s.Cycles[slot]
	q := c.Queue
	for _, t := range turns {
		q = Steer(c.Heading, q, t)
	}
	h := popTurn(c.Heading, &q)
	dx, dy := Delta(h)
	return int(c.X) + dx, int(c.Y) + dy, h, true
}
