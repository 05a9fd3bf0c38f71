// Package games is the one list of the games a termarena server runs:
// each game's rules side (game.Kind) and its room-screen view
// (gameview.Maker). A game is a folder under game/ and a line here; the
// server's packages reach games only through what this package hands
// them, never by import. main assembles the server from it, and so do the
// end-to-end tests, so they run what players run.
package games

import (
	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/bot"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	pongbot "github.com/termarena/termarena/game/pong/bot"
	pongview "github.com/termarena/termarena/game/pong/view"
	"github.com/termarena/termarena/game/tron"
	tronbot "github.com/termarena/termarena/game/tron/bot"
	tronview "github.com/termarena/termarena/game/tron/view"
	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/screen"
)

// gameEntry is one game the server runs: its rules-side description and
// its room-screen view, and its bots.
type gameEntry struct {
	kind game.Kind
	view gameview.Maker
	bots bot.Maker
}

// entries is the list, in menu order.
func entries() []gameEntry {
	return []gameEntry{
		{pong.Kind{}, func(base screen.Style, p colorprofile.Profile) gameview.View { return pongview.NewScreen(base, p) }, pongbot.New},
		{tron.Kind{}, func(base screen.Style, p colorprofile.Profile) gameview.View { return tronview.NewScreen(base, p) }, tronbot.New},
	}
}

// Catalog is the games' rules side, for the lobby, replays and commands.
func Catalog() game.Catalog {
	var out game.Catalog
	for _, g := range entries() {
		out = append(out, g.kind)
	}
	return out
}

// Views are the games' room-screen views by game name (tui.Views).
func Views() map[string]gameview.Maker {
	out := map[string]gameview.Maker{}
	for _, g := range entries() {
		out[g.kind.Name()] = g.view
	}
	return out
}

// Bots are the games' practice bots by game name (bot.Maker): every game
// has them at every level, for every mode.
func Bots() map[string]bot.Maker {
	out := map[string]bot.Maker{}
	for _, g := range entries() {
		out[g.kind.Name()] = g.bots
	}
	return out
}
