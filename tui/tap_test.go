package tui

import (
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// tapSim is a room ticking at 60 Hz on a fake clock around a view that
// does what Run does with keys and its tap timer.
type tapSim struct {
	t     *testing.T
	g     *pong.Game
	room  *fakeRoom
	v     *RoomView
	out   *vtWriter
	now   time.Time
	next  time.Time // when the next tick is due
	taken int       // room inputs already applied
	ack   uint32
}

func newTapSim(t *testing.T, g *pong.Game, slot, w, h int) *tapSim {
	s := &tapSim{t: t, g: g, out: newVT(w, h), now: time.Unix(1000, 0)}
	s.next = s.now.Add(time.Second / 60)
	fr := s.frame()
	s.room = newFakeRoom(fr)
	s.room.at = s.now
	s.v = newTestRoomView(RoomViewConfig{Room: s.room, Me: "a", Slot: slot, Out: s.out, Profile: colorprofile.ANSI256,
		Width: w, Height: h, Now: func() time.Time { return s.now }})
	s.v.setFrame(fr, s.now)
	s.v.draw()
	return s
}

func (s *tapSim) frame() *game.Frame {
	fr := frameOf(s.g, 0)
	n := s.g.Slots()
	fr.Seats = fr.Seats[:0]
	fr.Acks = make([]uint32, n)
	for i := range n {
		fr.Seats = append(fr.Seats, game.Seat{Player: game.Player{ID: game.PlayerID(rune('a' + i)), Name: string(rune('a' + i))}, Taken: true, Connected: true})
	}
	fr.Acks[s.slot()] = s.ack
	return fr
}

func (s *tapSim) slot() int {
	if s.v == nil {
		return 0
	}
	return s.v.cfg.Slot
}

// key presses a key at the current time, as Run does.
func (s *tapSim) key(dir int8, repeat bool) {
	s.v.poll()
	s.v.in.ctl.press(keyEvent{dir: dir, repeat: repeat, at: s.now})
	s.v.in.keyTap(true)
	s.v.in.submit()
	s.v.draw()
}

// until runs ticks until the clock reaches t: each tick applies what the
// view sent (the last input of a tick wins, as in the room), publishes the
// frame, and then the view looks at it a little after the tick, and
// draws.
func (s *tapSim) until(t time.Time) {
	for !s.next.After(t) {
		s.now = s.next
		s.room.mu.Lock()
		ins := append([]game.Input(nil), s.room.inputs[s.taken:]...)
		s.taken = len(s.room.inputs)
		s.room.mu.Unlock()
		for i := range ins {
			ins[i].Slot = s.slot()
			s.ack = ins[i].Seq
		}
		s.g.Step(ins)
		fr := s.frame()
		s.room.mu.Lock()
		s.room.fr, s.room.at = fr, s.now
		s.room.mu.Unlock()
		s.now = s.now.Add(3 * time.Millisecond)
		s.v.in.ctl.expire(s.now)
		s.v.in.submit()
		s.v.poll()
		s.v.draw()
		s.next = s.next.Add(time.Second / 60)
	}
	s.now = t
}

func (s *tapSim) pos() int32 { return snapOf(s.g).Paddles[s.slot()].Pos }

// A tap moves the paddle exactly one cell: the room's paddle (which every
// other screen draws) and the one the player's own prediction draws, with
// no step back on the way, from every offset within a cell.
func TestTapMovesOneCell(t *testing.T) {
	for _, c := range []struct {
		name string
		mode pong.Mode
		slot int
		cell int32 // pixels in one terminal cell along the side, at 80×24
	}{
		{"left paddle, down", pong.OneVOne, pong.Left, 2},
		{"top paddle, across", pong.TwoVTwo, pong.Top, 1},
	} {
		for _, dir := range []int8{1, -1} {
			for offset := range 6 {
				g := pong.New(pong.DefaultConfig(c.mode), 42)
				for i := range g.Slots() {
					if err := g.Join(i); err != nil {
						t.Fatal(err)
					}
				}
				for range offset { // a different sub-cell position each time
					g.Step([]game.Input{{Slot: c.slot, Action: 1}})
				}
				g.Step(nil)
				s := newTapSim(t, g, c.slot, 80, 24)
				if s.v.mode != modeBoard {
					t.Fatalf("%s: no board at 80×24", c.name)
				}
				plen := snapOf(s.g).Paddles[c.slot].Len
				at := func(r [4]int32) int32 {
					if c.slot == pong.Top {
						return r[0]
					}
					return r[1]
				}
				start := at(s.v.pong().Rect(c.slot, s.pos(), plen))
				s.until(s.now.Add(5 * time.Millisecond))
				s.key(dir, false)
				drawn := []int32{at(s.v.in.steer.Drawn())}
				for range 30 {
					s.until(s.now.Add(10 * time.Millisecond))
					drawn = append(drawn, at(s.v.in.steer.Drawn()))
				}
				end := at(s.v.pong().Rect(c.slot, s.pos(), plen))
				if want := start + int32(dir)*c.cell; end != want {
					t.Fatalf("%s dir %d offset %d: the room moved the paddle from pixel %d to %d, want %d (one cell)",
						c.name, dir, offset, start, end, want)
				}
				for i, d := range drawn {
					if (dir > 0 && (d < start || d > end)) || (dir < 0 && (d > start || d < end)) {
						t.Fatalf("%s dir %d offset %d: own paddle drawn at %d (step %d), outside %d..%d: %v",
							c.name, dir, offset, d, i, start, end, drawn)
					}
					if i > 0 && (d-drawn[i-1])*int32(dir) < 0 {
						t.Fatalf("%s dir %d offset %d: own paddle stepped back: %v", c.name, dir, offset, drawn)
					}
				}
				if last := drawn[len(drawn)-1]; last != end {
					t.Fatalf("%s dir %d offset %d: own paddle drawn at %d, the room's at %d", c.name, dir, offset, last, end)
				}
				if ins := s.room.inputs; len(ins) != 1 || pong.TapTicks(ins[0].Action) == 0 || (ins[0].Action > 0) != (dir > 0) {
					t.Fatalf("%s dir %d offset %d: inputs %+v, want one tap, which the room ends", c.name, dir, offset, ins)
				}
			}
		}
	}
}

// Held down, a key auto-repeats after a delay: after the tap's cell the
// paddle moves at full speed, every tick, for as long as the repeats come.
func TestAutoRepeatMovesAtFullSpeed(t *testing.T) {
	g, _ := match1v1(t, 0)
	s := newTapSim(t, g, pong.Left, 80, 24)
	speed := snapOf(g).Config.PaddleSpeed
	s.key(-1, false)
	s.until(s.now.Add(400 * time.Millisecond)) // the terminal's repeat delay
	var moves []int32
	for range 6 { // 30 repeats a second, until near the wall
		s.key(-1, false)
		before := s.pos()
		s.until(s.now.Add(33 * time.Millisecond))
		moves = append(moves, before-s.pos())
	}
	// The first repeat lands within a tick or two; from then on the paddle
	// moves every tick.
	for i, m := range moves[1:] {
		if m != 2*speed {
			t.Fatalf("repeat %d: the paddle moved %d sub-units in two ticks, want %d (full speed): %v", i+1, m, 2*speed, moves)
		}
	}
	// The repeats stop: the paddle stops once the hold window has passed.
	s.until(s.now.Add(holdRepeat + 50*time.Millisecond))
	p := s.pos()
	s.until(s.now.Add(100 * time.Millisecond))
	if s.pos() != p {
		t.Fatal("the paddle kept moving after the repeats stopped")
	}
}

// A terminal that reports key releases (kitty protocol) holds a press
// until its release, however long: no tap, no hold window.
func TestKeyReleaseTerminalsMoveUntilRelease(t *testing.T) {
	g, _ := match1v1(t, 0)
	s := newTapSim(t, g, pong.Left, 80, 24)
	s.v.in.ctl.release(keyEvent{dir: 1, release: true, at: s.now}) // the terminal's first release
	speed := snapOf(g).Config.PaddleSpeed
	start := s.pos()
	s.key(1, false)
	s.until(s.now.Add(300 * time.Millisecond))
	moved := s.pos() - start
	if moved < 15*speed {
		t.Fatalf("held for 300 ms the paddle moved %d sub-units, want at least 15 ticks' worth (%d)", moved, 15*speed)
	}
	s.v.in.ctl.release(keyEvent{dir: 1, release: true, at: s.now})
	s.v.in.submit()
	s.until(s.now.Add(50 * time.Millisecond))
	p := s.pos()
	s.until(s.now.Add(100 * time.Millisecond))
	if s.pos() != p {
		t.Fatal("the paddle kept moving after the release")
	}
	if ins := s.room.inputs; len(ins) != 2 || ins[0].Action != 1 || ins[1].Action != 0 {
		t.Fatalf("inputs %+v, want the press and the release's stop", ins)
	}
}

func snapOf(g *pong.Game) *pong.Snapshot { return g.Snapshot().(*pong.Snapshot) }

// Two deliberate taps a moment apart (longer than auto-repeat's interval)
// move two cells, not a cell and a glide.
func TestTwoTapsMoveTwoCells(t *testing.T) {
	g, _ := match1v1(t, 0)
	s := newTapSim(t, g, pong.Left, 80, 24)
	plen := snapOf(g).Paddles[pong.Left].Len
	start := s.v.pong().Rect(pong.Left, s.pos(), plen)[1]
	s.key(1, false)
	s.until(s.now.Add(200 * time.Millisecond))
	s.key(1, false)
	s.until(s.now.Add(300 * time.Millisecond))
	if end := s.v.pong().Rect(pong.Left, s.pos(), plen)[1]; end != start+4 {
		t.Fatalf("two taps moved the paddle from pixel %d to %d, want %d (two rows)", start, end, start+4)
	}
}

// A tap moves one cell however late the session's goroutine runs (a
// loaded server): the room carries the tap out whole, and nothing the
// view sends late can make it go further.
func TestTapIsExactWhenTheViewRunsLate(t *testing.T) {
	g, _ := match1v1(t, 0)
	s := newTapSim(t, g, pong.Left, 80, 24)
	plen := snapOf(g).Paddles[pong.Left].Len
	start := s.v.pong().Rect(pong.Left, s.pos(), plen)[1]
	s.key(1, false)
	// The room ticks on for a third of a second; the view looks at none
	// of it.
	s.room.mu.Lock()
	ins := append([]game.Input(nil), s.room.inputs...)
	s.room.mu.Unlock()
	for i := range ins {
		ins[i].Slot = pong.Left
	}
	s.g.Step(ins)
	for range 20 {
		s.g.Step(nil)
	}
	if end := s.v.pong().Rect(pong.Left, s.pos(), plen)[1]; end != start+2 {
		t.Fatalf("a tap with the view asleep moved the paddle from pixel %d to %d, want %d (one row)", start, end, start+2)
	}
}
