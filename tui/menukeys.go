package tui

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/termarena/termarena/game"
)

// The two lobby dialogs that list a game's modes by key (game.Mode.Key)
// take those keys together with their own: a mode key that is also one of
// the dialog's keys would do the dialog's thing, and the mode could never
// be picked (light cycles' ranked "t" opened chat in the ranked picker).
// The dialogs are modal (chat does not open from them: startsChat), so
// these are all the keys they take besides the modes'.
var (
	// createKeys are the create dialog's (createPage).
	createKeys = map[string]string{"esc": "cancel", "enter": "create", "p": "public/private", "g": "switch game", "b": "bots", "ctrl+c": "quit"}
	// pickerKeys are the ranked picker's (pickerPage).
	pickerKeys = map[string]string{"esc": "cancel", "q": "cancel", "ctrl+c": "quit"}
)

// CheckModeKeys reports a game mode whose menu key cannot be pressed in
// the dialog that lists it: not a single printable character, or one of
// that dialog's own keys. The server refuses to start on such a catalogue
// (game.Catalog.Validate checks the keys are unique; only the menus know
// which keys they keep for themselves).
func CheckModeKeys(c game.Catalog) error {
	for _, k := range c {
		for _, md := range k.Modes() {
			if md.Casual {
				if err := checkModeKey(k, md, "casual", "create dialog (c)", createKeys); err != nil {
					return err
				}
			}
			if md.Ranked != "" {
				if err := checkModeKey(k, md, "ranked", "ranked picker (P)", pickerKeys); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func checkModeKey(k game.Kind, md game.Mode, kind, dialog string, taken map[string]string) error {
	r, size := utf8.DecodeRuneInString(md.Key)
	if size == 0 || size != len(md.Key) || !unicode.IsGraphic(r) || unicode.IsSpace(r) {
		return fmt.Errorf("game %s, mode %s: %s menu key %q is not one printable character", k.Name(), md.Name, kind, md.Key)
	}
	if what, ok := taken[md.Key]; ok {
		return fmt.Errorf("game %s, mode %s: %s menu key %q is the %s's key for %q: give the mode another key", k.Name(), md.Name, kind, md.Key, dialog, what)
	}
	return nil
}
