// Package tron is the rules of light cycles for two to eight riders: each
// cycle moves on by itself, one cell every Config.MoveEvery ticks, leaving
// a trail that stays for the round; a rider can only turn. A cycle that
// runs into a wall or any trail, its own included, crashes; so do two
// cycles moving into the same cell, or into each other, in the same move.
// The last cycle riding wins the round; when the last ones crash in the
// same move the round is a draw and each of them is credited with it,
// because none of them outlasted the others, and because every round then
// credits someone, which bounds the length of a match. The first rider to
// Config.RoundsToWin round wins ends the match; riders are placed by round
// wins, then by survival time (ticks alive summed over the rounds), and
// equal riders share a place. A rider who leaves is placed below everyone
// who stayed, so leaving never improves a placement.
//
// Choices, and why:
//   - Crashes are resolved against the arena as it was before the move, all
//     cycles at once, so no slot order can decide who survives a meeting.
//   - Turns queue (up to QueueLen) and one is taken per move, so two keys
//     pressed inside one move make a tight U-turn instead of the second
//     being judged against a heading the cycle has not taken yet; a turn
//     onto the reverse of where the cycle will be facing is ignored.
//   - One arena size for everyone, bigger than an 80×24 terminal shows, so
//     the terminal a player brings does not change what they can reach.
//   - Starts are spread evenly around a ring inset from the walls, facing
//     inward, each the same distance in front of the wall behind it and,
//     for an even count, each with a twin rotated by 180°; only which slot
//     gets which start comes from the seed, so no slot number is a better
//     seat.
//   - A round ends frozen for Config.PauseTicks so everyone sees the crash,
//     and the next holds still for Config.ReadyTicks at the new starts so
//     riders find their cycle before it moves.
//   - A player who joins mid-match (casual rooms) rides from the next
//     round, so nobody appears in front of a moving cycle.
//
// Lag compensation. The room tells Step how old the sender's view was
// (game.Input.Lag, at most RoomConfig.LagCompensation: 150 ms, 9 ticks, by
// default). A turn is applied at the tick its player saw: with Lag L it
// takes effect L ticks back, by rolling the simulation back to that tick
// and re-simulating the ticks since with the inputs applied at each
// (rollback.go). Lag is all the compensation uses and replays record it,
// so a replay performs the same rollbacks and stays exact. The rules:
//   - Only a turn (Up, Down, Left, Right) of a seat riding in the current
//     round is placed in the past; everything else is as without lag.
//   - A turn never takes effect before the round's first tick, the match's
//     first tick, the tick after a Join or a Leave (they change the state
//     outside Step, so the history restarts after them), or the oldest tick
//     the history holds (one second's worth at Config.TickRate); it takes
//     effect at the earliest tick it may instead. So a rollback never
//     crosses a round boundary or the match start, and never reaches
//     further back than the room's cap.
//   - A seat's turns keep their order: a turn never takes effect before the
//     seat's previous turn did, so a client cannot reorder its own keys by
//     claiming an older view.
//   - What happened within the window is decided again by the
//     re-simulation, and nothing before it. A rider that crashed within the
//     window rides on if the late turn avoids the crash; one that crashed
//     before it stays crashed. A late turn that takes its rider across
//     another's path crashes the other only if they got there within the
//     window (and may spare one who had crashed into the trail the turn
//     moved). So nobody's fate is changed by an action older than the cap.
//   - A move that decides the round (at most one rider left) does not end
//     it at once: the round ends maxLag ticks later, maxLag being the
//     largest lag a turn of this match has carried (so at most the cap, and
//     0 with compensation off: then play is exactly as it was without
//     compensation), and everything holds still meanwhile, as Pong's ball
//     waits at a lagging player's paddle. A late turn arriving then can
//     still undo the deciding crash. Once the round has ended its result is
//     final: no rollback reaches into it.
//   - Known limit: the wait is learnt from the lags of the turns that
//     arrive (while a round is over too, when they are otherwise ignored),
//     so until the match's first lagged turn has arrived a decided round
//     ends at once: if that turn is the one that would have undone a
//     round-ending crash, the crash stands. A crash that does not end the
//     round is undone either way.
//
// The state is integers only and changes only in Step, Join and Leave, with
// a SplitMix64 RNG held in the state, so (Config, seed, inputs) replays a
// match exactly and Hash verifies it. Rules import no terminal code.
package tron

import (
	"errors"
	"math/bits"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/sim"
)

// Join errors.
var (
	ErrNoSlot = errors.New("tron: no such slot")
	ErrTaken  = errors.New("tron: slot taken")
	ErrOver   = errors.New("tron: game over")
)

// cycle is one seat's state.
type cycle struct {
	seated  bool // a player holds the seat
	pending bool // joined mid-match: rides from the next round
	played  bool // rode (or was seated before the first tick): gets a place
	left    bool // left after the match started: placed below the stayers
	alive   bool // riding in the current round
	x, y    int16
	heading int8
	queue   [QueueLen]int8
	wins    int32
	// survival counts the ticks the cycle was riding while cycles moved,
	// over every round: the tie-break after round wins.
	survival uint32
	// lastAt is the tick the seat's latest turn took effect at: a later
	// turn never takes effect before it (see rollback.go).
	lastAt uint64
}

// Game is one match. It implements game.Game; like every game it is driven
// from a single goroutine and does no locking.
type Game struct {
	cfg    Config
	shared *Config // handed to every Snapshot; never written after New

	// state is everything Step changes but the grid; a rollback restores
	// it whole from the history.
	state

	// grid is owner+1 per cell, row-major, 0 empty. snapGrid is the copy
	// the last Snapshot shares; it is replaced, never written, once the
	// grid changes (dirty).
	grid     []byte
	snapGrid []byte
	dirty    bool

	// hist is the recent ticks a late turn rolls back over (rollback.go);
	// cur is Step's buffer for the inputs that take effect now.
	hist []entry
	cur  []rin
	// resimEnds counts round ends and resets met while re-simulating,
	// which the rollback rules make impossible; tests check it stays 0.
	// It is a diagnostic, not state.
	resimEnds int
	resim     bool
}

// state is the simulation state apart from the arena's cells.
type state struct {
	rng     sim.RNG
	tick    uint64
	started bool

	round  int32
	riders uint8 // bit i: slot i started the current round
	// moveIn counts down to the next move while cycles ride; holdIn is the
	// hold at the start of a round and pauseIn the freeze after its end
	// (pauseIn > 0 means the round is over).
	moveIn, holdIn, pauseIn int32
	roundWinners            uint8 // who won the round that just ended
	// endIn > 0: a move decided the round (endWinners win it), and the
	// round ends when it runs out; everything holds still meanwhile so a
	// late turn can still undo the deciding crash (rollback.go).
	endIn      int32
	endWinners uint8
	// maxLag is the largest lag (game.Input.Lag, at most the history) a
	// turn of this match has carried: how long a decided round waits.
	maxLag uint16
	// from is the first tick a rollback may restore (the tick after the
	// last round boundary, join or leave).
	from uint64

	cycles [MaxPlayers]cycle

	over    bool
	forfeit bool
	places  [MaxPlayers]int8
	winners uint8
}

var _ game.Game = (*Game)(nil)

// New starts a match. It panics if cfg fails Validate: configs come from
// DefaultConfig or from code that validated them, so a bad one is a
// programming error.
func New(cfg Config, seed uint64) *Game {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	shared := cfg
	g := &Game{
		cfg:    cfg,
		shared: &shared,
		state: state{
			rng:    sim.NewRNG(seed),
			round:  1,
			moveIn: int32(cfg.MoveEvery),
		},
		grid:  make([]byte, cfg.Width*cfg.Height),
		dirty: true,
		hist:  make([]entry, historyLen(cfg)),
	}
	return g
}

// Config returns the match configuration.
func (g *Game) Config() Config { return g.cfg }

// Slots implements game.Game.
func (g *Game) Slots() int { return g.cfg.Players }

// Join implements game.Game. Before the first tick the cycle is placed at
// once (the starts are laid out again for the new count); after that the
// seat is taken and the cycle rides from the next round. A seat that was
// left is taken afresh: the newcomer does not inherit the leaver's wins.
func (g *Game) Join(slot int) error {
	if slot < 0 || slot >= g.cfg.Players {
		return ErrNoSlot
	}
	if g.over {
		return ErrOver
	}
	c := &g.cycles[slot]
	if c.seated {
		return ErrTaken
	}
	*c = cycle{seated: true, pending: g.started, played: !g.started}
	if !g.started {
		r := g.rng // previewed: the first tick draws the same layout for real
		g.placeRiders(&r)
	}
	g.boundary()
	return nil
}

// Leave implements game.Game. Before the first tick it frees the seat as
// if it was never taken. After that the cycle crashes where it is (its
// trail stays for the round), the leaver is placed below everyone who
// stays, and when fewer than two seats remain taken the match ends as a
// forfeit; otherwise, if one cycle is left riding, it wins the round.
func (g *Game) Leave(slot int) {
	if slot < 0 || slot >= g.cfg.Players || !g.cycles[slot].seated {
		return
	}
	c := &g.cycles[slot]
	if !g.started {
		*c = cycle{}
		r := g.rng
		g.placeRiders(&r)
		return
	}
	if g.endIn > 0 {
		// The round was decided before the leave: it ends as decided.
		g.endIn = 0
		g.endRound(g.endWinners)
	}
	g.boundary()
	if c.pending {
		*c = cycle{} // never rode: as if they never came
	} else {
		c.seated, c.left, c.alive = false, true, false
		c.queue = [QueueLen]int8{}
	}
	if g.over {
		return
	}
	seated := 0
	for i := range g.cfg.Players {
		if g.cycles[i].seated {
			seated++
		}
	}
	if seated < 2 {
		g.finish(true)
		return
	}
	if g.pauseIn == 0 {
		g.checkRound(0, false)
	}
}

// Step implements game.Game. Every input of the tick, in order, queues a
// turn (Steer) for a riding cycle before anything moves, so a turn sent for
// a move tick is taken in that move. Inputs for a seat not riding, and all
// inputs during the freeze after a round, are ignored; during the hold at
// the start of a round they queue, so a rider can pick a first turn. A turn
// with a Lag takes effect that many ticks back, within the round, by
// rolling back and re-simulating (rollback.go).
func (g *Game) Step(inputs []game.Input) {
	if g.over {
		return
	}
	if !g.started {
		g.started = true
		g.placeRiders(&g.rng)
		g.boundary()
	}
	if g.pauseIn > 0 {
		g.learnLag(inputs)
		g.tick++
		g.pauseIn--
		if g.pauseIn == 0 {
			g.nextRound()
		}
		return
	}
	g.place(inputs)
	e := g.entry(g.tick + 1)
	e.ins = append(e.ins[:0], g.cur...)
	g.advance(e.ins)
}

// advance runs one tick of a round in play with the inputs that take
// effect at it, and records the tick in the history: the state before it
// and the cells its move fills. Step calls it for the present tick and a
// rollback for each tick it re-simulates.
func (g *Game) advance(ins []rin) {
	e := g.entry(g.tick + 1)
	e.before, e.nw = g.state, 0
	g.tick++
	for _, in := range ins {
		c := &g.cycles[in.slot]
		c.lastAt = g.tick
		g.maxLag = max(g.maxLag, in.lag)
		if c.alive {
			c.queue = Steer(c.heading, c.queue, in.action)
		}
	}
	if g.endIn > 0 {
		g.endIn--
		if g.endIn == 0 {
			g.endRound(g.endWinners)
		}
		return
	}
	if g.holdIn > 0 {
		g.holdIn--
		return
	}
	if g.riders == 0 {
		// Nobody was seated when the round began, so no crash will end it:
		// whoever has joined since starts a round now.
		for i := range g.cfg.Players {
			if g.cycles[i].pending {
				g.nextRound()
				break
			}
		}
		return
	}
	for i := range g.cfg.Players {
		if g.cycles[i].alive {
			g.cycles[i].survival++
		}
	}
	g.moveIn--
	if g.moveIn > 0 {
		return
	}
	g.moveIn = int32(g.cfg.MoveEvery)
	g.move(e)
}

// move advances every riding cycle one cell. Every crash is decided against
// the arena as it stood before the move, so the outcome does not depend on
// slot order: a cycle moving into a trail, a wall, or a head (heads are
// trail) crashes, and so do cycles moving into the same cell.
func (g *Game) move(e *entry) {
	w, h := g.cfg.Width, g.cfg.Height
	var next [MaxPlayers]int32 // cell index, -1 for a wall
	var crashed uint8
	for i := range g.cfg.Players {
		c := &g.cycles[i]
		if !c.alive {
			continue
		}
		c.heading = popTurn(c.heading, &c.queue)
		dx, dy := Delta(c.heading)
		x, y := int(c.x)+dx, int(c.y)+dy
		if x < 0 || x >= w || y < 0 || y >= h {
			next[i] = -1
			crashed |= 1 << i
			continue
		}
		next[i] = int32(y*w + x)
		if g.grid[next[i]] != 0 {
			crashed |= 1 << i
		}
	}
	for i := range g.cfg.Players {
		if !g.cycles[i].alive || next[i] < 0 {
			continue
		}
		for j := i + 1; j < g.cfg.Players; j++ {
			if g.cycles[j].alive && next[j] == next[i] {
				crashed |= 1<<i | 1<<j
			}
		}
	}
	for i := range g.cfg.Players {
		c := &g.cycles[i]
		if !c.alive {
			continue
		}
		if crashed&(1<<i) != 0 {
			c.alive = false
			c.queue = [QueueLen]int8{}
			continue
		}
		g.grid[next[i]] = byte(i + 1)
		e.writes[e.nw] = uint16(next[i])
		e.nw++
		c.x, c.y = int16(int(next[i])%w), int16(int(next[i])/w)
	}
	g.dirty = true
	g.checkRound(crashed, true)
}

// checkRound ends the round once it is decided. With two or more riders
// that is when at most one rides on: the survivor wins, or, if the last
// ones crashed together (crashed, this move), each of them does. A lone
// rider (a room started with one player) rides until it crashes and wins
// nothing. A round decided by a move (wait) ends maxLag ticks later, with
// everything holding still until then, so that a late turn can still undo
// the deciding crash; with no lag in the match it ends at once.
func (g *Game) checkRound(crashed uint8, wait bool) {
	var alive uint8
	for i := range g.cfg.Players {
		if g.cycles[i].alive {
			alive |= 1 << i
		}
	}
	n := bits.OnesCount8(g.riders)
	var w uint8
	switch {
	case n >= 2 && bits.OnesCount8(alive) <= 1:
		w = alive
		if w == 0 {
			w = crashed & g.riders
		}
	case n == 1 && alive == 0:
	default:
		return
	}
	if wait && g.maxLag > 0 {
		g.endIn, g.endWinners = int32(g.maxLag), w
		return
	}
	g.endRound(w)
}

func (g *Game) endRound(winners uint8) {
	if g.resim {
		g.resimEnds++
	}
	g.boundary()
	g.endIn, g.endWinners = 0, 0
	g.roundWinners = winners
	done := false
	for i := range g.cfg.Players {
		if winners&(1<<i) != 0 {
			g.cycles[i].wins++
			done = done || g.cycles[i].wins >= int32(g.cfg.RoundsToWin)
		}
	}
	if done {
		g.finish(false)
		return
	}
	if g.cfg.PauseTicks == 0 {
		g.nextRound()
		return
	}
	g.pauseIn = int32(g.cfg.PauseTicks)
}

// nextRound clears the arena and lays out everyone seated, newcomers
// included, at new starts.
func (g *Game) nextRound() {
	if g.resim {
		g.resimEnds++
	}
	g.boundary()
	g.round++
	g.roundWinners = 0
	for i := range g.cfg.Players {
		if c := &g.cycles[i]; c.pending {
			c.pending, c.played = false, true
		}
	}
	g.placeRiders(&g.rng)
	g.moveIn = int32(g.cfg.MoveEvery)
	g.holdIn = int32(g.cfg.ReadyTicks)
	g.pauseIn = 0
}

// placeRiders clears the arena and puts every seated, non-pending cycle on
// its start: the ring's starts in a random order drawn from r. The layout
// before the first tick is previewed on a copy of the RNG, and drawn for
// real on the first tick from the same state, so what the countdown shows
// is where the cycles start.
func (g *Game) placeRiders(r *sim.RNG) {
	clear(g.grid)
	g.dirty = true
	g.riders = 0
	var slots [MaxPlayers]int
	n := 0
	for i := range g.cfg.Players {
		c := &g.cycles[i]
		c.alive = false
		c.queue = [QueueLen]int8{}
		if c.seated && !c.pending {
			g.riders |= 1 << i
			slots[n] = i
			n++
		}
	}
	if n == 0 {
		return
	}
	var starts [MaxPlayers]start
	g.cfg.ring(n, &starts)
	// Fisher–Yates over the starts.
	for i := n - 1; i > 0; i-- {
		j := int(r.Intn(uint64(i + 1)))
		starts[i], starts[j] = starts[j], starts[i]
	}
	for k := range n {
		i := slots[k]
		c := &g.cycles[i]
		st := starts[k]
		c.alive = true
		c.x, c.y, c.heading = st.x, st.y, st.heading
		g.grid[int(st.y)*g.cfg.Width+int(st.x)] = byte(i + 1)
	}
}

// finish ends the match and places everyone who rode. Stayers come before
// leavers; then more round wins, then longer survival, is better; equal
// riders share a place, ranked densely.
func (g *Game) finish(forfeit bool) {
	g.over, g.forfeit = true, forfeit
	g.pauseIn, g.holdIn, g.endIn = 0, 0, 0
	better := func(a, b *cycle) bool {
		if a.left != b.left {
			return !a.left
		}
		if a.wins != b.wins {
			return a.wins > b.wins
		}
		return a.survival > b.survival
	}
	same := func(a, b *cycle) bool {
		return a.left == b.left && a.wins == b.wins && a.survival == b.survival
	}
	for i := range g.cfg.Players {
		a := &g.cycles[i]
		g.places[i] = 0
		if !a.played {
			continue
		}
		// Dense: one plus the number of distinct better records.
		place := 1
		for j := range g.cfg.Players {
			b := &g.cycles[j]
			if !b.played || !better(b, a) {
				continue
			}
			dup := false
			for k := range j {
				if c := &g.cycles[k]; c.played && better(c, a) && same(c, b) {
					dup = true
					break
				}
			}
			if !dup {
				place++
			}
		}
		g.places[i] = int8(place)
		if place == 1 {
			g.winners |= 1 << i
		}
	}
}

// Result implements game.Game. Every seat that rode is placed, leavers
// included; a seat whose player joined but never rode is not. Scores are
// round wins.
func (g *Game) Result() (game.Result, bool) {
	if !g.over {
		return game.Result{}, false
	}
	n := g.cfg.Players
	r := game.Result{
		Placements: make([]int, 0, n),
		Places:     make([]int, n),
		Scores:     make([]int, n),
		Forfeit:    g.forfeit,
	}
	for i := range n {
		r.Scores[i] = int(g.cycles[i].wins)
		r.Places[i] = int(g.places[i])
	}
	for place := 1; place <= n; place++ {
		for i := range n {
			if r.Places[i] == place {
				r.Placements = append(r.Placements, i)
			}
		}
	}
	return r, true
}
