package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/termarena/termarena/chat"
)

// stubScreen is a game screen over no room, for tests of what the session
// does while one is up: its keys go to the chat line as on every game
// screen, and its talk is the lobby's (as a replay's).
type stubScreen struct{ chat *chatState }

func (s *stubScreen) update(msg tea.Msg) (tea.Cmd, *playEnd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if cmd, ok := chatKey(s.chat, k); ok {
			return cmd, nil
		}
	}
	return nil, nil
}
func (s *stubScreen) resize(int, int)                 {}
func (s *stubScreen) setProfile(colorprofile.Profile) {}
func (s *stubScreen) where() string                   { return "room r0" }
func (s *stubScreen) sync()                           {}
func (s *stubScreen) close() tea.Cmd                  { return nil }
func (s *stubScreen) detach(context.Context)          {}
func (s *stubScreen) chatAt(cs *chatState) {
	cs.setChannels(chat.LobbyChannel, "", "lobby", "t/enter to chat")
}

// watchOf is the watch screen up, or nil.
func watchOf(m *Lobby) *watchScreen {
	w, _ := m.play.(*watchScreen)
	return w
}
