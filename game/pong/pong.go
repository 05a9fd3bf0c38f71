// Package pong is real-time Pong for two to four players: 1v1, four-player
// free-for-all and 2v2, played on a rectangular board where each side is a
// paddle or a wall.
//
// The simulation is integer-only (fixed-point sub-units, a table for the
// few angles it needs, a SplitMix64 RNG held in the state) and changes only
// in Step, so a (Config, seed, per-tick inputs) log replays a match bit for
// bit on any platform and Hash can verify it. The same maths is exported for
// clients (Config.MovePaddle, Snapshot.BallAt) so a session's prediction
// lands exactly where the server will.
//
// Catches are judged as the player saw them: an input carries how many
// ticks old its player's view was (game.Input.Lag, capped by the room), and
// a ball that gets past that player's paddle waits at the paddle's line for
// up to that many ticks for the paddle to arrive (see judgeLate). With no
// lag, play is exactly what it was before this existed.
package pong

import (
	"errors"
	"math/bits"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/sim"
)

// Join errors.
var (
	ErrNoSlot     = errors.New("pong: no such slot")
	ErrTaken      = errors.New("pong: slot taken")
	ErrEliminated = errors.New("pong: side eliminated")
	ErrOver       = errors.New("pong: game over")
)

// seat is one side's player state.
type seat struct {
	player  bool // someone holds the seat (joined and not left)
	pending bool // joined mid-rally: the paddle appears when the rally ends
	out     bool // eliminated (FFA): the side is a wall for the rest of the match
	played  bool // the seat has had a paddle in play, so it gets a place
	dir     int8 // -1, 0, +1; held until the next input
	// tap is how many more ticks a tap moves the paddle (TapAction)
	// before it stops by itself; 0 while dir is held.
	tap     int32
	outRank int8  // 1 for the first side eliminated, 2 for the next...
	pos     int32 // paddle centre along the side, sub-units
	score   int32 // 1v1 points (2v2 scores per team, FFA counts lives)
	lives   int32
	hits    int32
	// lag is how many ticks old the player's view was when their last
	// input was sent (game.Input.Lag), held like dir until the next one.
	lag uint16
}

type ball struct {
	x, y, vx, vy int32
	// speed is the nominal length of (vx, vy). Speed-ups add to it rather
	// than to the table-rounded components, so rounding never accumulates.
	speed int32
	live  bool
}

// Game is one match. It implements game.Game; like every game it is driven
// from a single goroutine and does no locking.
type Game struct {
	cfg    Config
	shared *Config // handed to every Snapshot; never written after New
	nslots int

	rng     sim.RNG
	tick    uint64
	started bool

	ball    ball
	serveIn int32 // ticks left before the serve while the ball is not live
	lastHit int8  // side that last touched the ball this rally, -1 none
	// rallyHits counts paddle hits since the serve (RulesProgress shrinks
	// the paddles once it passes ShrinkAfterHits).
	rallyHits int32
	// held is 1+side while the ball waits at side's contact line for a late
	// catch (0 otherwise); heldAt is the tick it got there.
	held   int8
	heldAt uint64

	lastPointBy      int8
	lastPointAgainst int8
	lastPointTick    uint64

	seats    [4]seat
	team     [2]int32 // 2v2 team points: team 0 = Left+Right, 1 = Top+Bottom
	outCount int8

	// contested: misses have counted at some step (counting), so the
	// match was played for; a match that ends without it is a warm-up.
	contested bool

	over    bool
	forfeit bool
	winners uint8 // bit i: slot i shares first place
}

var _ game.Game = (*Game)(nil)

// New starts a match; the first serve is on Step max(ServeDelayTicks, 1).
// It panics if cfg fails Validate: configs come from DefaultConfig or from
// code that validated them, so a bad one is a programming error.
func New(cfg Config, seed uint64) *Game {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	shared := cfg
	g := &Game{
		cfg:              cfg,
		shared:           &shared,
		nslots:           cfg.Slots(),
		rng:              sim.NewRNG(seed),
		lastHit:          -1,
		lastPointBy:      -1,
		lastPointAgainst: -1,
	}
	g.resetBall()
	return g
}

// Config returns the match configuration.
func (g *Game) Config() Config { return g.cfg }

// Slots implements game.Game.
func (g *Game) Slots() int { return g.nslots }

// live reports whether side has a paddle in play; every other side is a
// wall.
func (g *Game) live(side int) bool {
	s := &g.seats[side]
	return s.player && !s.pending && !s.out
}

// in reports whether side still has a player in contention, counting one
// who is waiting for the rally to end to take the side.
func (g *Game) in(side int) bool {
	s := &g.seats[side]
	return s.player && !s.out
}

// Join implements game.Game. Before the first Step, or while the ball waits
// to be served, the player is seated at once; during a rally the seat is
// taken but the paddle only appears when the rally ends, so nobody's side
// turns from wall to paddle under a ball in flight.
func (g *Game) Join(slot int) error {
	if slot < 0 || slot >= g.nslots {
		return ErrNoSlot
	}
	if g.over {
		return ErrOver
	}
	s := &g.seats[slot]
	switch {
	case s.player:
		return ErrTaken
	case s.out:
		return ErrEliminated
	}
	lo, hi := g.cfg.PaddleRange(slot)
	*s = seat{
		player:  true,
		pending: g.ball.live,
		played:  s.played || !g.ball.live, // a 2v2 seat keeps its leaver's place
		pos:     lo + (hi-lo)/2,
		lives:   int32(g.cfg.Lives),
	}
	if g.started && !g.ball.live {
		// A newcomer gets the whole pause to find their paddle.
		g.serveIn = int32(g.cfg.ServeDelayTicks)
	}
	return nil
}

// Leave implements game.Game. Before the first Step it just frees the seat.
// After that it is a forfeit: the side becomes a wall; 1v1 ends with the
// other player winning, 2v2 ends when a team has nobody left, and in FFA
// the leaver is eliminated on the spot, below everyone still in. A player
// still waiting for their paddle to appear leaves as if they never came.
func (g *Game) Leave(slot int) {
	if slot < 0 || slot >= g.nslots || !g.seats[slot].player {
		return
	}
	s := &g.seats[slot]
	if !g.started {
		*s = seat{}
		return
	}
	if s.pending {
		*s = seat{played: s.played}
		return
	}
	s.player, s.dir, s.tap = false, 0, 0
	if g.held == int8(slot+1) {
		// The wall that replaces the paddle returns the waiting ball.
		g.held, g.heldAt = 0, 0
	}
	if g.over {
		return
	}
	switch g.cfg.Mode {
	case OneVOne:
		var w uint8
		if g.seats[1-slot].player {
			w = 1 << (1 - slot)
		}
		g.finish(w, true)
	case TwoVTwo:
		t := slot / 2
		if !g.seats[2*t].player && !g.seats[2*t+1].player {
			o := 1 - t
			g.finish(3<<(2*o), true)
		}
	case FFA4:
		if !s.out {
			g.eliminate(slot)
			g.checkLastStanding(true)
		}
	}
	if !g.over && g.ball.live && !g.reachable() {
		// The wall that replaced the leaver may leave the ball bouncing
		// where no paddle can ever meet it; replay the point instead.
		g.resetBall()
	}
}

// Step implements game.Game. Inputs set each sender's paddle direction
// (sign of Action; the last input for a slot in the tick wins) before the
// paddles move, then the ball moves or, between points, the serve counts
// down.
func (g *Game) Step(inputs []game.Input) {
	if g.over {
		return
	}
	g.started = true
	g.tick++
	for _, inp := range inputs {
		// Accepted while pending too, so a key held while waiting to play
		// is already in force when the paddle appears.
		if inp.Slot >= 0 && inp.Slot < g.nslots && g.in(inp.Slot) {
			s := &g.seats[inp.Slot]
			s.dir, s.lag, s.tap = int8(sign8(inp.Action)), inp.Lag, TapTicks(inp.Action)
		}
	}
	for i := range g.nslots {
		if s := &g.seats[i]; s.dir != 0 && g.live(i) {
			s.pos = g.cfg.MovePaddle(s.pos, s.dir, 1, i)
			if s.tap > 0 {
				if s.tap--; s.tap == 0 {
					s.dir = 0 // the tap's last tick
				}
			}
		}
	}
	g.contested = g.contested || g.counting()
	if !g.ball.live {
		if g.serveIn > 0 {
			g.serveIn--
		}
		if g.serveIn == 0 {
			g.serve()
		}
		return
	}
	if g.held != 0 {
		g.judgeLate()
		return
	}
	g.moveBall()
}

// Latency-fair judging. A player moves their paddle against a screen that
// is lag ticks old by the time the move reaches the server, so a ball their
// screen shows meeting the paddle has, on the server, already gone past it.
// When the ball gets past a paddle whose player's view lags, the point is
// not given at once: the ball waits at the contact line where it crossed
// for up to that many ticks, and if the paddle covers that point within
// them (as it did on the player's screen when the ball got there) it is a
// catch, returned from the line now. Only a miss is ever delayed, only by
// the lag the room allowed (capped), and the ball waits where every other
// screen already shows it (a view stops the ball at a paddle's face until
// it learns the outcome), so nobody else is judged on anything older.

// judgeLate decides a held ball: a catch as soon as the paddle covers the
// crossing point within the seat's lag, a point once the lag has run out.
func (g *Game) judgeLate() {
	side := int(g.held - 1)
	late := g.tick - g.heldAt
	lag := uint64(g.seats[side].lag)
	if d, ok := g.reach(side); ok && late <= lag {
		g.held = 0
		g.bounce(side, d)
		return
	}
	if late >= lag {
		g.held = 0
		g.point(side)
	}
}

// hold stops the ball on side's contact line where it crossed it.
func (g *Game) hold(side int) {
	loX, hiX, loY, hiY := g.cfg.bounds()
	b := &g.ball
	switch side {
	case Left:
		b.x = loX
	case Right:
		b.x = hiX
	case Top:
		b.y = loY
	case Bottom:
		b.y = hiY
	}
	g.held, g.heldAt = int8(side+1), g.tick
}

// bounds are the limits of the ball's centre: a ball touching a face has
// its centre one radius inside it. Faces sit one unit in from each edge,
// the outer unit being where paddles and walls are drawn.
func (c Config) bounds() (loX, hiX, loY, hiY int32) {
	return Sub + BallRadius, c.Width*Sub - Sub - BallRadius,
		Sub + BallRadius, c.Height*Sub - Sub - BallRadius
}

// moveBall advances the ball one tick in sub-steps no longer than the
// ball's radius, so a fast ball cannot skip a paddle and a corner is met in
// the right order. The sub-steps are exact slices of (vx, vy), and walls
// mirror the overshoot, so between paddle contacts the path is exactly the
// folded straight line Snapshot.BallAt computes.
func (g *Game) moveBall() {
	b := &g.ball
	loX, hiX, loY, hiY := g.cfg.bounds()
	vx0, vy0 := b.vx, b.vy
	n := (max(abs32(vx0), abs32(vy0)) + BallRadius - 1) / BallRadius
	n = max(n, 1)
	fx, fy := int32(1), int32(1)
	for i := range n {
		b.x += (vx0*(i+1)/n - vx0*i/n) * fx
		b.y += (vy0*(i+1)/n - vy0*i/n) * fy
		if b.x < loX && !g.live(Left) {
			b.x, b.vx, fx = 2*loX-b.x, -b.vx, -fx
		} else if b.x > hiX && !g.live(Right) {
			b.x, b.vx, fx = 2*hiX-b.x, -b.vx, -fx
		}
		if b.y < loY && !g.live(Top) {
			b.y, b.vy, fy = 2*loY-b.y, -b.vy, -fy
		} else if b.y > hiY && !g.live(Bottom) {
			b.y, b.vy, fy = 2*hiY-b.y, -b.vy, -fy
		}
		hit := false
		for side := range 4 {
			if !g.beyond(side) {
				continue
			}
			if !g.contact(side) {
				return // a point was scored and the ball reset
			}
			hit = true
		}
		if hit {
			// The bounce set a new velocity; the rest of this tick's old
			// path (under half a unit) is dropped rather than re-sliced.
			return
		}
	}
}

// beyond reports whether the ball's centre has crossed side's contact line.
// Only paddle sides can be beyond: walls were folded back already.
func (g *Game) beyond(side int) bool {
	loX, hiX, loY, hiY := g.cfg.bounds()
	switch side {
	case Left:
		return g.ball.x < loX
	case Right:
		return g.ball.x > hiX
	case Top:
		return g.ball.y < loY
	}
	return g.ball.y > hiY
}

// contact resolves the ball crossing side's face: a bounce off the paddle
// (true) or a point against the side (false).
func (g *Game) contact(side int) bool {
	d, ok := g.reach(side)
	if !ok {
		if g.seats[side].lag > 0 {
			g.hold(side)
		} else {
			g.point(side)
		}
		return false
	}
	g.bounce(side, d)
	return true
}

// paddleLen is every paddle's length now, in sub-units: the config's,
// less a unit for each hit of the rally past ShrinkAfterHits under
// RulesProgress, down to nothing.
func (g *Game) paddleLen() int32 {
	l := g.cfg.PaddleLen * Sub
	if g.cfg.Rules >= RulesProgress && g.rallyHits > ShrinkAfterHits {
		l -= (g.rallyHits - ShrinkAfterHits) * Sub
	}
	return max(l, 0)
}

// reach reports whether side's paddle covers the ball, and where along the
// paddle it meets it (d, from the paddle's centre). A paddle shrunk to
// nothing meets nothing: that is what ends every rally under
// RulesProgress, however still or skilled the players.
func (g *Game) reach(side int) (d int32, ok bool) {
	along := g.ball.y
	if side == Top || side == Bottom {
		along = g.ball.x
	}
	l := g.paddleLen()
	half := l/2 + BallRadius
	d = along - g.seats[side].pos
	return d, l > 0 && d >= -half && d <= half
}

// bounce returns the ball from side's paddle, met at d from its centre.
func (g *Game) bounce(side int, d int32) {
	b := &g.ball
	s := &g.seats[side]
	half := g.paddleLen()/2 + BallRadius
	// The further from the centre, the steeper the return, up to
	// maxBounceDeg so the ball always has real speed away from the paddle.
	// Truncation toward zero keeps the mapping symmetric about the centre.
	deg := d * maxBounceDeg / half
	if g.cfg.Rules >= RulesProgress && abs32(deg) < minBounceDeg {
		// Never flat: off the dead centre the ball keeps drifting the way
		// it came, so a still paddle does not send back what it got.
		deg = minBounceDeg
		switch {
		case d < 0:
			deg = -minBounceDeg
		case d > 0:
		case side == Left || side == Right:
			if b.vy < 0 {
				deg = -minBounceDeg
			}
		case b.vx < 0:
			deg = -minBounceDeg
		}
	}
	g.rallyHits++
	b.speed = min(b.speed+g.cfg.SpeedUpPerHit, g.cfg.MaxBallSpeed)
	normal, al := polar(b.speed, deg)
	loX, hiX, loY, hiY := g.cfg.bounds()
	switch side {
	case Left:
		b.x, b.vx, b.vy = 2*loX-b.x, normal, al
	case Right:
		b.x, b.vx, b.vy = 2*hiX-b.x, -normal, al
	case Top:
		b.y, b.vx, b.vy = 2*loY-b.y, al, normal
	case Bottom:
		b.y, b.vx, b.vy = 2*hiY-b.y, al, -normal
	}
	s.hits++
	g.lastHit = int8(side)
}

// counting reports whether misses score. Until two sides contend (a casual
// room with one player warming up, or waiting for a 2v2 team) a miss only
// re-serves.
func (g *Game) counting() bool {
	switch g.cfg.Mode {
	case OneVOne:
		return g.live(Left) && g.live(Right)
	case TwoVTwo:
		return (g.live(Left) || g.live(Right)) && (g.live(Top) || g.live(Bottom))
	}
	n := 0
	for i := range 4 {
		if g.live(i) {
			n++
		}
	}
	return n >= 2
}

// point handles the ball getting past side's paddle.
func (g *Game) point(side int) {
	g.lastPointAgainst = int8(side)
	g.lastPointBy = g.lastHit
	g.lastPointTick = g.tick
	var (
		end, eliminated bool
		winners         uint8
	)
	if g.counting() {
		switch g.cfg.Mode {
		case OneVOne:
			// The opponent scores whether or not they touched the ball.
			opp := 1 - side
			g.lastPointBy = int8(opp)
			g.seats[opp].score++
			end, winners = g.seats[opp].score >= int32(g.cfg.PointsToWin), 1<<opp
		case TwoVTwo:
			t := 1 - side/2
			g.team[t]++
			end, winners = g.team[t] >= int32(g.cfg.PointsToWin), 3<<(2*t)
		case FFA4:
			g.seats[side].lives--
			if g.seats[side].lives <= 0 {
				g.eliminate(side)
				eliminated = true
			}
		}
	}
	g.resetBall()
	switch {
	case end:
		g.finish(winners, false)
	case eliminated:
		g.checkLastStanding(false)
	}
}

// resetBall ends the rally: the ball waits at the centre for the serve, and
// anyone who joined during the rally takes their side now.
func (g *Game) resetBall() {
	g.ball = ball{x: g.cfg.Width * Sub / 2, y: g.cfg.Height * Sub / 2}
	g.held, g.heldAt = 0, 0
	g.serveIn = int32(g.cfg.ServeDelayTicks)
	g.lastHit = -1
	g.rallyHits = 0
	g.activatePending()
}

func (g *Game) activatePending() {
	for i := range g.nslots {
		if s := &g.seats[i]; s.pending {
			s.pending, s.played = false, true
		}
	}
}

// serve launches the ball from the centre at a random live side, at an
// angle between minServeDeg and maxServeDeg off that side's normal. With no
// live side it waits, and Join restarts the countdown when someone comes.
func (g *Game) serve() {
	var cand [4]int
	n := 0
	for i := range g.nslots {
		if g.live(i) {
			cand[n] = i
			n++
		}
	}
	if n == 0 {
		return
	}
	side := cand[g.rng.Intn(uint64(n))]
	deg := minServeDeg + int32(g.rng.Intn(maxServeDeg-minServeDeg+1))
	if g.rng.Next()&1 == 1 {
		deg = -deg
	}
	b := &g.ball
	b.speed = g.cfg.BallSpeed
	normal, al := polar(b.speed, deg)
	switch side {
	case Left:
		b.vx, b.vy = -normal, al
	case Right:
		b.vx, b.vy = normal, al
	case Top:
		b.vx, b.vy = al, -normal
	case Bottom:
		b.vx, b.vy = al, normal
	}
	b.live = true
	g.lastHit = -1
}

// reachable reports whether the live ball will ever meet a paddle: it must
// move at a real fraction of its speed along an axis that still has one.
func (g *Game) reachable() bool {
	b := &g.ball
	minV := max(b.speed/4, 1)
	return (g.live(Left) || g.live(Right)) && abs32(b.vx) >= minV ||
		(g.live(Top) || g.live(Bottom)) && abs32(b.vy) >= minV
}

func (g *Game) eliminate(side int) {
	s := &g.seats[side]
	g.outCount++
	s.out, s.dir, s.tap, s.outRank = true, 0, 0, g.outCount
}

// checkLastStanding ends an FFA match once at most one player is still in.
func (g *Game) checkLastStanding(forfeit bool) {
	var w uint8
	n := 0
	for i := range 4 {
		if g.in(i) {
			w |= 1 << i
			n++
		}
	}
	if n <= 1 {
		g.finish(w, forfeit)
	}
}

// finish ends the match. Winners are limited to seats that have played, so
// an empty 2v2 slot on the winning team is not placed.
func (g *Game) finish(winners uint8, forfeit bool) {
	g.activatePending()
	var played uint8
	for i := range g.nslots {
		if g.seats[i].played {
			played |= 1 << i
		}
	}
	g.over, g.forfeit, g.winners = true, forfeit, winners&played
	g.ball.live = false
	g.ball.vx, g.ball.vy = 0, 0
	g.held, g.heldAt = 0, 0
	g.serveIn = 0
}

// Result implements game.Game. Seats that had a paddle in play are placed,
// leavers included. Ties share a place and the next place follows on (a 2v2
// is places 1,1,2,2); tied slots are listed in slot order.
func (g *Game) Result() (game.Result, bool) {
	if !g.over {
		return game.Result{}, false
	}
	n := g.nslots
	// key orders seats: smaller is better.
	var key [4]int
	for i := range n {
		s := &g.seats[i]
		switch {
		case g.winners&(1<<i) != 0:
			key[i] = 0
		case g.cfg.Mode == FFA4 && s.out:
			// Later out is better.
			key[i] = 1 + int(g.outCount-s.outRank)
		default:
			key[i] = 1
		}
	}
	r := game.Result{
		Placements: make([]int, 0, n),
		Places:     make([]int, n),
		Scores:     make([]int, n),
		Forfeit:    g.forfeit,
		WarmUp:     !g.contested,
	}
	for i := range n {
		switch g.cfg.Mode {
		case OneVOne:
			r.Scores[i] = int(g.seats[i].score)
		case TwoVTwo:
			r.Scores[i] = int(g.team[i/2])
		case FFA4:
			r.Scores[i] = int(g.seats[i].lives)
		}
		if !g.seats[i].played {
			continue
		}
		// Dense ranking: a 2v2 losing team is second, not third.
		var better uint64
		for j := range n {
			if g.seats[j].played && key[j] < key[i] {
				better |= 1 << key[j]
			}
		}
		place := 1 + bits.OnesCount64(better)
		r.Places[i] = place
		// Insertion keeps Placements ordered by (place, slot).
		k := len(r.Placements)
		r.Placements = append(r.Placements, i)
		for k > 0 && r.Places[r.Placements[k-1]] > place {
			r.Placements[k] = r.Placements[k-1]
			k--
		}
		r.Placements[k] = i
	}
	return r, true
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}
