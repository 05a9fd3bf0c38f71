package web

import (
	"fmt"
	"slices"
	"strings"

	"github.com/termarena/termarena/service"
)

// chart is one mode's rating history drawn as an SVG polyline on the
// server: the page needs no script to show it.
type chart struct {
	Mode          string
	Width, Height int
	// Points is the polyline's points attribute; empty without a rated
	// match in the history read.
	Points string
	// Dots are the points, for a marker on each match.
	Dots     [][2]float64
	Min, Max int
	First    int
	Last     int
	Matches  int
	// YMin and YMax are the rows of the Min and Max labels.
	YMin, YMax float64
}

// Chart geometry, in SVG user units (the page scales it to its width).
const (
	chartW   = 600
	chartH   = 160
	chartPad = 12
)

// ratingChart draws the player's (key fp) rating in mode over the ranked,
// finished matches of ms (newest first, as the store lists them): the
// rating before the oldest, then after each.
func ratingChart(mode, fp string, ms []service.Match) chart {
	c := chart{Mode: mode, Width: chartW, Height: chartH}
	var vals []int
	for _, m := range slices.Backward(ms) {
		if m.Mode != mode || !m.Ranked || m.Aborted {
			continue
		}
		for _, p := range m.Players {
			if p.Fingerprint == fp {
				if len(vals) == 0 {
					vals = append(vals, p.RatingBefore)
				}
				vals = append(vals, p.RatingAfter)
				c.Matches++
			}
		}
	}
	if len(vals) == 0 {
		return c
	}
	c.Min, c.Max = slices.Min(vals), slices.Max(vals)
	c.First, c.Last = vals[0], vals[len(vals)-1]
	lo, hi := c.Min-10, c.Max+10 // a flat history is a line in the middle
	x := func(i int) float64 {
		if len(vals) == 1 {
			return chartW / 2
		}
		return chartPad + float64(i)*float64(chartW-2*chartPad)/float64(len(vals)-1)
	}
	y := func(v int) float64 {
		return chartPad + float64(hi-v)*float64(chartH-2*chartPad)/float64(hi-lo)
	}
	var b strings.Builder
	for i, v := range vals {
		fmt.Fprintf(&b, "%.1f,%.1f ", x(i), y(v))
		c.Dots = append(c.Dots, [2]float64{x(i), y(v)})
	}
	c.Points = strings.TrimSpace(b.String())
	c.YMin, c.YMax = y(c.Min), y(c.Max)
	return c
}
