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
			in.view.SetPrompt(m.roomHelp()...)
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

// roomHelp is the key help a player in a room sees: their game's keys for
// their seat, then what every room shares.
func (m *Lobby) roomHelp() []string {
	lines := []string{"Keys"}
	if gv := m.in.view.Plugin(); gv != nil {
		if k := gv.KeyHelp(m.in.slot); k != "" {
			lines = append(lines, k)
		}
	}
	lines = append(lines, gameKeys...)
	if m.d.WebURL != "" {
		lines = append(lines, "L  this room's web link, to watch in a browser")
	}
	return append(lines, "? or any key closes this")
}
