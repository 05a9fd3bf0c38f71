package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// chatCommand answers the chat commands that act on the lobby rather than
// on chat (one file each: chat_challenge.go, chat_answer.go), and adds
// them to /help; ok is false for every other line, which chat takes.
func (m *Lobby) chatCommand(text string) (tea.Cmd, bool) {
	in := strings.TrimSpace(text)
	if !strings.HasPrefix(in, "/") || strings.HasPrefix(in, "//") || m.d.Challenges == nil {
		return nil, false
	}
	cmd, args, _ := strings.Cut(in[1:], " ")
	args = strings.TrimSpace(args)
	switch strings.ToLower(cmd) {
	case "challenge":
		m.chatChallenge(args)
	case "cancel":
		m.chatCancel()
	case "accept":
		m.acceptChallenge(firstWord(args))
	case "decline":
		m.declineChallenge(firstWord(args))
	case "help", "h", "?":
		// Chat lists its own commands; these follow.
		return func() tea.Msg { return chatHelpMsg{} }, false
	default:
		return nil, false
	}
	return nil, true
}

// chatHelpMsg adds the lobby's chat commands under chat's /help.
type chatHelpMsg struct{}

// chatHelpLines are the lobby's own chat commands, for /help.
var chatHelpLines = []string{
	"challenges:",
	"  /challenge NAME [MODE] [casual|ranked]   invite someone online to a match",
	"  /accept [NAME] · /decline [NAME]         answer a challenge (y, n)",
	"  /cancel                                  withdraw yours",
}

func firstWord(s string) string {
	w, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	return w
}
