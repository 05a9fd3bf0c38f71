package tui

// roomHelpKey shows the game's keys over a player's room screen: ? shows
// and hides them; any other key hides them and then does what it always
// does, so a player who looked mid-rally loses no move. It reports
// whether it took the key.
func (m *Lobby) roomHelpKey(s string) bool {
	in := m.in
	if s == "?" {
		in.helping = !in.helping
		if in.helping {
			in.view.SetHelp(m.roomHelp(), 1)
		} else {
			in.view.SetPrompt()
		}
		return true
	}
	if in.helping {
		in.helping = false
		in.view.SetPrompt()
	}
	return false
}

// roomHelp is the key help a player in a room sees, but for their game's
// keys for their seat, which the room screen puts after the first line
// (SetHelp): what every room shares.
func (m *Lobby) roomHelp() []string {
	lines := append([]string{"Keys"}, gameKeys...)
	if m.d.WebURL != "" {
		lines = append(lines, "L  this room's web link, to watch in a browser")
	}
	return append(lines, "? or any key closes this")
}
