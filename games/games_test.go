package games

import (
	"testing"

	"github.com/termarena/termarena/bot"
)

// Every game of the catalogue has a bot for every mode, seat and level,
// and none for a level that does not exist: a new game's bots are held to
// this without a test of its own.
func TestEveryGameHasBotsForEveryModeAndLevel(t *testing.T) {
	makers := Bots()
	for _, k := range Catalog() {
		newBot, ok := makers[k.Name()]
		if !ok || newBot == nil {
			t.Errorf("%s has no bots", k.Name())
			continue
		}
		for _, m := range k.Modes() {
			for level := 1; level <= bot.Levels; level++ {
				for slot := range m.Seats {
					if _, _, err := newBot(m.Name, level, slot, 1); err != nil {
						t.Errorf("%s %s level %d slot %d: %v", k.Name(), m.Name, level, slot, err)
					}
				}
			}
			for _, level := range []int{0, bot.Levels + 1} {
				if _, _, err := newBot(m.Name, level, 0, 1); err == nil {
					t.Errorf("%s %s level %d: made a bot", k.Name(), m.Name, level)
				}
			}
		}
	}
}
