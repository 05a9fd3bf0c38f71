package tui

import (
	"github.com/charmbracelet/colorprofile"

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
