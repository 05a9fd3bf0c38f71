package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/spectator"
)

// WatchPainterConfig is a room screen painted for viewers without a
// terminal of their own (the web face).
type WatchPainterConfig struct {
	Room *lobby.Room
	// Feed is the room's watcher feed (Room.Watch: delayed for ranked
	// rooms), so these viewers see what SSH watchers see, when they do.
	Feed  *spectator.Delay
	Views Views
	// Ratings, when set, label a ranked match's seats with the players'
	// ratings, as a watcher's header does.
	Ratings            ratingReader
	Width, Height, FPS int
	Profile            colorprofile.Profile
	Out                FrameWriter
}

// WatchPainter paints one room as its watchers see it — the same game
// view, header, footer and results as `spectate` — once for all the
// viewers of one size, who share its frames.
type WatchPainter struct {
	view  *RoomView
	game  gameview.View
	feed  watchFeed
	title string
}

// NewWatchPainter prepares a painter; Run paints.
func NewWatchPainter(c WatchPainterConfig) *WatchPainter {
	r := c.Room
	// Read once, when a browser opens the room: a quick local read.
	labels := ratingLabels(context.Background(), c.Ratings, r)
	title := fmt.Sprintf("watching %s · %s", r.ID(), r.Info().Label)
	if d := r.SpectateDelay(); d > 0 {
		title += fmt.Sprintf(" · %ds behind", int(d.Seconds()))
	}
	p := &WatchPainter{game: c.Views.newGameView(r.Game.Name(), c.Profile), feed: watchFeed{room: r, feed: c.Feed}, title: title}
	p.view = NewRoomView(RoomViewConfig{
		Game: p.game, Room: p.feed, Slot: -1, Title: title, Out: c.Out, Profile: c.Profile, FPS: c.FPS,
		Width: c.Width, Height: c.Height, Ranked: r.Ranked != "", Outcome: r.Outcome, Watchers: r.Watchers,
		Labels:   func(slot int) string { return labels[slot] },
		Footer:   func() (string, string) { return title, "" },
		OverKeys: "match over",
		WaitText: "waiting for the match to start",
	})
	return p
}

// Run paints at the configured rate until ctx ends.
func (p *WatchPainter) Run(ctx context.Context) { p.view.Run(ctx) }

// Line says in words what the board shows, for a screen reader: each
// seat's player and score (and who is out), the game's own status line,
// and the phase.
func (p *WatchPainter) Line() string {
	fr, _ := p.feed.LatestAt()
	if fr == nil {
		return "waiting for the match to start"
	}
	var parts []string
	for slot, s := range fr.Seats {
		if !s.Taken {
			continue
		}
		t := s.Player.Name
		if p.game != nil && fr.State != nil {
			_, _, score, out := p.game.Seat(fr.State, slot)
			t += fmt.Sprintf(" %d", score)
			if out {
				t += " (out)"
			}
		}
		parts = append(parts, t)
	}
	line := strings.Join(parts, ", ")
	if p.game != nil && fr.State != nil {
		if st := p.game.Status(fr.State); st != "" {
			line += " · " + st
		}
	}
	switch {
	case fr.Phase == game.Finished, p.game != nil && fr.State != nil && p.game.Over(fr.State):
		line += " · match over"
	case fr.Phase == game.Waiting:
		line += " · waiting for the match to start"
	case fr.Paused:
		line += " · paused"
	}
	return line
}
