package view

import (
	"fmt"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/gameview"
)

// chase plays mode with every paddle chasing the ball and calls frame
// every other tick (30 fps at the room's 60) for n frames.
func chase(t testing.TB, mode pong.Mode, n int, frame func(i int, sn *pong.Snapshot)) {
	g := pong.New(pong.DefaultConfig(mode), 7)
	for i := range g.Slots() {
		if err := g.Join(i); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		for range 2 {
			s := g.Snapshot().(*pong.Snapshot)
			var in []game.Input
			for side := range 4 {
				if !s.Paddles[side].Present {
					continue
				}
				along := s.Ball.Y
				if side == pong.Top || side == pong.Bottom {
					along = s.Ball.X
				}
				d := int8(0)
				if along < s.Paddles[side].Pos-pong.Sub {
					d = -1
				} else if along > s.Paddles[side].Pos+pong.Sub {
					d = 1
				}
				in = append(in, game.Input{Slot: side, Action: d})
			}
			g.Step(in)
		}
		frame(i, g.Snapshot().(*pong.Snapshot))
	}
}

// Each frame repaints only the cells that changed, and the court it leaves
// on the screen is the one a whole paint of the same frame makes: for a
// player (predicted paddle), a watcher following a seat, without colour
// (shaded paddles), at 1:1 and scaled up, in every mode.
func TestFramesPaintWhatAWholePaintDoes(t *testing.T) {
	for _, c := range []struct {
		mode   pong.Mode
		prof   colorprofile.Profile
		w, h   int
		seat   int
		follow int
	}{
		{pong.OneVOne, colorprofile.ANSI256, 80, 24, pong.Left, -1},
		{pong.OneVOne, colorprofile.TrueColor, 200, 50, pong.Right, -1},
		{pong.TwoVTwo, colorprofile.Ascii, 80, 24, pong.Top, -1},
		{pong.FFA4, colorprofile.ANSI, 130, 41, -1, pong.Bottom},
	} {
		t.Run(fmt.Sprintf("%v-%dx%d", c.mode, c.w, c.h), func(t *testing.T) {
			s, scr := newScreen(c.prof, c.w, c.h)
			s.Follow(c.follow)
			now := time.Unix(1000, 0)
			chase(t, c.mode, 400, func(i int, sn *pong.Snapshot) {
				now = now.Add(time.Second / 30)
				if c.mode == pong.FFA4 && i >= 200 && i < 300 {
					// The top side's player is gone for a while: a wall
					// stands there, and goes when the paddle is back.
					cp := *sn
					cp.Paddles[pong.Top].Present = false
					sn = &cp
				}
				vw := gameview.Viewer{Seat: c.seat, Now: now.Add(time.Duration(i%4) * 5 * time.Millisecond), FrameAt: now, TickRate: 60, Live: true}
				if c.seat >= 0 && i%7 < 3 {
					// The player holds a key the room has not confirmed.
					vw.Held, vw.HeldAt = int8(1-2*(i/7%2)), now
				}
				s.Paint(scr, 0, 1, c.w, c.h-2, sn, vw)
				whole, wscr := newScreen(c.prof, c.w, c.h)
				whole.Follow(c.follow)
				whole.Paint(wscr, 0, 1, c.w, c.h-2, sn, vw)
				for y := range c.h {
					for x := range c.w {
						if got, want := scr.Get(x, y), wscr.Get(x, y); got != want {
							t.Fatalf("frame %d: cell %d,%d is %q/%d, a whole paint has %q/%d", i, x, y, got.R, got.S, want.R, want.S)
						}
					}
				}
			})
		})
	}
}

// A paddle that moves one cell costs the cells at its two ends, not the
// whole paddle twice: at 200×50 (scaled ×2.5) the court's paddles are 20
// rows long and most frames recomposed well over a hundred cells.
func TestAMovingPaddleRecomposesItsEnds(t *testing.T) {
	s, scr := newScreen(colorprofile.ANSI256, 200, 50)
	g := match(t, pong.OneVOne, 0)
	sn := snap(g)
	now := time.Unix(1000, 0)
	vw := gameview.Viewer{Seat: pong.Left, Now: now, FrameAt: now, TickRate: 60, Live: true}
	s.Paint(scr, 0, 1, 200, 48, sn, vw)
	before := s.Drawn()
	s.bd.recomposed = 0
	// The ball and the other paddle stand still (the same frame, no
	// extrapolation while not live); the own paddle goes down a tap.
	vw.Live = false
	_, to := s.Tap(sn, pong.Left, 1)
	sn.Paddles[pong.Left].Pos = to
	s.Paint(scr, 0, 1, 200, 48, sn, vw)
	after := s.Drawn()
	if after == before {
		t.Fatalf("the paddle did not move: %v", after)
	}
	width := int(after[2] - after[0])
	rows := int(after[3]-after[1]) / 2
	if got, most := s.bd.recomposed, 2*2*width; got > most {
		t.Errorf("moving the paddle %v → %v recomposed %d cells, want at most %d (its two ends; the paddle spans %d rows)",
			before, after, got, most, rows)
	}
}

// BenchmarkPaint is the board's cost of one 30 fps frame of a 1v1 played
// by two chasing paddles, at 80×24 and 200×50.
func BenchmarkPaint(b *testing.B) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			var snaps []*pong.Snapshot
			chase(b, pong.OneVOne, 600, func(_ int, sn *pong.Snapshot) { snaps = append(snaps, sn) })
			s, scr := newScreen(colorprofile.ANSI256, size[0], size[1])
			now := time.Unix(1000, 0)
			s.Paint(scr, 0, 1, size[0], size[1]-2, snaps[0], gameview.Viewer{Seat: 0, Now: now, FrameAt: now, TickRate: 60, Live: true})
			scr.Render()
			s.bd.recomposed = 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				now = now.Add(time.Second / 30)
				sn := snaps[1+i%(len(snaps)-1)]
				s.Paint(scr, 0, 1, size[0], size[1]-2, sn, gameview.Viewer{Seat: 0, Now: now, FrameAt: now, TickRate: 60, Live: true})
				scr.Render()
			}
			b.ReportMetric(float64(s.bd.recomposed)/float64(b.N), "cells/frame")
		})
	}
}
