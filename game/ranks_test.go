package game

import (
	"slices"
	"testing"
)

func TestRanksAreCompetitionRanking(t *testing.T) {
	noTeams := func(int) int { return -1 }
	pairs := func(i int) int { return i / 2 }
	for _, c := range []struct {
		places []int
		team   func(int) int
		want   []int
	}{
		// Eight riders, two sharing fifth: the next is seventh, not sixth.
		{[]int{1, 2, 3, 4, 5, 5, 6, 7}, nil, []int{1, 2, 3, 4, 5, 5, 7, 8}},
		{[]int{2, 1, 2, 3}, noTeams, []int{2, 1, 2, 4}},
		{[]int{1, 1, 2}, nil, []int{1, 1, 3}},
		// An empty seat keeps 0.
		{[]int{1, 0, 2}, nil, []int{1, 0, 2}},
		// Teams: the losing team is second.
		{[]int{2, 2, 1, 1}, pairs, []int{2, 2, 1, 1}},
	} {
		if got := Ranks(c.places, c.team); !slices.Equal(got, c.want) {
			t.Errorf("Ranks(%v) = %v, want %v", c.places, got, c.want)
		}
	}
}
