package main

import (
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
)

// games is the one list of the games this server runs: a game is a
// folder under game/ and a line here. The server's packages reach games
// only through this catalogue (game.Kind), never by import.
//
// Light cycles (game/tron: rules, modes and a view) are not listed yet:
// the room screen still paints Pong itself, and a game joins this list
// once the screen paints through the game's own view.
func games() game.Catalog { return game.Catalog{pong.Kind{}} }
