package view

import "github.com/termarena/termarena/game/tron"

// Action is the tron action for a key, named as Bubble Tea names keys
// ("up", "w", …); ok is false for a key the game does not use, which the
// caller then handles itself (quit, chat, camera). Capitals count too, so
// caps lock does not stop a rider.
func Action(key string) (action int8, ok bool) {
	switch key {
	case "up", "w", "W":
		return tron.Up, true
	case "down", "s", "S":
		return tron.Down, true
	case "left", "a", "A":
		return tron.Left, true
	case "right", "d", "D":
		return tron.Right, true
	}
	return tron.None, false
}

// KeyHelp is the key line a screen shows for riding.
const KeyHelp = "arrows/WASD turn"
