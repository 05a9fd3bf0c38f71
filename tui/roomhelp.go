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
	if m.d.Rooms != nil && m.in != nil && m.d.Rooms.BotsFor(m.in.room) {
		// As the waiting screen offers it (b bots).
		lines = append(lines, "b  bots in the free seats (practice, unrated)")
	}
	if m.d.WebURL != "" {
		lines = append(lines, "L  this room's web link, to watch in a browser")
	}
	return append(lines, "? or any key closes this")
}

// roomKey: a key a player's room screen keeps for the room rather than the
// game (Lobby.key in a room: Ctrl-C; esc, q leave, n queue, r rematch; t
// and enter chat and the pane's scrolling; ? help; L the web link). The
// terminal hands every other key to the room screen first (TakeKey); these
// go to the menu, as a key the game does not know does. Naming a key here
// that the menu then passes on costs nothing: the game still gets it.
func roomKey(s string) bool {
	switch s {
	case "ctrl+c", "esc", "q", "n", "r", "t", "enter", "pgup", "pgdown", "end", "?", "L":
		return true
	}
	return false
}
