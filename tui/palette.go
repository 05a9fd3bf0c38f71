package tui

import (
	"reflect"
	"sync"

	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/gameview"
	"github.com/termarena/termarena/screen"
)

// The room screen's own text styles, first in the session's game palette;
// the game view's styles follow from viewBase.
const (
	stDefault screen.Style = iota
	stText
	stDim
	stBold
	stWarn
	stAccent
	stGood
	stWhisper
	stChatName0 // stChatName0+i: chatNameColor(i)
	numStyles   = stChatName0 + chatNameColors
)

// gamePalette builds every style the room screen uses for one profile;
// the game view's styles (extra) follow the screen's own, from viewBase.
func gamePalette(p colorprofile.Profile, extra []screen.Spec) *screen.Palette {
	specs := make([]screen.Spec, numStyles, int(numStyles)+len(extra))
	specs[stText] = screen.Spec{FG: colText}
	specs[stDim] = screen.Spec{FG: colDim}
	specs[stBold] = screen.Spec{FG: colText, Bold: true}
	specs[stWarn] = screen.Spec{FG: colWarn, Bold: true}
	specs[stAccent] = screen.Spec{FG: colAccent, Bold: true}
	specs[stGood] = screen.Spec{FG: colGood, Bold: true}
	specs[stWhisper] = screen.Spec{FG: colWhisper}
	for i := range chatNameColors {
		specs[stChatName0+screen.Style(i)] = screen.Spec{FG: chatNameColor(i)}
	}
	return screen.NewPalette(p, append(specs, extra...))
}

// Palettes shares the game palettes of a server's room screens: a palette
// is a pure function of the colour profile and the game view's styles, so
// every room screen of one game and profile can use the same one, built
// once and never changed (screen.Palette is read-only once made). Each
// playing session built its own before, ≈5.6 KB of its heap. The zero
// value is ready; nil builds a palette per call (tests, tools).
type Palettes struct {
	mu sync.Mutex
	by map[paletteKey]*screen.Palette
}

// paletteKey names a game palette: gameview.View.Styles depends on the
// profile alone, so a view's type and the profile say what it holds.
type paletteKey struct {
	profile colorprofile.Profile
	view    reflect.Type // nil: the room screen's own styles only
}

// of is the game palette for p with gv's styles after the screen's own.
func (ps *Palettes) of(p colorprofile.Profile, gv gameview.View) *screen.Palette {
	build := func() *screen.Palette {
		if gv == nil {
			return gamePalette(p, nil)
		}
		return gamePalette(p, gv.Styles(p))
	}
	if ps == nil {
		return build()
	}
	k := paletteKey{p, reflect.TypeOf(gv)}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	pal := ps.by[k]
	if pal == nil {
		if ps.by == nil {
			ps.by = map[paletteKey]*screen.Palette{}
		}
		// Built under the lock: a few microseconds, once per game and
		// profile for the server's life.
		pal = build()
		ps.by[k] = pal
	}
	return pal
}
