package spectator

import (
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/game/tron"
)

// testGames is the catalogue the tests replay with: the server's games.
var testGames = game.Catalog{pong.Kind{}, tron.Kind{}}

// pongBytes is c as a replay and a recorder carry it.
func pongBytes(c pong.Config) []byte {
	b, err := c.MarshalBinary()
	if err != nil {
		panic(err)
	}
	return b
}

// pongRecorder records Pong matches played with c.
func pongRecorder(c pong.Config) RecorderConfig {
	return RecorderConfig{Game: pong.Kind{}, Config: pongBytes(c), HeldInputs: true, TickRate: c.TickRate}
}
