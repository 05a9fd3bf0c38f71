package game

import (
	"errors"
	"hash/fnv"
	"slices"
	"strconv"
)

// fakeGame is the smallest Game that lets tests see what the room did to
// it: every call it received shows up in its snapshot.
type fakeGame struct {
	seed    uint64
	slots   int
	endAt   uint64 // game ends by play at this tick; 0 = never
	seated  []bool
	pos     []int
	tick    uint64
	applied int
	bad     int // inputs for unseated or out-of-range slots: must stay 0
	left    []int
	result  *Result
}

// fakeState is immutable once returned.
type fakeState struct {
	Seed    uint64
	Tick    uint64
	Pos     []int
	Seated  []bool
	Applied int
	Bad     int
	Left    []int
}

func fakeFactory(slots int, endAt uint64) Factory {
	return func(seed uint64) Game {
		return &fakeGame{seed: seed, slots: slots, endAt: endAt, seated: make([]bool, slots), pos: make([]int, slots)}
	}
}

func (g *fakeGame) Slots() int { return g.slots }

func (g *fakeGame) Join(slot int) error {
	if slot < 0 || slot >= g.slots || g.seated[slot] {
		return errors.New("fake: bad join " + strconv.Itoa(slot))
	}
	g.seated[slot] = true
	return nil
}

func (g *fakeGame) Leave(slot int) {
	g.seated[slot] = false
	g.left = append(g.left, slot)
	n := 0
	for _, s := range g.seated {
		if s {
			n++
		}
	}
	if n <= 1 && g.result == nil {
		g.end(true)
	}
}

func (g *fakeGame) Step(inputs []Input) {
	for _, in := range inputs {
		if in.Slot < 0 || in.Slot >= g.slots || !g.seated[in.Slot] {
			g.bad++
			continue
		}
		g.pos[in.Slot] += int(in.Action)
		g.applied++
	}
	g.tick++
	if g.endAt > 0 && g.tick >= g.endAt && g.result == nil {
		g.end(false)
	}
}

// end ranks seated players first, then by position.
func (g *fakeGame) end(forfeit bool) {
	order := make([]int, g.slots)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if g.seated[a] != g.seated[b] {
			if g.seated[a] {
				return -1
			}
			return 1
		}
		return g.pos[b] - g.pos[a]
	})
	places := make([]int, g.slots)
	for p, s := range order {
		places[s] = p + 1
	}
	g.result = &Result{Placements: order, Places: places, Scores: slices.Clone(g.pos), Forfeit: forfeit}
}

func (g *fakeGame) Snapshot() any {
	return &fakeState{
		Seed: g.seed, Tick: g.tick, Pos: slices.Clone(g.pos), Seated: slices.Clone(g.seated),
		Applied: g.applied, Bad: g.bad, Left: slices.Clone(g.left),
	}
}

func (g *fakeGame) Result() (Result, bool) {
	if g.result == nil {
		return Result{}, false
	}
	return *g.result, true
}

func (g *fakeGame) Hash() uint64 {
	h := fnv.New64a()
	for _, p := range g.pos {
		h.Write([]byte(strconv.Itoa(p) + ","))
	}
	h.Write([]byte(strconv.FormatUint(g.tick, 10)))
	return h.Sum64()
}
