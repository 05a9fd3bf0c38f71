package main

import (
	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/game/tron"
	tronview "github.com/termarena/termarena/game/tron/view"
	"github.com/termarena/termarena/screen"
	"github.com/termarena/termarena/tui"
)

// gameEntry is one game the server runs: its rules-side description and
// its room-screen view (nil: the room screen's built-in Pong board).
type gameEntry struct {
	kind game.Kind
	view tui.ViewMaker
}

// games is the one list of the games this server runs: a game is a
// folder under game/ and a line here. The server's packages reach games
// only through it (game.Kind, tui.GameView), never by import.
func games() []gameEntry {
	return []gameEntry{
		{pong.Kind{}, nil},
		{tron.Kind{}, func(base screen.Style, p colorprofile.Profile) tui.GameView { return tronview.NewScreen(base, p) }},
	}
}

// catalog is the games' rules side, for the lobby, replays and commands.
func catalog() game.Catalog {
	out := make(game.Catalog, 0, 2)
	for _, g := range games() {
		out = append(out, g.kind)
	}
	return out
}

// views is the games' room-screen views by name.
func views() tui.Views {
	out := tui.Views{}
	for _, g := range games() {
		if g.view != nil {
			out[g.kind.Name()] = g.view
		}
	}
	return out
}
