package tron

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/termarena/termarena/game"
)

// busyGame plays an 8-rider default match with the bot until the arena
// is well filled, and returns it mid-round.
func busyGame(t testing.TB, ticks int) *Game {
	t.Helper()
	cfg := DefaultConfig(Casual)
	cfg.RoundsToWin = 1 << 20
	g := New(cfg, 3)
	for s := range cfg.Players {
		_ = g.Join(s)
	}
	b := newBot(5)
	for range ticks {
		g.Step(b.inputs(g))
	}
	return g
}

func cloneSnapshot(s *Snapshot) Snapshot {
	c := *s
	cfg := *s.Config
	c.Config = &cfg
	c.Grid = append([]byte(nil), s.Grid...)
	return c
}

func TestSnapshotRoundTrip(t *testing.T) {
	for _, ticks := range []int{0, 1, 400, 1500} {
		g := busyGame(t, ticks)
		s := snap(g)
		data, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		d, err := DecodeSnapshot(data)
		if err != nil {
			t.Fatalf("after %d ticks: %v", ticks, err)
		}
		if !reflect.DeepEqual(cloneSnapshot(d), cloneSnapshot(s)) {
			t.Fatalf("after %d ticks: decoded %+v\nwant %+v", ticks, d, s)
		}
		var u Snapshot
		if err := u.UnmarshalBinary(data); err != nil || !reflect.DeepEqual(cloneSnapshot(&u), cloneSnapshot(s)) {
			t.Fatalf("UnmarshalBinary: %v", err)
		}
		marked := 0
		for _, v := range s.Grid {
			if v != 0 {
				marked++
			}
		}
		t.Logf("after %4d ticks: round %d, %4d of %d cells marked: %5d bytes encoded", ticks, s.Round, marked, len(s.Grid), len(data))
	}
}

func TestSnapshotDecodeRejects(t *testing.T) {
	g := busyGame(t, 300)
	data, err := snap(g).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(data) {
		if _, err := DecodeSnapshot(data[:n]); !errors.Is(err, ErrSnapshotEncoding) {
			t.Fatalf("truncated to %d of %d bytes: err %v, want ErrSnapshotEncoding", n, len(data), err)
		}
	}
	if _, err := DecodeSnapshot(append(bytes.Clone(data), 0)); !errors.Is(err, ErrSnapshotEncoding) {
		t.Errorf("trailing byte: %v", err)
	}
	bad := bytes.Clone(data)
	bad[0] = 9
	if _, err := DecodeSnapshot(bad); !errors.Is(err, ErrSnapshotEncoding) {
		t.Errorf("version 9: %v", err)
	}
}

func FuzzDecodeSnapshot(f *testing.F) {
	for _, ticks := range []int{0, 300} {
		data, err := snap(busyGame(f, ticks)).MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodeSnapshot(data)
		if err != nil {
			return
		}
		// Whatever decodes is drawable and encodes back the same.
		if len(s.Grid) != s.Width*s.Height {
			t.Fatalf("grid %d cells for %dx%d", len(s.Grid), s.Width, s.Height)
		}
		for i := range s.Slots {
			c := s.Cycles[i]
			_ = s.At(int(c.X), int(c.Y))
			_, _, _, _ = s.NextHead(i, Up)
		}
		again, err := s.MarshalBinary()
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		if s2, err := DecodeSnapshot(again); err != nil || !reflect.DeepEqual(cloneSnapshot(s2), cloneSnapshot(s)) {
			t.Fatalf("re-decode: %v", err)
		}
	})
}

// TestSnapshotImmutable: what a snapshot shows never changes afterwards,
// though the game goes on moving, resetting rounds and ending.
func TestSnapshotImmutable(t *testing.T) {
	cfg := DefaultConfig(Casual)
	cfg.RoundsToWin = 2
	g := New(cfg, 9)
	for s := range 4 {
		_ = g.Join(s)
	}
	b := newBot(1)
	var kept []*Snapshot
	var copies []Snapshot
	for i := 0; !g.over && i < 20000; i++ {
		g.Step(b.inputs(g))
		if i%97 == 0 {
			s := snap(g)
			kept = append(kept, s)
			copies = append(copies, cloneSnapshot(s))
		}
	}
	if !g.over {
		t.Fatal("match did not end")
	}
	for i, s := range kept {
		if !reflect.DeepEqual(cloneSnapshot(s), copies[i]) {
			t.Fatalf("snapshot %d (tick %d) changed after it was returned", i, copies[i].Tick)
		}
	}
	// Two snapshots with no move between them share the grid; a move
	// gives the next one its own.
	g = newGame(t, DefaultConfig(Casual), 0, 1)
	g.Step(nil)
	a, c := snap(g), snap(g)
	if &a.Grid[0] != &c.Grid[0] {
		t.Error("snapshots with no move between them copied the grid")
	}
	stepMoves(g, 1)
	if d := snap(g); &d.Grid[0] == &a.Grid[0] {
		t.Error("a move wrote into a grid a snapshot shares")
	}
}

// TestNextHeadPredictsStep: for random states and one or two pending
// turns, the cell and heading NextHead gives are where Step puts the cycle
// at its next move.
func TestNextHeadPredictsStep(t *testing.T) {
	cfg := DefaultConfig(Casual)
	cfg.RoundsToWin = 1 << 20
	g := New(cfg, 11)
	for s := range 6 {
		_ = g.Join(s)
	}
	b := newBot(2)
	checked, doubles := 0, 0
	for tick := 0; tick < 8000; tick++ {
		ins := b.inputs(g)
		s := snap(g)
		if tick%5 != 0 || s.PauseIn != 0 || s.HoldIn != 0 {
			g.Step(ins)
			continue
		}
		slot := tick % 6
		turns := []int8{int8(tick / 5 % 5)}
		if tick%3 == 0 {
			turns = append(turns, int8(tick/7%5))
		}
		x, y, h, ok := s.NextHead(slot, turns...)
		if !ok {
			g.Step(ins)
			continue
		}
		// The turns replace the bot's input for the slot, as a session's
		// keys are the only inputs for its seat.
		var mine []game.Input
		for _, in := range ins {
			if in.Slot != slot {
				mine = append(mine, in)
			}
		}
		for _, turn := range turns {
			mine = append(mine, in(slot, turn))
		}
		for range g.moveIn - 1 {
			g.Step(mine)
			mine = nil
		}
		before := s.Cycles[slot]
		g.Step(mine)
		c := g.cycles[slot]
		switch {
		case c.alive:
			if int(c.x) != x || int(c.y) != y || c.heading != h {
				t.Fatalf("tick %d slot %d turns %v from %+v: predicted (%d,%d) heading %d, Step gave (%d,%d) heading %d",
					tick, slot, turns, before, x, y, h, c.x, c.y, c.heading)
			}
			checked++
			if len(turns) == 2 {
				doubles++
			}
		case s.Free(x, y) && g.round == s.Round && !bothMeet(s, slot, x, y):
			t.Fatalf("tick %d slot %d: predicted free cell (%d,%d) but the cycle crashed", tick, slot, x, y)
		}
	}
	if checked < 200 || doubles < 50 {
		t.Errorf("only %d predictions checked (%d with two turns)", checked, doubles)
	}
}

// bothMeet reports whether another riding cycle could move into (x, y) at
// the same move, which crashes both though the cell was free.
func bothMeet(s *Snapshot, slot, x, y int) bool {
	for i := range s.Slots {
		c := s.Cycles[i]
		if i == slot || !c.Alive {
			continue
		}
		if d := abs(int(c.X)-x) + abs(int(c.Y)-y); d == 1 {
			return true
		}
	}
	return false
}

func TestNextHeadNotRiding(t *testing.T) {
	g := newGame(t, testConfig(3), 0, 1)
	s := snap(g)
	for _, slot := range []int{-1, 2, 3, 9} {
		if _, _, _, ok := s.NextHead(slot, Up); ok {
			t.Errorf("NextHead(%d) ok for a slot not riding", slot)
		}
	}
	if _, _, _, ok := s.NextHead(0, Up); !ok {
		t.Error("NextHead(0) not ok for a rider")
	}
}
